"""Tests for widgets/sampler.py, the acceptance sampler of speculative decoding."""

import math
import random

import pytest

from generator.shared_sampler import sampler

Pair, SamplerError = sampler.Pair, sampler.SamplerError


# -----------------------------------------------------------------------------
# distributions

def random_dist(rng, size, zero_frac=0.0):
    """Random positive weights (unnormalised), a fraction of them set to zero."""
    w = [rng.random() ** 3 for _ in range(size)]
    for i in range(size):
        if rng.random() < zero_frac:
            w[i] = 0.0
    if not any(w):
        w[rng.randrange(size)] = 1.0
    return w


def zipf_pair(size=2048, seed=0):
    """A peaked, realistic target p (Zipf-like) and a flattened, perturbed draft q."""
    rng = random.Random(seed)
    p = [1.0 / (i + 1) ** 1.1 for i in range(size)]
    q = [v ** 0.7 * math.exp(rng.gauss(0.0, 0.5)) for v in p]
    return Pair(p, q)


def cases():
    """(name, p, q) pairs covering generic, zeros, equal and disjoint supports."""
    out = []
    for size in (2, 5, 50, 2048):
        rng = random.Random(1000 + size)
        for k in range(4 if size < 2048 else 2):
            out.append((f"generic-{size}-{k}", random_dist(rng, size), random_dist(rng, size)))
        out.append((f"q-zeros-{size}", random_dist(rng, size), random_dist(rng, size, 0.4)))
        out.append((f"p-zeros-{size}", random_dist(rng, size, 0.4), random_dist(rng, size)))
        p = random_dist(rng, size)
        out.append((f"equal-{size}", p, list(p)))
        out.append((f"scaled-{size}", p, [2.0 * v for v in p]))
        half = size // 2
        p = [v if i < half else 0.0 for i, v in enumerate(random_dist(rng, size))]
        q = [v if i >= half else 0.0 for i, v in enumerate(random_dist(rng, size))]
        out.append((f"disjoint-{size}", p, q))
    return out


CASES = cases()


# -----------------------------------------------------------------------------
# exactness, by the sampler's own branches

@pytest.mark.parametrize("name,p,q", CASES, ids=[c[0] for c in CASES])
def test_correct_and_naive_output_is_p(name, p, q):
    pair = Pair(p, q)
    for scheme in ("correct", "naive"):
        out = sampler.output_distribution(pair, scheme)
        assert len(out) == len(pair.p)
        assert max(abs(a - b) for a, b in zip(out, pair.p)) < 1e-12, scheme


@pytest.mark.parametrize("name,p,q", CASES, ids=[c[0] for c in CASES])
def test_resample_p_matches_closed_form(name, p, q):
    pair = Pair(p, q)
    out = sampler.output_distribution(pair, "resample_p")
    closed = sampler.resample_p_tv(pair.p, pair.q)
    assert abs(sampler.tv(out, pair.p) - closed) < 1e-12
    if closed > 1e-9:
        assert max(abs(a - b) for a, b in zip(out, pair.p)) > 1e-12
    if name.startswith("generic") or ("zeros" in name and len(p) > 2):
        # p differs from q and alpha < 1: the wrong variant is visibly wrong
        # (it is exact only when q = alpha p on p's support, e.g. p a point mass)
        assert pair.alpha < 1 and closed > 1e-6
    if name.startswith("disjoint"):
        # alpha == 0: every draft is rejected and p is drawn, which happens to be right
        assert pair.alpha == 0 and closed < 1e-12


def test_alpha_and_sum_pq():
    pair = Pair([0.5, 0.5, 0.0], [0.25, 0.25, 0.5])
    assert pair.alpha == pytest.approx(0.5)
    assert pair.sum_pq == pytest.approx(0.25)
    assert sampler.tv(pair.p, pair.q) == pytest.approx(0.5)
    assert sampler.alpha([0.5, 0.5], [0.5, 0.5]) == 1.0
    # resample_p output: min(p,q) + 0.5 p = [0.5, 0.5, 0], which is p itself here
    assert sampler.resample_p_tv(pair.p, pair.q) == pytest.approx(0.0)
    pair = Pair([0.9, 0.1], [0.5, 0.5])
    # output = [0.5, 0.1] + 0.4 * [0.9, 0.1] = [0.86, 0.14]
    assert sampler.resample_p_tv(pair.p, pair.q) == pytest.approx(0.04)


# -----------------------------------------------------------------------------
# edge cases

class FixedRng:
    """Stands in for random.Random, returning the given numbers in turn."""

    def __init__(self, values):
        self.values = list(values)

    def random(self):
        return self.values.pop(0)


def test_zero_q_tokens_never_proposed():
    rng = random.Random(3)
    p = random_dist(rng, 50)
    q = random_dist(rng, 50, 0.5)
    pair = Pair(p, q)
    zeros = {i for i, v in enumerate(pair.q) if v == 0}
    assert zeros
    drafted = set()
    for scheme in sampler.SCHEMES:
        for _ in range(5000):
            drafted.add(sampler.one_round(pair, rng, scheme)["x"])
    assert not drafted & zeros


def test_zero_tokens_never_drawn_at_boundaries():
    # cumulative table over positives is [0.25, 0.5, 1.0] for tokens 1, 3, 4
    pair = Pair([0.0, 0.5, 0.0, 0.5, 0.0], [0.0, 0.25, 0.0, 0.25, 0.5])
    top = 1.0 - 2.0 ** -53
    for u, want in [(0.0, 1), (0.25, 3), (0.5, 4), (0.75, 4), (top, 4)]:
        rec = sampler.one_round(pair, FixedRng([u, 0.0, 0.0]), "correct")
        assert rec["x"] == want
    # rejection of token 4 (p = 0): residual is p - q = [0, .25, 0, .25, 0]
    for u, want in [(0.0, 1), (0.5, 3), (top, 3)]:
        rec = sampler.one_round(pair, FixedRng([top, 0.0, u]), "correct")
        assert not rec["accepted"] and rec["resampled"] == want
    # and from p, under resample_p and naive
    for u, want in [(0.0, 1), (0.5, 3), (top, 3)]:
        assert sampler.one_round(pair, FixedRng([top, 0.0, u]), "resample_p")["token"] == want
        assert sampler.one_round(pair, FixedRng([0.0, u]), "naive")["y"] == want


def test_accept_test_is_strict():
    # P(u < a) = a for u uniform on [0, 1): u == a must reject
    pair = Pair([0.25, 0.75], [0.5, 0.5])
    for scheme in ("correct", "resample_p"):
        rec = sampler.one_round(pair, FixedRng([0.0, 0.5, 0.0]), scheme)
        assert rec["x"] == 0 and rec["accept_prob"] == 0.5 and not rec["accepted"]
        rec = sampler.one_round(pair, FixedRng([0.0, 0.4999]), scheme)
        assert rec["accepted"] and rec["token"] == 0


def test_zero_p_tokens_never_output():
    rng = random.Random(4)
    pair = Pair(random_dist(rng, 50, 0.5), random_dist(rng, 50))
    for scheme in sampler.SCHEMES:
        counts = sampler.run(pair, 20_000, 5, scheme)["counts"]
        assert all(c == 0 for c, pv in zip(counts, pair.p) if pv == 0), scheme


@pytest.mark.parametrize("scale", [1.0, 2.0, 0.999999])
def test_p_equals_q_always_accepts(scale):
    rng = random.Random(6)
    p = random_dist(rng, 200)
    pair = Pair(p, [scale * v for v in p])
    assert pair.alpha == pytest.approx(1.0, abs=1e-14)
    assert pair.r_table is None
    for _ in range(3000):
        rec = sampler.one_round(pair, rng, "correct")
        assert rec["accepted"] and rec["resampled"] is None and rec["token"] == rec["x"]
    result = sampler.run(pair, 20_000, 7, "correct")
    assert result["accepted"] == 20_000
    # where rounding made p(x) < q(x), even the largest u must accept
    top = 1.0 - 2.0 ** -53
    for x in [x for x in range(200) if pair.p[x] < pair.q[x]][:20]:
        u_x = math.fsum(pair.q[:x]) + pair.q[x] / 2
        rec = sampler.one_round(pair, FixedRng([u_x, top]), "correct")
        assert rec["x"] == x and rec["accepted"] and rec["accept_prob"] == 1.0


@pytest.mark.parametrize("total", [0.999999, 2.0, 7])
def test_unnormalised_input_is_normalised_once(total):
    w = [0.1, 0.2, 0.3, 0.4]
    dist, s = sampler.check_distribution([total * v for v in w], "p")
    assert s == pytest.approx(total)
    assert math.fsum(dist) == pytest.approx(1.0, abs=1e-15)
    assert dist == pytest.approx(w, abs=1e-15)
    pair = Pair([total * v for v in w], w)
    assert pair.p_sum == pytest.approx(total) and pair.q_sum == pytest.approx(1.0)


@pytest.mark.parametrize("bad,words", [
    ([0.5, -0.1, 0.6], ["negative", "[1]"]),
    ([0.5, float("nan"), 0.5], ["NaN"]),
    ([0.5, float("inf"), 0.5], ["infinite"]),
    ([0.0, 0.0, 0.0], ["all zeros"]),
    ([0.5, "x", 0.5], ["not a number"]),
    ("0.5", ["list"]),
    ([1e308, 1e308, 1e308], ["infinity"]),
])
def test_bad_distributions_raise(bad, words):
    good = [1 / 3] * 3
    for name, args in (("p", (bad, good)), ("q", (good, bad))):
        with pytest.raises(SamplerError) as err:
            Pair(*args)
        msg = str(err.value)
        assert msg.startswith(name)
        for word in words:
            assert word in msg


def test_empty_p():
    with pytest.raises(SamplerError, match="^p is empty"):
        Pair([], [])


def test_wrong_length_names_q_and_both_lengths():
    with pytest.raises(SamplerError) as err:
        Pair([0.5, 0.5], [0.2, 0.3, 0.5])
    msg = str(err.value)
    assert msg.startswith("q") and "3" in msg and "2" in msg
    with pytest.raises(SamplerError, match="length"):
        sampler.check_distribution([0.5, 0.5], "p", length=3)


def test_unknown_scheme():
    pair = Pair([0.5, 0.5], [0.5, 0.5])
    with pytest.raises(ValueError):
        sampler.run(pair, 10, 0, "greedy")
    with pytest.raises(ValueError):
        sampler.one_round(pair, random.Random(0), "greedy")


# -----------------------------------------------------------------------------
# statistics, on a realistic 2,048-token pair

def test_statistics_against_direct_sampling():
    pair = zipf_pair()
    n, seed = 200_000, 11
    # noise floor: direct sampling from p with the same n (random.choices, independent code)
    rng = random.Random(seed)
    direct = [0] * len(pair.p)
    for t in rng.choices(range(len(pair.p)), weights=pair.p, k=n):
        direct[t] += 1
    floor = sampler.tv([c / n for c in direct], pair.p)
    assert 0.005 < floor < 0.05

    correct = sampler.summary(sampler.run(pair, n, seed, "correct"), pair)
    assert correct["tv"] < 1.5 * floor
    assert correct["acceptance_rate"] == pytest.approx(pair.alpha, abs=0.005)

    wrong = sampler.summary(sampler.run(pair, n, seed, "resample_p"), pair)
    closed = sampler.resample_p_tv(pair.p, pair.q)
    assert closed > 4 * floor
    assert wrong["tv"] > 4 * floor
    assert abs(wrong["tv"] - closed) < 2 * floor
    assert wrong["acceptance_rate"] == pytest.approx(pair.alpha, abs=0.005)

    naive = sampler.summary(sampler.run(pair, n, seed, "naive"), pair)
    assert naive["tv"] < 1.5 * floor
    assert naive["acceptance_rate"] == pytest.approx(pair.sum_pq, abs=0.002)


# -----------------------------------------------------------------------------
# determinism

@pytest.mark.parametrize("scheme", sampler.SCHEMES)
def test_determinism_and_chunking(scheme):
    pair = zipf_pair(size=300, seed=2)
    a = sampler.run(pair, 25_000, 42, scheme)
    b = sampler.run(pair, 25_000, 42, scheme)
    assert a == b
    assert a["n"] == 25_000 and sum(a["counts"]) == 25_000
    assert sampler.run(pair, 25_000, 43, scheme)["counts"] != a["counts"]
    steps = list(sampler.run_chunks(pair, 25_000, 42, scheme, chunk=7_000))
    assert [s["n"] for s in steps] == [7_000, 14_000, 21_000, 25_000]
    assert steps[-1] == a
    assert sampler.run(pair, 25_000, 42, scheme, chunk=1_234) == a


@pytest.mark.parametrize("scheme", sampler.SCHEMES)
def test_run_one_matches_one_round(scheme):
    pair = zipf_pair(size=300, seed=3)
    for seed in range(200):
        rec = sampler.one_round(pair, random.Random(seed), scheme)
        res = sampler.run(pair, 1, seed, scheme)
        assert res["counts"][rec["token"]] == 1
        assert res["accepted"] == int(rec["accepted"])


@pytest.mark.parametrize("scheme", sampler.SCHEMES)
def test_rounds_and_run_share_the_stream(scheme):
    # n rounds of one_round on one Random == run(n) with the same seed
    pair = zipf_pair(size=300, seed=4)
    rng = random.Random(9)
    counts, accepted = [0] * 300, 0
    for _ in range(2000):
        rec = sampler.one_round(pair, rng, scheme)
        counts[rec["token"]] += 1
        accepted += rec["accepted"]
    res = sampler.run(pair, 2000, 9, scheme)
    assert res["counts"] == counts and res["accepted"] == accepted


# -----------------------------------------------------------------------------
# every record is self-consistent

@pytest.mark.parametrize("name,p,q", CASES[::3], ids=[c[0] for c in CASES[::3]])
def test_records_self_consistent(name, p, q):
    pair = Pair(p, q)
    rng = random.Random(12)
    for scheme in sampler.SCHEMES:
        for _ in range(300):
            r = sampler.one_round(pair, rng, scheme)
            assert r["scheme"] == scheme
            assert r["p_x"] == pair.p[r["x"]] and r["q_x"] == pair.q[r["x"]] and r["q_x"] > 0
            if scheme == "naive":
                assert r["u"] is None and r["resampled"] is None
                assert r["token"] == r["y"] and r["accepted"] == (r["x"] == r["y"])
                assert r["accept_prob"] == r["p_x"]
                continue
            if pair.r_table is None and scheme == "correct":
                assert r["accept_prob"] == 1.0
            else:
                assert r["accept_prob"] == min(1.0, r["p_x"] / r["q_x"])
            assert r["accepted"] == (r["u"] < r["accept_prob"])
            if r["accepted"]:
                assert r["token"] == r["x"] and r["resampled"] is None
            else:
                assert r["resampled"] is not None and r["token"] == r["resampled"]
                assert pair.p[r["token"]] > 0
                if scheme == "correct":
                    assert pair.p[r["token"]] > pair.q[r["token"]]


def test_direct_sampling_is_the_noise_floor_and_accepts_nothing():
    rng = random.Random(11)
    p = [rng.random() ** 3 for _ in range(50)]
    pair = sampler.Pair(p, list(reversed(p)))
    res = sampler.run(pair, 20_000, 5, "direct")
    assert res["accepted"] == 0 and sum(res["counts"]) == 20_000
    freq = [c / 20_000 for c in res["counts"]]
    assert sampler.tv(freq, pair.p) < 0.05
    again = sampler.run(pair, 20_000, 5, "direct", chunk=999)
    assert again["counts"] == res["counts"]
    with pytest.raises(ValueError):
        sampler.one_round(pair, random.Random(1), "direct")
