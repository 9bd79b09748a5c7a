"""Speculative runs with real (and small random) models: exact, counted right, within the context."""

import pytest
import torch

from generator.errors import SettingError
from generator.models.model import GPTConfig
from generator.data.speculative import distributions, draw, greedy_decode, speculative_run


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
        reference = greedy_decode(models["ref_baseline"], ids, 24)
        for draft in ("c1_dim64", "c1_dim128"):
            for k in (2, 4):
                res = speculative_run(models["ref_baseline"], models[draft], ids, 24, k, greedy=True)
                assert res["tokens"][:24] == reference, (text, draft, k)


def test_rounds_yield_1_to_k_plus_1_and_forwards_are_counted(family):
    tok, models = family
    ids = tok.encode(PROMPTS[0]).ids
    for k in (1, 3, 6):
        res = speculative_run(models["ref_baseline"], models["c1_dim64"], ids, 40, k, seed=5)
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
    res = speculative_run(models["ref_baseline"], models["c1_dim128"], ids, 30, 4, seed=2, keep_dists=True)
    context = list(ids)
    for r in res["rounds"]:
        for i, x in enumerate(r["draft"][: len(r["u"])] + ([] if r["kind"] == "resampled" else [None])):
            alone = distributions(models["ref_baseline"], context + r["draft"][:i])[-1]  # one token at a time
            assert torch.allclose(r["p_dists"][i], alone, atol=1e-5, rtol=0)
            q_alone = distributions(models["c1_dim128"], context + r["draft"][:i])[-1]
            if i < len(r["q_dists"]):
                assert torch.allclose(r["q_dists"][i], q_alone, atol=1e-5, rtol=0)
        context += r["draft"][: r["accepted"]] + [r["token"]]
    assert context[len(ids):] == res["tokens"]


def test_the_context_must_hold_prompt_new_tokens_and_k(family):
    tok, models = family
    ids = tok.encode(PROMPTS[0]).ids
    block = models["ref_baseline"].cfg.block_size
    with pytest.raises(SettingError, match="more than the context"):
        speculative_run(models["ref_baseline"], models["c1_dim64"], ids, block - len(ids) - 3, 4)
    with pytest.raises(SettingError, match="at least one token"):
        speculative_run(models["ref_baseline"], models["c1_dim64"], ids, 8, 0)


def test_draw_never_lands_on_a_zero_probability_token():
    probs = torch.tensor([0.0, 0.5, 0.0, 0.5, 0.0], dtype=torch.float64)
    for u in (0.0, 1e-18, 0.25, 0.5, 0.5 - 1e-17, 0.999999999, 1 - 2 ** -53):
        assert draw(probs, u) in (1, 3)


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
