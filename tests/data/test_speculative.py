"""Speculative runs with real (and small random) models: exact, counted right, within the context."""

import pytest
import torch

from generator.errors import SettingError
from generator.models.model import GPTConfig
from generator.shared_sampler import sampler
from generator.data.speculative import Decoder, distributions, greedy_decode, speculative_run
from generator.models.family import DRAFTS, TARGET


@pytest.fixture(scope="module")
def family():
    from generator.models.checkpoint import load_family
    from tests.conftest import MODELS
    tok, models = load_family(MODELS)
    return tok, {name: m.double() for name, m in models.items()}


PROMPTS = ("孔明曰：「", "卻說曹操")


def test_greedy_speculative_equals_the_targets_own_greedy(family):
    tok, models = family
    for text in PROMPTS:
        ids = tok.encode(text).ids
        reference = greedy_decode(models[TARGET], ids, 24)
        for draft in DRAFTS:
            for k in (2, 4):
                res = speculative_run(models[TARGET], models[draft], ids, 24, k, greedy=True)
                assert res["tokens"][:24] == reference, (text, draft, k)


def test_the_cached_greedy_reference_is_the_plain_forwards_greedy_text(family):
    """greedy_decode runs the target with its KV cache; a full forward over the whole text at every step (no
    cache at all) picks the same tokens."""
    tok, models = family
    for text in PROMPTS:
        tokens = tok.encode(text).ids
        with torch.inference_mode():
            for _ in range(24):
                tokens.append(sampler.greedy_pick(distributions(models[TARGET], tokens)[-1].tolist()))
        assert greedy_decode(models[TARGET], tok.encode(text).ids, 24) == tokens[-24:], text


def test_rounds_yield_1_to_k_plus_1_and_forwards_are_counted(family):
    tok, models = family
    ids = tok.encode(PROMPTS[0]).ids
    for k in (1, 3, 6):
        res = speculative_run(models[TARGET], models[DRAFTS[0]], ids, 40, k, seed=5)
        rounds = res["rounds"]
        assert all(1 <= r["yield"] <= k + 1 for r in rounds)
        assert all(r["yield"] == r["accepted"] + 1 for r in rounds)
        assert sum(r["yield"] for r in rounds) == len(res["tokens"]) >= 40
        assert res["target_forwards"] == len(rounds)         # one verifying forward per round
        assert res["draft_forwards"] == k * len(rounds)      # one draft forward per proposed token
        for r in rounds:
            assert len(r["draft"]) == k and len(r["draw_u"]) == k
            tested = len(r["u"])
            assert tested == r["accepted"] + (r["kind"] == "resampled")
            assert r["kind"] == ("bonus" if r["accepted"] == k else "resampled")
            for a, u, p, q in zip(r["accept_prob"], r["u"], r["p"], r["q"]):
                assert a == min(1.0, p / q) and 0 <= u < 1
            assert all(u < a for u, a in zip(r["u"][: r["accepted"]], r["accept_prob"]))


def test_verification_forward_equals_step_by_step(family):
    tok, models = family
    ids = tok.encode(PROMPTS[1]).ids
    res = speculative_run(models[TARGET], models[DRAFTS[1]], ids, 30, 4, seed=2, keep_dists=True)
    context = list(ids)
    for r in res["rounds"]:
        for i, x in enumerate(r["draft"][: len(r["u"])] + ([] if r["kind"] == "resampled" else [None])):
            alone = distributions(models[TARGET], context + r["draft"][:i])[-1]  # one token at a time
            assert torch.allclose(r["p_dists"][i], alone, atol=1e-5, rtol=0)
            q_alone = distributions(models[DRAFTS[1]], context + r["draft"][:i])[-1]
            if i < len(r["q_dists"]):
                assert torch.allclose(r["q_dists"][i], q_alone, atol=1e-5, rtol=0)
        context += r["draft"][: r["accepted"]] + [r["token"]]
    assert context[len(ids):] == res["tokens"]


def test_the_context_must_hold_prompt_new_tokens_and_k(family):
    tok, models = family
    ids = tok.encode(PROMPTS[0]).ids
    block = models[TARGET].cfg.block_size
    with pytest.raises(SettingError, match="more than the context"):
        speculative_run(models[TARGET], models[DRAFTS[0]], ids, block - len(ids) - 3, 4)
    with pytest.raises(SettingError, match="at least one token"):
        speculative_run(models[TARGET], models[DRAFTS[0]], ids, 8, 0)


def test_every_decision_is_the_samplers(family, monkeypatch):
    """The loop makes no decision of its own: with the sampler's primitives replaced, its output follows them."""
    tok, models = family
    ids = tok.encode(PROMPTS[0]).ids
    calls = {"draw": 0, "verify": 0}
    real_draw, real_verify = sampler.draw, sampler.verify

    def counting_draw(row, u, sums=None):  # sums: the bonus draw passes verify's (None offline: formed by the sampler)
        calls["draw"] += 1
        assert isinstance(row, list) and isinstance(row[0], float)  # rows reach the sampler as float lists
        return real_draw(row, u, sums)

    def counting_verify(p_rows, q_rows, drafted, rng):
        calls["verify"] += 1
        return real_verify(p_rows, q_rows, drafted, rng)
    monkeypatch.setattr(sampler, "draw", counting_draw)
    monkeypatch.setattr(sampler, "verify", counting_verify)
    res = speculative_run(models[TARGET], models[DRAFTS[0]], ids, 12, 3, seed=4)
    assert calls["verify"] == len(res["rounds"]) and calls["draw"] >= 3 * len(res["rounds"])
    # a sampler that always proposes token 0 and always rejects into token 1 drives the loop
    monkeypatch.setattr(sampler, "draw", lambda row, u: 0)
    monkeypatch.setattr(sampler, "verify", lambda p_rows, q_rows, drafted, rng: dict(
        p=[], q=[], accept_prob=[], u=[], accepted=0, kind="resampled", token=1, final_u=rng.random()))
    res = speculative_run(models[TARGET], models[DRAFTS[0]], ids, 5, 2, seed=4)
    assert res["tokens"] == [1] * 5 and all(r["draft"] == [0, 0] for r in res["rounds"])


def test_decoder_rollback_gives_the_same_distributions_as_a_fresh_decoder(family):
    tok, models = family
    ids = tok.encode(PROMPTS[1]).ids
    model = models[DRAFTS[1]]
    dec = Decoder(model)
    dec.probs(ids + [5, 6, 7], 4)
    dec.rollback(len(ids) + 1)               # 6 and 7 were rejected
    again = dec.probs(ids + [5, 9, 10], 2)   # feeds 9 and 10 only
    assert dec.cached == len(ids) + 3 and dec.forwards == 2
    fresh = distributions(model, ids + [5, 9, 10])[-2:]
    assert torch.allclose(again, fresh, atol=1e-12, rtol=0)


class FixedModel(torch.nn.Module):
    """A stand-in model whose next-token distribution is the same after every prefix."""

    def __init__(self, probs):
        super().__init__()
        self.cfg = GPTConfig(vocab_size=len(probs), block_size=64, n_layer=1, n_head=1, n_embd=4)
        self.logits = torch.tensor(probs, dtype=torch.float64).log()

    def forward(self, idx, cache=None):
        return self.logits.expand(idx.shape[0], idx.shape[1], -1)


def test_first_token_of_speculative_sampling_is_distributed_as_p():
    """The rule (accept min(1, p/q), else the residual) makes the first output token exactly p's draw."""
    p = torch.tensor([0.05, 0.05, 0.6, 0.1, 0.1, 0.1], dtype=torch.float64)
    q = torch.tensor([0.5, 0.3, 0.05, 0.05, 0.05, 0.05], dtype=torch.float64)
    target, draft = FixedModel(p.tolist()), FixedModel(q.tolist())
    n = 4000
    counts = torch.zeros(6, dtype=torch.float64)
    for seed in range(n):
        counts[speculative_run(target, draft, [0], 1, 1, seed=seed)["tokens"][0]] += 1

    def chi2(dist):
        return float(((counts - dist * n) ** 2 / (dist * n)).sum())
    assert chi2(p) < 20.5, f"chi-square {chi2(p):.1f} with 5 degrees of freedom (p < 0.001 beyond 20.5)"
    m = torch.minimum(p, q)
    wrong = m + (1 - m.sum()) * p  # what resample-from-p would give: TV 0.13 from p
    assert chi2(wrong) > 100
