"""sampler.py's draws on running sums formed elsewhere (E6's, by widgets/e6/row_sums.mjs): the same tokens as with the
sums formed here, and as the table the sampler used before (running sums, infinite from the last positive weight on:
REFERENCE below), for every u in [0, 1] and every row of nonnegative finite weights: zeros, the last ones too, weights
the sums absorb, subnormal totals (u * total rounds up to the total), u on a running sum and one ulp beside it. verify
asks for the final draw's sums once, only at T = 1, at the position it draws at, and decides as without them."""
import math
import random
from array import array
from bisect import bisect_right
from itertools import accumulate

import pytest

from generator.shared_sampler import sampler

TOP = 1 - 2 ** -53


def reference_draw(weights, u):
    """The draw before sums could come from elsewhere, verbatim in effect: running sums, infinite from the last
    positive weight on; None without a positive weight."""
    cum = list(accumulate(weights))
    if not cum or not cum[-1] > 0:
        return None
    total, last = cum[-1], len(cum) - 1
    while not weights[last] > 0:
        last -= 1
    cum[last:] = [math.inf] * (len(cum) - last)
    return bisect_right(cum, u * total)


def weights_row(rng, n):
    kind = rng.choice(["plain", "zeros", "tail", "absorbed", "subnormal"])
    if kind == "subnormal":
        return [rng.choice([0.0, 5e-324, 1e-323, 2e-323]) for _ in range(n)]
    row = [rng.random() ** rng.choice([1, 8]) for _ in range(n)]
    if kind in ("zeros", "tail"):
        row = [0.0 if rng.random() < 0.5 else v for v in row]
    if kind == "tail":
        cut = rng.randrange(n)
        row = row[:cut] + [0.0] * (n - cut)
    if kind == "absorbed":
        row = [v if rng.random() < 0.3 else rng.choice([1e-17, 1e-30, 5e-324]) * v for v in row]
    return row


def uniforms_for(rng, row):
    """0, the largest u below 1, 1 itself (u * total at the total), random u, and u on running sums and beside."""
    out = [0.0, TOP, 1.0, 0.5, rng.random(), rng.random()]
    cum = list(accumulate(row))
    if cum and cum[-1] > 0:
        for c in rng.sample(cum, min(5, len(cum))):
            out += [c / cum[-1], math.nextafter(c / cum[-1], 0.0), math.nextafter(c / cum[-1], 1.0)]
    return [u for u in out if 0.0 <= u <= 1.0]


def outcome(f, *args):
    try:
        return f(*args)
    except sampler.SamplerError as err:
        return str(err)


@pytest.mark.parametrize("seed", range(3))
def test_draws_on_given_sums_are_the_draws_on_sums_formed_here_and_the_old_tables(seed):
    rng = random.Random(seed)
    for _ in range(400):
        n = rng.choice([1, 2, 3, 17, 64, 2048])
        row = weights_row(rng, n)
        sums = array("d", accumulate(row))  # as E6 hands them: a float64 array
        q = weights_row(rng, n) if rng.random() < 0.7 else list(row)  # p == q: nothing to draw
        rest_sums = array("d", accumulate(sampler.residual(row, q)))
        for u in uniforms_for(rng, row):
            want = reference_draw(row, u)
            assert outcome(sampler.draw, row, u) == outcome(sampler.draw, row, u, sums), (row[:8], u)
            if want is not None:
                assert sampler.draw(row, u, sums) == want, (row[:8], u)
            residual = outcome(sampler.draw_residual, row, q, u)
            assert residual == outcome(sampler.draw_residual, row, q, u, rest_sums)
            want = reference_draw(sampler.residual(row, q), u)
            assert residual == want if want is not None else "residual is empty" in residual
            assert outcome(sampler.draw_bonus, row, u, sums) == outcome(sampler.draw_bonus, row, u)


def test_the_tail_is_the_last_positive_weight_when_u_total_reaches_the_total():
    # a subnormal total: 0.9 * 2 ulps rounds up to the total, past every running sum; the last positive token wins
    row = [0.0, 5e-324, 0.0, 5e-324, 0.0, 0.0]
    assert not 0.9 * sum(row) < sum(row)
    assert sampler.draw(row, 0.9) == sampler.draw(row, 0.9, list(accumulate(row))) == 3 == reference_draw(row, 0.9)
    assert sampler.draw(row, 0.2) == 1 and sampler.draw(row, 0.3) == 3
    # a weight the sums absorb is still the last possible token, as before
    row = [1.0, 1e-30, 0.0]
    assert sampler.draw(row, 1.0) == reference_draw(row, 1.0) == 1 and sampler.draw(row, TOP) == 0
    p, q = [0.5, 1e-323, 0.0, 1e-323], [0.5, 5e-324, 0.0, 0.0]  # the residual [0, 5e-324, 0, 1e-323]
    assert sampler.draw_residual(p, q, 0.9) == sampler.draw_residual(p, q, 0.9, [0.0, 5e-324, 5e-324, 1.5e-323]) == 3


def test_u_total_at_or_past_the_total_draws_the_last_positive_token():
    """u * total NaN or infinite (u outside [0, 1), an overflowing total): the old table answered len(weights), no
    token; now the last possible token, as for u = 1 (no u of random.Random gets here)."""
    for u in (math.nan, math.inf, 2.5):
        assert sampler.draw([0.5, 0.5, 0.0], u) == 1
    huge = [1e308, 1e308, 0.0]  # the sums overflow: u * total is infinite (or NaN at u = 0)
    assert [sampler.draw(huge, u) for u in (0.0, 0.5)] == [1, 1] and reference_draw(huge, 0.5) == len(huge)


def test_sums_of_another_length_are_refused_in_chinese():
    for call in (lambda: sampler.draw([0.5, 0.5], 0.3, [0.5]),
                 lambda: sampler.draw_residual([0.5, 0.5], [0.25, 0.75], 0.3, [0.25, 0.25, 0.25])):
        with pytest.raises(sampler.SamplerError, match="累计和有 .* 项而权重有 .* 项"):
            call()


def test_residual_is_residual_weight_token_by_token_as_before():
    rng = random.Random(5)
    for _ in range(50):
        p, q = weights_row(rng, 64), weights_row(rng, 64)
        q = [rng.choice([a, b]) for a, b in zip(p, q)]
        assert sampler.residual(p, q) == [a - b if a > b else 0.0 for a, b in zip(p, q)]
    assert math.copysign(1.0, sampler.residual_weight(-0.0, 0.0)) == 1.0


@pytest.mark.parametrize("seed", range(3))
def test_verify_asks_for_the_final_draws_sums_once_where_it_draws(seed):
    rng = random.Random(seed)
    for _ in range(200):
        k, n = rng.choice([1, 2, 4]), rng.choice([3, 16, 64])
        p_rows = [weights_row(rng, n) for _ in range(k + 1)]
        q_rows = [weights_row(rng, n) for _ in range(k)]
        if any(not any(r) for r in p_rows + q_rows):
            continue
        drafted = [sampler.draw(q, rng.random()) for q in q_rows]
        asked = []

        def sums(i):
            asked.append(i)
            return list(accumulate(p_rows[i] if i == k else sampler.residual(p_rows[i], q_rows[i])))
        s = rng.randrange(10 ** 6)
        want = outcome(sampler.verify, p_rows, q_rows, drafted, random.Random(s))
        assert outcome(sampler.verify, p_rows, q_rows, drafted, random.Random(s), sums) == want
        # once, at the first rejection or at k (the bonus); a refused draw (an empty residual) was asked for too
        assert len(asked) == 1 and (isinstance(want, str) or asked == [want["accepted"]]), (asked, want)
        asked.clear()
        assert sampler.verify(p_rows, q_rows, drafted, None, sums) == sampler.verify(p_rows, q_rows, drafted)
        assert asked == []  # T = 0 draws nothing
