import torch

from generator.models.model import GPT, GPTConfig


def expected_params(c):
    """Closed form from the config: embeddings + per layer (attention 4d², MLP 8d², two norms) + final norm."""
    d = c.n_embd
    return c.vocab_size * d + c.block_size * d + c.n_layer * (12 * d * d + 2 * d) + d


def test_parameter_count_from_config_equals_the_tensors():
    for d in (64, 128, 256):
        cfg = GPTConfig(n_embd=d)
        model = GPT(cfg)
        assert model.num_params() == expected_params(cfg)
        assert sum(t.numel() for t in model.state_dict().values()) == expected_params(cfg)


def test_output_embedding_is_tied_and_there_are_no_biases():
    cfg = GPTConfig(n_embd=64)
    state = GPT(cfg).state_dict()
    vocab_sized = [n for n, t in state.items() if t.shape[0] == cfg.vocab_size]
    assert vocab_sized == ["tok_emb.weight"]
    assert not any(n.endswith("bias") for n in state)


def test_one_forward_over_k_plus_1_positions_equals_step_by_step():
    torch.manual_seed(3)
    model = GPT(GPTConfig(n_embd=64)).eval()
    for k in (1, 4, 8):
        seq = torch.randint(0, 2048, (1, 10 + k + 1))
        with torch.no_grad():
            together = torch.softmax(model(seq), -1)[0]
            for t in range(10, seq.shape[1]):  # what one-token-at-a-time decoding computes at each step
                alone = torch.softmax(model(seq[:, : t + 1]), -1)[0, -1]
                assert torch.allclose(together[t], alone, atol=1e-5, rtol=0)


def test_context_overflow_is_refused():
    model = GPT(GPTConfig(n_embd=64, block_size=16))
    try:
        model(torch.zeros(1, 17, dtype=torch.long))
    except ValueError as e:
        assert "context of 16" in str(e)
    else:
        raise AssertionError("a sequence longer than the context must be refused")


def test_kv_cache_gives_the_same_distributions_and_rolls_back():
    from generator.models.model import KVCache
    torch.manual_seed(4)
    model = GPT(GPTConfig(n_embd=64, n_head=4)).eval()
    seq = torch.randint(0, 2048, (1, 40))
    with torch.no_grad():
        full = torch.softmax(model(seq), -1)[0]
        cache = KVCache(model.cfg.n_layer)
        parts = [torch.softmax(model(seq[:, a:b], cache), -1)[0] for a, b in ((0, 7), (7, 8), (8, 20), (20, 40))]
        assert torch.allclose(torch.cat(parts), full, atol=1e-5, rtol=0)
        cache.truncate(25)  # forget positions 25…39, then feed other tokens there
        other = torch.randint(0, 2048, (1, 5))
        again = torch.softmax(model(other, cache), -1)[0]
        fresh = torch.softmax(model(torch.cat([seq[:, :25], other], 1)), -1)[0, 25:]
        assert len(cache) == 30 and torch.allclose(again, fresh, atol=1e-5, rtol=0)


def test_the_cached_single_token_step_gives_the_module_paths_logits_bit_for_bit():
    """Decoding feeds one token at a time after a cache through a lean path (no module calls, no mask); it must
    compute exactly what the full module path computes (here forced by train mode with dropout 0)."""
    from generator.models.model import KVCache
    torch.manual_seed(5)
    model = GPT(GPTConfig(n_embd=64, n_head=4)).double()
    seq = torch.randint(0, 2048, (1, 30))
    def one_at_a_time():
        cache = KVCache(model.cfg.n_layer)
        model(seq[:, :6], cache)
        return [model(seq[:, t:t + 1], cache) for t in range(6, 30)]
    with torch.no_grad():
        lean = one_at_a_time()
        model.train()
        modules = one_at_a_time()
        assert all(torch.equal(a, b) for a, b in zip(lean, modules)) and len(lean) == 24
        model.eval()
        model.tok_emb.weight.mul_(0.5)  # a change of the weights shows in the next step (no stale copies)
        cache = KVCache(model.cfg.n_layer)
        model(seq[:, :6], cache)
        assert not torch.equal(model(seq[:, 6:7], cache), lean[0])


def test_ragged_rows_of_different_lengths_equal_each_sequence_alone():
    """forward_ragged: each row's new tokens after its own cached prefix, ragged (without padding), attend to their
    row only; rolling a row back (lowering its length) makes it forget the positions after, as a fresh cache
    would; finished rows leave with keep()."""
    from generator.models.model import RowsKVCache
    torch.manual_seed(6)
    model = GPT(GPTConfig(n_embd=64, n_head=4)).double().eval()
    seqs = [torch.randint(0, 2048, (n,)).tolist() for n in (9, 3, 14)]
    alone = [torch.softmax(model(torch.tensor([s])), -1)[0] for s in seqs]
    cache = RowsKVCache(model.cfg.n_layer, len(seqs), model.cfg.block_size)

    def feed(feeds):
        """Every row's new tokens in one ragged forward (without padding); the outputs of all of them, row after
        row."""
        starts = cache.lengths.tolist()
        idx = [t for f in feeds for t in f]
        row = [b for b, f in enumerate(feeds) for _ in f]
        pos = [n + i for f, n in zip(feeds, starts) for i in range(len(f))]
        logits = model.forward_ragged(torch.tensor(idx), torch.tensor(row), torch.tensor(pos), cache,
                                      torch.arange(len(idx)))
        cache.lengths += torch.tensor([len(f) for f in feeds])
        return torch.softmax(logits, -1)

    with torch.no_grad():
        for cut in ((4, 1, 6), (7, 3, 7), (9, 3, 14)):  # feeds of different widths, one row idle (fed nothing)
            starts = cache.lengths.tolist()
            feeds = [s[n:c] for s, n, c in zip(seqs, starts, cut)]
            out, at = feed(feeds), 0
            for b, (f, n) in enumerate(zip(feeds, starts)):
                assert torch.allclose(out[at:at + len(f)], alone[b][n:n + len(f)], atol=1e-12, rtol=0)
                at += len(f)
        cache.lengths[2] = 5  # row 2 rolls back to 5 positions, then takes other tokens there
        other = [7, 8, 9]
        out = feed([[], [], other])
        fresh = torch.softmax(model(torch.tensor([seqs[2][:5] + other])), -1)[0, 5:]
        assert torch.allclose(out, fresh, atol=1e-12, rtol=0)
        cache.keep([2, 0])  # finished rows leave the batch
        assert cache.lengths.tolist() == [8, 9] and cache.kv[0][0].shape[0] == 2
