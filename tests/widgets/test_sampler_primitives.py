"""The primitives of widgets/sampler.py that the real-model loop calls, and the schemes built on them."""
import math
import random

import pytest

from generator.shared_sampler import sampler
from tests.widgets.test_sampler import FixedRng, random_dist, zipf_pair

Pair, SamplerError = sampler.Pair, sampler.SamplerError

PRIMITIVES = ("accept_probability", "accepts", "draw", "residual", "draw_residual", "draw_bonus",
              "greedy_pick", "greedy_accepts", "verify")


def test_docstring_examples_run_and_every_primitive_has_one():
    import doctest
    for name in PRIMITIVES:
        assert ">>>" in getattr(sampler, name).__doc__, f"{name} has no worked example"
    result = doctest.testmod(sampler, verbose=False)
    assert result.failed == 0 and result.attempted >= 2 * len(PRIMITIVES)


def test_draw_never_lands_on_a_zero_weight_token():
    weights = [0.0, 0.5, 0.0, 0.5, 0.0]
    top = 1.0 - 2.0 ** -53
    for u in (0.0, 1e-18, 0.25, 0.5 - 1e-17, 0.5, 0.999999999, top):
        assert sampler.draw(weights, u) in (1, 3)
    assert sampler.draw(weights, top) == 3 and sampler.draw(weights, 0.0) == 1
    assert sampler.draw([1.0, 2.0, 0.0, 0.0], top) == 1 and sampler.draw([1e-300, 0.0], top) == 0
    # u = 1 lies outside [0, 1): it stands for u * total rounding up to the total, past every cumulative
    # entry; the table still lands on the last possible token
    assert sampler._draw(sampler._table([1.0, 2.0, 0.0, 0.0]), 1.0) == 1
    assert sampler._draw(sampler._table([0.0, 0.5, 0.0, 0.5, 0.0]), 1.0) == 3
    with pytest.raises(SamplerError, match="nothing to draw"):
        sampler.draw([0.0, 0.0], 0.5)


def test_draw_is_the_first_token_whose_cumulative_weight_exceeds_u_total():
    rng = random.Random(21)
    for _ in range(300):
        weights = random_dist(rng, rng.choice([1, 3, 40]), rng.choice([0.0, 0.5]))
        total = math.fsum(weights)
        u = rng.random()
        running, expected = 0.0, None
        for token, w in enumerate(weights):
            running += w
            if w > 0 and running > u * sum(weights):
                expected = token
                break
        if expected is None:  # u * total rounded up: the last possible token
            expected = max(i for i, w in enumerate(weights) if w > 0)
        assert sampler.draw(weights, u) == expected, (weights, u, total)


def test_residual_draw_and_accept_test_at_the_edges():
    assert sampler.accept_probability(0.3, 0.3) == 1.0 and sampler.accept_probability(0.0, 0.5) == 0.0
    assert not sampler.accepts(0.0, 0.5, 0.0)      # p(x) = 0: always rejected
    assert sampler.accepts(0.5, 0.5, 1 - 2 ** -53)  # p(x) >= q(x): always kept
    assert sampler.residual([0.2, 0.8], [0.2, 0.3]) == [0.0, 0.5]
    assert sampler.draw_residual([0.25, 0.75, 0.0], [0.5, 0.25, 0.25], 0.0) == 1
    with pytest.raises(SamplerError, match="residual is empty"):
        sampler.draw_residual([0.5, 0.5], [0.5, 0.5], 0.3)
    assert sampler.greedy_pick([0.2, 0.4, 0.4]) == 1 and sampler.greedy_pick([3.0]) == 0
    assert sampler.greedy_accepts([0.2, 0.4, 0.4], 1) and not sampler.greedy_accepts([0.2, 0.4, 0.4], 2)


def test_verify_uses_one_uniform_per_test_and_one_for_the_final_draw():
    p_rows = [[0.5, 0.5, 0.0], [0.1, 0.1, 0.8], [0.0, 0.0, 1.0]]
    q_rows = [[0.25, 0.25, 0.5], [0.6, 0.2, 0.2]]
    # token 1 kept (p >= q), token 0 tested with min(1, 0.1/0.6) and rejected, residual [0, 0, 0.6] drawn
    stream = sampler.FixedStream([0.99, 0.5, 0.3, 0.123])
    rec = sampler.verify(p_rows, q_rows, [1, 0], stream)
    assert rec["accepted"] == 1 and rec["kind"] == "resampled" and rec["token"] == 2
    assert rec["u"] == [0.99, 0.5] and rec["final_u"] == 0.3 and stream.random() == 0.123  # nothing more used
    assert rec["accept_prob"] == [1.0, sampler.accept_probability(0.1, 0.6)]
    rec = sampler.verify(p_rows, q_rows, [1, 2], sampler.FixedStream([0.1, 0.2, 0.7]))
    assert rec["accepted"] == 2 and rec["kind"] == "bonus" and rec["token"] == 2  # p_3 is a point mass
    rec = sampler.verify(p_rows, q_rows, [0, 1])  # 0 is the pick on a tie (lowest id); then 2 is
    assert rec["accepted"] == 1 and rec["kind"] == "resampled" and rec["token"] == 2 and rec["u"] == [None, None]


def test_greedy_verify_picks_each_row_it_reads_once(monkeypatch):
    """At T = 0 a rejection's final token is the pick that rejected: one argmax per row read, never two (in E6 each
    costs ~0.1 ms of Python over 2,048 floats)."""
    picked = []
    pick = sampler.greedy_pick
    monkeypatch.setattr(sampler, "greedy_pick", lambda row: picked.append(row) or pick(row))
    p_rows = [[0.1, 0.7, 0.2], [0.5, 0.2, 0.3], [0.2, 0.2, 0.6], [0.3, 0.3, 0.4]]
    q_rows = [[0.3, 0.4, 0.3]] * 3
    rec = sampler.verify(p_rows, q_rows, [1, 2, 2])  # 1 kept; 2 rejected at the second row, whose pick is 0
    assert (rec["accepted"], rec["kind"], rec["token"]) == (1, "resampled", 0)
    assert picked == p_rows[:2]
    picked.clear()
    rec = sampler.verify(p_rows, q_rows, [1, 0, 2])  # all kept: the bonus is p_4's pick
    assert (rec["accepted"], rec["kind"], rec["token"]) == (3, "bonus", 2) and picked == p_rows


def test_pair_and_one_round_are_built_on_the_primitives(monkeypatch):
    pair = zipf_pair(size=300, seed=8)
    assert pair.accept["correct"] == [sampler.accept_probability(a, b) for a, b in zip(pair.p, pair.q)]
    assert pair.residual_mass == math.fsum(sampler.residual(pair.p, pair.q))
    rng = random.Random(17)
    for _ in range(500):
        u_x, u, u_r = rng.random(), rng.random(), rng.random()
        rec = sampler.one_round(pair, FixedRng([u_x, u, u_r]), "correct")
        assert rec["x"] == sampler.draw(pair.q, u_x)
        assert rec["accepted"] == sampler.accepts(pair.p[rec["x"]], pair.q[rec["x"]], u)
        if not rec["accepted"]:
            assert rec["resampled"] == sampler.draw_residual(pair.p, pair.q, u_r)
        wrong = sampler.one_round(pair, FixedRng([u_x, u, u_r]), "resample_p")
        if not wrong["accepted"]:
            assert wrong["resampled"] == sampler.draw_bonus(pair.p, u_r)  # a plain draw from p
    # one definition: replacing a primitive changes the schemes built on it
    monkeypatch.setattr(sampler, "accept_probability", lambda p_x, q_x: 0.25)
    monkeypatch.setattr(sampler, "residual", lambda p, q: [1.0] + [0.0] * (len(p) - 1))
    changed = Pair(pair.p, pair.q)
    assert set(changed.accept["correct"]) == {0.25}
    assert sampler.output_distribution(changed, "correct")[0] == pytest.approx(0.75 + 0.25 * changed.q[0])
