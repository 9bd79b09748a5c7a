"""
The acceptance sampler of speculative decoding, on explicit distributions.

p is the target model's next-token distribution, q the draft model's, both
given over the full vocabulary. Three schemes are compared:

    naive       draft x ~ q, target y ~ p; "accepted" iff x == y; output y.
    resample_p  draft x ~ q; accept with min(1, p(x)/q(x)); else draw from p.
                (the wrong variant: its output is not p)
    correct     draft x ~ q; accept with min(1, p(x)/q(x)); else draw from
                the residual norm(max(0, p - q)). Its output is exactly p.

Standard library only: this one file is shared by the offline generator
(CPython) and the lesson running in the browser (Pyodide).
"""

import math
import random
from bisect import bisect_right
from itertools import accumulate

SCHEMES = ("naive", "resample_p", "correct")
# "direct" is no scheme: it samples p itself, the noise floor a scheme's histogram is compared with
RUNNABLE = SCHEMES + ("direct",)

# a residual mass at or below this is float rounding of p == q: treat it as empty
RESIDUAL_EPS = 1e-14


class SamplerError(ValueError):
    """A distribution given to the sampler is not usable."""


def check_distribution(dist, name, length=None):
    """
    Validate dist and normalise it once. Returns (normalised list, original sum).
    Distributions that do not sum exactly to 1 (e.g. after rounding) are divided
    by their sum once; the sum is returned so a caller can report it.
    """
    if not isinstance(dist, (list, tuple)):
        raise SamplerError(f"{name} must be a list of numbers, got {type(dist).__name__}")
    if length is not None and len(dist) != length:
        raise SamplerError(f"{name} has length {len(dist)}, expected {length} (the length of p)")
    for i, v in enumerate(dist):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise SamplerError(f"{name}[{i}] is not a number: {v!r}")
        if not math.isfinite(v):
            raise SamplerError(f"{name}[{i}] is {v} (NaN and infinite values are not allowed)")
        if v < 0:
            raise SamplerError(f"{name}[{i}] is negative: {v}")
    try:
        total = math.fsum(dist)
    except OverflowError:
        raise SamplerError(f"{name} sums to infinity (values too large)") from None
    if not total > 0:
        raise SamplerError(f"{name} is empty or all zeros (sum {total}); it cannot be normalised")
    if not math.isfinite(total):
        raise SamplerError(f"{name} sums to infinity (values too large)")
    return [v / total for v in dist], total


def alpha(p, q):
    """Acceptance rate of the min rule: sum of min(p, q), clamped to <= 1."""
    return min(1.0, math.fsum(map(min, p, q)))


def sum_pq(p, q):
    """Acceptance rate of the naive scheme: P(x == y) = sum of p * q."""
    return math.fsum(a * b for a, b in zip(p, q))


def tv(a, b):
    """Total variation distance: 1/2 sum |a - b|."""
    return 0.5 * math.fsum(abs(x - y) for x, y in zip(a, b))


def resample_p_tv(p, q):
    """
    Closed-form TV(output of resample_p, p). The output is
    P(x) = min(p, q)(x) + (1 - alpha) p(x), so P - p = min(p, q) - alpha p.
    """
    a = alpha(p, q)
    return 0.5 * math.fsum(abs(min(pv, qv) - a * pv) for pv, qv in zip(p, q))


# -----------------------------------------------------------------------------
# inverse-CDF tables

def _table(weights):
    """
    Sampling table (tokens, cumulative, total) over the positive weights only,
    so no zero-probability token can ever be drawn. tokens has one extra copy
    of its last entry: if u * total rounds up to total, bisect lands there.
    Returns None when there is no positive weight.
    """
    tokens = [i for i, w in enumerate(weights) if w > 0]
    if not tokens:
        return None
    cum = list(accumulate(weights[i] for i in tokens))
    tokens.append(tokens[-1])
    return tokens, cum, cum[-1]


def _draw(table, u):
    """Token drawn from table with the uniform number u in [0, 1)."""
    tokens, cum, total = table
    return tokens[bisect_right(cum, u * total)]


def _table_probs(table, size):
    """The distribution a table samples from, as a list of probabilities."""
    out = [0.0] * size
    if table is None:
        return out
    tokens, cum, total = table
    prev = 0.0
    for k, c in enumerate(cum):
        out[tokens[k]] = (c - prev) / total
        prev = c
    return out


class Pair:
    """A target p and a draft q, validated, normalised once, with all tables."""

    def __init__(self, p, q):
        self.p, self.p_sum = check_distribution(p, "p")
        self.q, self.q_sum = check_distribution(q, "q", length=len(self.p))
        self.alpha = alpha(self.p, self.q)
        self.sum_pq = sum_pq(self.p, self.q)
        self.p_table = _table(self.p)
        self.q_table = _table(self.q)
        residual = [max(0.0, a - b) for a, b in zip(self.p, self.q)]
        self.residual_mass = math.fsum(residual)
        # p == q up to rounding: no residual, and the correct scheme always accepts
        # (q(x) <= p(x) everywhere means min(1, p/q) = 1)
        self.r_table = _table(residual) if self.residual_mass > RESIDUAL_EPS else None
        min_rule = [1.0 if a >= b else a / b for a, b in zip(self.p, self.q)]
        self.accept = {
            "naive": self.p,  # P(y == x | x) = p(x)
            "resample_p": min_rule,
            "correct": min_rule if self.r_table else [1.0] * len(self.p),
        }


# the two definitions shared by one_round, run and output_distribution

def accept_prob(pair, scheme, x):
    """Probability that the drafted token x is accepted under scheme."""
    return pair.accept[scheme][x]


def reject_table(pair, scheme):
    """The table the output is drawn from after a rejection (min-rule schemes)."""
    return pair.r_table if scheme == "correct" else pair.p_table


def _check_scheme(scheme, allowed=SCHEMES):
    if scheme not in allowed:
        raise ValueError(f"unknown scheme {scheme!r}, expected one of {allowed}")


# -----------------------------------------------------------------------------
# sampling
# Random stream, a fixed order per round (shared by one_round and run):
#   naive:              random() for x, random() for y.
#   resample_p/correct: random() for x, random() for u, and one more random()
#                       for the resampled token only on rejection.
#   direct (run only):  random() for the token drawn from p.

def one_round(pair, rng, scheme):
    """One round with everything it used, as a dict."""
    _check_scheme(scheme)
    x = _draw(pair.q_table, rng.random())
    rec = dict(scheme=scheme, x=x, p_x=pair.p[x], q_x=pair.q[x],
               accept_prob=accept_prob(pair, scheme, x), u=None, y=None, resampled=None)
    if scheme == "naive":
        y = _draw(pair.p_table, rng.random())
        rec.update(y=y, accepted=(x == y), token=y)
        return rec
    u = rng.random()
    rec.update(u=u, accepted=(u < rec["accept_prob"]))
    if rec["accepted"]:
        rec["token"] = x
    else:
        rec["resampled"] = rec["token"] = _draw(reject_table(pair, scheme), rng.random())
    return rec


def output_distribution(pair, scheme):
    """
    Exact output distribution, by enumerating the sampler's own branches: each
    draft x (prob q(x)) is accepted with accept_prob, or rejected and the
    output drawn from reject_table.
    """
    _check_scheme(scheme)
    size = len(pair.p)
    q = _table_probs(pair.q_table, size)
    if scheme == "naive":  # y ~ p whatever x was
        q_mass = math.fsum(q)
        return [q_mass * v for v in _table_probs(pair.p_table, size)]
    acc = [accept_prob(pair, scheme, x) for x in range(size)]
    out = [qx * a for qx, a in zip(q, acc)]
    reject_mass = math.fsum(qx * (1.0 - a) for qx, a in zip(q, acc) if qx > 0)
    if reject_mass > 0:
        r = _table_probs(reject_table(pair, scheme), size)
        out = [o + reject_mass * rv for o, rv in zip(out, r)]
    return out


def _run_chunk(pair, rng, scheme, n, counts):
    """n rounds into counts (same stream as one_round); returns the accepted count."""
    rand, draw, qt = rng.random, _draw, pair.q_table
    accepted = 0
    if scheme == "direct":  # one random() per round, straight from p
        pt = pair.p_table
        for _ in range(n):
            counts[draw(pt, rand())] += 1
        return 0
    if scheme == "naive":
        pt = pair.p_table
        for _ in range(n):
            x = draw(qt, rand())
            y = draw(pt, rand())
            counts[y] += 1
            accepted += x == y
        return accepted
    acc, rt = pair.accept[scheme], reject_table(pair, scheme)
    for _ in range(n):
        x = draw(qt, rand())
        if rand() < acc[x]:
            counts[x] += 1
            accepted += 1
        else:
            counts[draw(rt, rand())] += 1
    return accepted


def run_chunks(pair, n, seed, scheme, chunk=10_000):
    """Yield the running result after each chunk of rounds; chunking never changes the stream."""
    _check_scheme(scheme, RUNNABLE)
    if chunk < 1:
        raise ValueError(f"chunk must be >= 1, got {chunk}")
    rng = random.Random(seed)
    counts, accepted, done = [0] * len(pair.p), 0, 0
    while True:
        k = min(chunk, n - done)
        accepted += _run_chunk(pair, rng, scheme, k, counts)
        done += k
        yield dict(counts=list(counts), n=done, accepted=accepted, seed=seed, scheme=scheme)
        if done >= n:
            return


def run(pair, n, seed, scheme, chunk=None):
    """n rounds with random.Random(seed): histogram of output tokens and accepted count."""
    for result in run_chunks(pair, n, seed, scheme, chunk or max(n, 1)):
        pass
    return result


def summary(result, pair):
    """TV of the empirical output to p, and the acceptance rate."""
    n = result["n"]
    emp = [c / n for c in result["counts"]] if n else [0.0] * len(pair.p)
    return dict(tv=tv(emp, pair.p), acceptance_rate=result["accepted"] / n if n else 0.0,
                n=n, seed=result["seed"], scheme=result["scheme"])
