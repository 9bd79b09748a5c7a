"""The accounting's batched runs (generator/data/batched.py) against the one-run loop (speculative_run).

The batched forwards may round differently in the last bits of float64; a decision flips only if a uniform
lands within ~1e-15 of a threshold, so the runs must come out identical. If one ever does not, the test says
how many runs diverged and where.
"""
import pytest

from generator.data.batched import mixed_runs, speculative_runs
from generator.data.runs import accounting_counts
from generator.shared_sampler import sampler
from generator.data.speculative import speculative_run
from generator.models.family import DRAFTS, TARGET

PROMPTS = ("孔明曰：「", "卻說曹操", "次日，")
SEEDS = (1, 2)
N_NEW = 24


@pytest.fixture(scope="module")
def family():
    from generator.models.checkpoint import load_family
    from tests.conftest import MODELS
    tok, models = load_family(MODELS)
    return tok, {name: m.double() for name, m in models.items()}


def decisions(res):
    return [(r["draft"], r["draw_u"], r["u"], r["accepted"], r["kind"], r["final_u"], r["token"])
            for r in res["rounds"]]


@pytest.mark.slow("the real models run batched and one by one")
@pytest.mark.parametrize("draft, k", [(DRAFTS[0], 1), (DRAFTS[0], 4), (DRAFTS[1], 3), (DRAFTS[1], 8)])
def test_batched_runs_give_the_unbatched_runs_token_for_token(family, draft, k):
    tok, models = family
    jobs = [(tok.encode(text).ids, seed) for text in PROMPTS for seed in SEEDS]
    together = speculative_runs(models[TARGET], models[draft], jobs, N_NEW, k)
    diverged = []
    for (ids, seed), many in zip(jobs, together):
        one = speculative_run(models[TARGET], models[draft], ids, N_NEW, k, seed=seed)
        if one["tokens"] != many["tokens"] or decisions(one) != decisions(many):
            at = next((i for i, (a, b) in enumerate(zip(one["tokens"], many["tokens"])) if a != b), None)
            diverged.append(f"prompt {ids}, seed {seed}: first different token at {at}")
            continue
        assert (one["target_forwards"], one["draft_forwards"]) == (many["target_forwards"], many["draft_forwards"])
        for a, b in zip(one["rounds"], many["rounds"]):  # the probabilities agree to float64 rounding
            for x, y in zip(a["p"] + a["q"] + a["accept_prob"], b["p"] + b["q"] + b["accept_prob"]):
                assert x == pytest.approx(y, rel=1e-9, abs=1e-300)
    assert not diverged, f"{len(diverged)} of {len(jobs)} batched runs diverged from speculative_run:\n" + \
        "\n".join(diverged)


@pytest.mark.slow("the real models run batched and one by one")
def test_accounting_counts_per_prompt_are_the_unbatched_runs_counts(family):
    tok, models = family
    prompts = {text: tok.encode(text).ids for text in PROMPTS}
    setting = {"seeds": SEEDS, "n_new": N_NEW, "ks": (2, 5)}
    counts = accounting_counts(models, prompts, list(prompts)[:2], setting)
    assert sorted(counts) == sorted((d, k, t) for d in DRAFTS for k in (2, 5)
                                    for t in list(prompts)[:2])
    for (draft, k, text), got in counts.items():
        runs = [speculative_run(models[TARGET], models[draft], prompts[text], N_NEW, k, seed=s)
                for s in SEEDS]
        assert got == {
            "tokens": sum(len(r["tokens"]) for r in runs),
            "target_forwards": sum(r["target_forwards"] for r in runs),
            "draft_forwards": sum(r["draft_forwards"] for r in runs),
            "accepted": sum(x["accepted"] for r in runs for x in r["rounds"]),
            "tested": sum(len(x["u"]) for r in runs for x in r["rounds"])}


@pytest.mark.slow("the real models run batched and one by one")
@pytest.mark.parametrize("greedy", [False, True])
def test_rounds_worked_out_one_position_at_a_time_give_the_same_runs(family, greedy):
    """chunk = 1 (what the accounting and the greedy identity use): a round is drafted and scored one position at
    a time and stops at the first rejection. The tokens, forward counts and every decision made are
    speculative_run's; only the drafted tokens after a rejection (never tested) are not drawn."""
    tok, models = family
    drafts = {name: models[name] for name in DRAFTS}
    jobs = [(draft, k, tok.encode(text).ids, seed) for text in PROMPTS for draft in drafts for k in (1, 2, 5, 8)
            for seed in SEEDS[:1]]
    together = mixed_runs(models[TARGET], drafts, jobs, N_NEW, greedy=greedy, chunk=1)
    cut = 0
    for (draft, k, ids, seed), many in zip(jobs, together):
        one = speculative_run(models[TARGET], drafts[draft], ids, N_NEW, k, seed=seed, greedy=greedy)
        assert one["tokens"] == many["tokens"], (draft, k, ids)
        assert (one["target_forwards"], one["draft_forwards"]) == (many["target_forwards"], many["draft_forwards"])
        assert len(one["rounds"]) == len(many["rounds"])
        for a, b in zip(one["rounds"], many["rounds"]):
            drawn = len(b["draft"])
            assert drawn == min(k, len(a["u"]) + (a["kind"] == "bonus")) and drawn <= k
            assert (a["draft"][:drawn], a["draw_u"][:drawn]) == (b["draft"], b["draw_u"])
            assert [a[key] for key in ("u", "accepted", "kind", "final_u", "token")] == \
                [b[key] for key in ("u", "accepted", "kind", "final_u", "token")]
            cut += k - drawn
    assert cut > 0  # the runs did skip drafts that a rejection made moot


def test_every_batched_decision_is_the_samplers(family, monkeypatch):
    """The batched loop decides nothing itself: with the sampler's primitives replaced, its runs follow them."""
    tok, models = family
    jobs = [(tok.encode(text).ids, seed) for text in PROMPTS[:2] for seed in SEEDS]
    monkeypatch.setattr(sampler, "draw", lambda row, u: 0)
    monkeypatch.setattr(sampler, "verify", lambda p_rows, q_rows, drafted, rng: dict(
        p=[], q=[], accept_prob=[], u=[], accepted=len(drafted) - 1, kind="resampled", token=1,
        final_u=rng.random()))
    for res in speculative_runs(models[TARGET], models[DRAFTS[0]], jobs, 7, 3):
        assert res["tokens"] == [0, 0, 1, 0, 0, 1, 0, 0, 1] and all(r["draft"] == [0, 0, 0] for r in res["rounds"])


@pytest.mark.slow("the real models run batched and one by one")
def test_runs_of_every_draft_and_k_in_one_batch_are_the_unbatched_runs(family):
    """mixed_runs: runs of both drafts and of different k advance together (the drafts step by step, the target
    verifying every run's own k + 1 tokens in one ragged forward, without padding), at T = 1 and at T = 0."""
    tok, models = family
    drafts = {name: models[name] for name in DRAFTS}
    jobs = [(draft, k, tok.encode(text).ids, seed) for text in PROMPTS[:2] for draft in drafts for k in (1, 3, 6)
            for seed in SEEDS[:1]]
    for greedy in (False, True):
        together = mixed_runs(models[TARGET], drafts, jobs, N_NEW, greedy=greedy)
        for (draft, k, ids, seed), many in zip(jobs, together):
            one = speculative_run(models[TARGET], drafts[draft], ids, N_NEW, k, seed=seed, greedy=greedy)
            assert one["tokens"] == many["tokens"] and decisions(one) == decisions(many), (draft, k, ids, greedy)
            assert (one["target_forwards"], one["draft_forwards"]) == (many["target_forwards"],
                                                                       many["draft_forwards"])


def test_progress_is_heard_after_every_step_and_ends_at_one(family):
    """mixed_runs(progress=…): the share of the tokens to generate that is done, rising to 1 at the end."""
    tok, models = family
    heard = []
    jobs = [(DRAFTS[0], k, tok.encode(PROMPTS[0]).ids, 1) for k in (1, 4)]
    mixed_runs(models[TARGET], {DRAFTS[0]: models[DRAFTS[0]]}, jobs, 10, chunk=1, progress=heard.append)
    assert heard == sorted(heard) and 0 < heard[0] < 1 and heard[-1] == 1.0
    assert len(heard) >= 10 // 5 + 1  # at least one report per round of the faster run
