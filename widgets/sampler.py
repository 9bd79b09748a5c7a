"""
The acceptance sampler of speculative decoding, on explicit distributions.

p is the target model's next-token distribution, q the draft model's, both given over the full vocabulary. Three
schemes are compared:

    naive       draft x ~ q, target y ~ p; "accepted" iff x == y; output y.
    resample_p  draft x ~ q; accept with min(1, p(x)/q(x)); else draw from p (the wrong variant: its output is not p).
    correct     draft x ~ q; accept with min(1, p(x)/q(x)); else draw from the residual norm(max(0, p - q)). Its output
                is exactly p.

Standard library only: this one file is shared by the offline generator (CPython) and the lesson running in the
browser (Pyodide). It is the only implementation of the rule: the generator's real-model runs call, row by row (lists
of floats, not necessarily normalised), accept_probability, accepts, draw, residual, draw_residual, draw_bonus and the
T = 0 forms greedy_pick, greedy_accepts, through verify, one round's decisions. A draw searches a row's running sums,
formed here or given (`sums`: E6's, from widgets/e6/row_sums.mjs, equal bit for bit: tests/widgets/test_row_sums.py);
every comparison, the search and the zero-weight tail are made here, on one code path.
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
    """Validate dist and normalise it once. Returns (normalised list, original sum). Distributions that do not sum
    exactly to 1 (e.g. after rounding) are divided by their sum once; the sum is returned so a caller can report it."""
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


def overlap(p, q):
    """min(p, q) token by token: the mass a drafted token is kept with (it sums to alpha).
    >>> overlap([0.5, 0.25, 0.25], [0.25, 0.5, 0.25])
    [0.25, 0.25, 0.25]
    """
    return list(map(min, p, q))


def alpha(p, q):
    """Acceptance rate of the min rule: sum of min(p, q), clamped to <= 1."""
    return min(1.0, math.fsum(overlap(p, q)))


def sum_pq(p, q):
    """Acceptance rate of the naive scheme: P(x == y) = sum of p * q."""
    return math.fsum(a * b for a, b in zip(p, q))


def tv(a, b):
    """Total variation distance: 1/2 sum |a - b|."""
    return 0.5 * math.fsum(abs(x - y) for x, y in zip(a, b))


def resample_p_tv(p, q):
    """Closed-form TV(output of resample_p, p). The output is P(x) = min(p, q)(x) + (1 - alpha) p(x), so
    P - p = min(p, q) - alpha p.
    """
    a = alpha(p, q)
    return 0.5 * math.fsum(abs(min(pv, qv) - a * pv) for pv, qv in zip(p, q))


# the rule: one definition of min(1, p/q), of the residual and of the draw
def accept_probability(p_x, q_x):
    """Probability that a drafted token x is kept: min(1, p(x)/q(x)).
    >>> accept_probability(0.2, 0.5)
    0.4
    >>> accept_probability(0.5, 0.2)  # p(x) >= q(x): always kept
    1.0
    """
    return 1.0 if p_x >= q_x else p_x / q_x


def accepts(p_x, q_x, u):
    """The accept test with the uniform u in [0, 1): strict, P(u < a) = a.
    >>> accepts(0.2, 0.5, 0.39)
    True
    >>> accepts(0.2, 0.5, 0.4)  # u equal to the probability rejects
    False
    """
    return _accept_test(p_x, q_x, u)[1]


def _accept_test(p_x, q_x, u):  # the test with the probability it used (verify records it)
    return (a := accept_probability(p_x, q_x)), u < a


def residual_weight(p_x, q_x):
    """One token's residual weight, max(0, p(x) - q(x)): the one definition (residual's example shows it)."""
    return p_x - q_x if p_x > q_x else 0.0


def residual(p, q):
    """The residual weights max(0, p - q), token by token (draw normalises).
    >>> residual([0.5, 0.25, 0.25], [0.25, 0.5, 0.25])
    [0.25, 0.0, 0.0]
    """
    return list(map(residual_weight, p, q))


def _table(weights, sums=None, weight=None):
    """Sampling table (running sums, total, weight(i)) of weights, None without a positive weight: the sums formed
    here (accumulate, in order) or given, one per weight; weight(i) is weights[i] unless given (the residual's)."""
    if sums is None:
        sums = list(accumulate(weights))
    elif len(sums) != len(weights):
        raise SamplerError(f"累计和有 {len(sums)} 项而权重有 {len(weights)} 项：须一项一和，请按同一行重新累计")
    return (sums, sums[-1], weight or weights.__getitem__) if len(sums) and sums[-1] > 0 else None


def _draw(table, u):
    """Token drawn from table with the uniform u in [0, 1): the first whose running sum exceeds u * total (its sum rose:
    its weight is positive). If u * total rounds up to the total (a subnormal total), none: the last token of positive
    weight, found from the end, its weight absorbed or not (as if the sums were infinite from that token on)."""
    cum, total, weight = table
    token = bisect_right(cum, u * total)
    if token == len(cum):
        token -= 1
        while not weight(token) > 0:
            token -= 1
    return token


def draw(weights, u, sums=None):
    """Inverse-CDF draw with the uniform u in [0, 1): the first token whose cumulative weight exceeds u * total (weights
    need not sum to 1); never a zero-weight token, even when u * total rounds up to the total. sums: given sums.
    >>> draw([0.0, 0.5, 0.0, 0.5], 0.25)
    1
    >>> draw([0.0, 0.5, 0.0, 0.5], 0.5)
    3
    >>> draw([0.0, 0.5, 0.0, 0.5, 0.0], 1 - 2 ** -53)
    3
    >>> draw([2, 6], 0.3)  # cumulative [2, 8]; 0.3 * 8 = 2.4 lies past 2
    1
    """
    table = _table(weights, sums)
    if table is None:
        raise SamplerError("the weights have no positive entry: there is nothing to draw")
    return _draw(table, u)


def draw_residual(p_row, q_row, u, sums=None):
    """The token drawn after a rejection: from norm(max(0, p - q)), with u (sums: residual(p_row, q_row)'s).
    >>> draw_residual([0.5, 0.25, 0.25], [0.25, 0.5, 0.25], 0.9)
    0
    >>> draw_residual([0.1, 0.6, 0.3], [0.2, 0.2, 0.6], 0.5)  # residual [0, 0.4, 0]
    1
    """
    table = (_table(residual(p_row, q_row)) if sums is None else
             _table(p_row, sums, lambda i: residual_weight(p_row[i], q_row[i])))
    if table is None:
        raise SamplerError("p <= q at every token: the residual is empty, so no draft can be rejected")
    return _draw(table, u)


def draw_bonus(p_row, u, sums=None):
    """The bonus token after all k drafts were kept: a draw from p, with u (sums: p_row's).
    >>> draw_bonus([0.25, 0.25, 0.5], 0.4)
    1
    """
    return draw(p_row, u, sums)


def greedy_pick(row):
    """Temperature 0: the token of highest probability, the lowest id on ties.
    >>> greedy_pick([0.1, 0.4, 0.4, 0.1])
    1
    """
    return row.index(max(row))


def greedy_accepts(p_row, x):
    """Temperature 0: x is kept iff it is the target's own greedy pick.
    >>> greedy_accepts([0.1, 0.4, 0.4, 0.1], 1), greedy_accepts([0.1, 0.4, 0.4, 0.1], 2)
    (True, False)
    """
    return _greedy_test(p_row, x)[1]


def _greedy_test(p_row, x):  # the test with the pick it used (a rejection's final token)
    return (pick := greedy_pick(p_row)), x == pick


def _table_probs(table, size):
    """The distribution a table samples from, as a list of probabilities."""
    out = [0.0] * size
    if table is not None:  # each token its sum's rise; the last possible token (u = 1: past every sum) the rest
        cum, total, _ = table
        last = _draw(table, 1.0)
        out[:last + 1] = [(c - prev) / total for c, prev in zip(cum[:last] + [total], [0.0] + cum[:last])]
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
        rest = residual(self.p, self.q)
        self.residual_mass = math.fsum(rest)
        # p == q up to rounding: no residual, and the correct scheme always accepts (min(1, p/q) = 1)
        self.r_table = _table(rest) if self.residual_mass > RESIDUAL_EPS else None
        min_rule = list(map(accept_probability, self.p, self.q))
        self.accept = {"naive": self.p,  # P(y == x | x) = p(x)
                       "resample_p": min_rule, "correct": min_rule if self.r_table else [1.0] * len(self.p)}


def reject_table(pair, scheme):
    """The table the output is drawn from after a rejection (min-rule schemes)."""
    return pair.r_table if scheme == "correct" else pair.p_table


def _check_scheme(scheme, allowed=SCHEMES):
    if scheme not in allowed:
        raise ValueError(f"unknown scheme {scheme!r}, expected one of {allowed}")


# sampling. Random stream, a fixed order per round (one_round and run share it): naive: random() for x, then for y.
#   resample_p/correct: random() for x, for u, and for the resampled token only on rejection. direct (run only):
#   random() for the token. A real-model round of k drafts (the generator's loop, then verify): random() for each
#   drafted token in turn (a draw from that position's q), then for each accept test up to the first rejection, then
#   one for the final token (from the residual after a rejection, else the bonus).

def one_round(pair, rng, scheme):
    """One round with everything it used, as a dict."""
    _check_scheme(scheme)
    x = _draw(pair.q_table, rng.random())
    rec = dict(scheme=scheme, x=x, p_x=pair.p[x], q_x=pair.q[x],
               accept_prob=pair.accept[scheme][x], u=None, y=None, resampled=None)
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


def verify(p_rows, q_rows, drafted, rng=None, sums=None):
    """The decisions of one real-model round (Leviathan et al. 2022, Algorithm 1) from the target's k + 1 rows (its one
    verifying forward), the draft's k rows and the k drafted tokens, with every number used. T = 1 (rng given): keep
    token i while accepts(p_i(x_i), q_i(x_i), u_i); the final token comes from the residual at the first rejection,
    else the bonus from p_{k+1}. T = 0 (rng None): greedy_accepts, and the final token is the target's greedy_pick.
    sums(i) (T = 1, optional): the final draw's running sums, asked for once, at the position drawn at (residual(p_i,
    q_i)'s, or p_{k+1}'s for the bonus); None: formed here.
    >>> rec = verify([[0.5, 0.5], [0.9, 0.1]], [[0.25, 0.75]], [1], FixedStream([0.7, 0.1]))
    >>> rec["accept_prob"], rec["accepted"], rec["kind"], rec["token"]
    ([0.6666666666666666], 0, 'resampled', 0)
    >>> verify([[0.5, 0.5], [0.9, 0.1]], [[0.25, 0.75]], [1], FixedStream([0.5, 0.95]))["token"]
    1
    >>> rec = verify([[0.5, 0.3, 0.2], [0.1, 0.6, 0.3]], [[0.7, 0.2, 0.1]], [0])
    >>> rec["accepted"], rec["kind"], rec["token"], rec["u"]
    (1, 'bonus', 1, [None])
    """
    greedy = rng is None
    ps, qs, us, probs = [], [], [], []
    rec = dict(p=ps, q=qs, accept_prob=probs, u=us, accepted=0, final_u=None)
    for i, x in enumerate(drafted):  # each row read when its position is reached (as generator/data/batched.py gives)
        p_row, q_row = p_rows[i], q_rows[i]
        ps.append(p_row[x])
        qs.append(q_row[x])
        us.append(u := None if greedy else rng.random())
        # the test with what it used: T = 0 the target's pick (a rejection's final token), T = 1 min(1, p/q)
        used, kept = _greedy_test(p_row, x) if greedy else _accept_test(ps[-1], qs[-1], u)
        probs.append(None if greedy else used)
        if not kept:
            break
        rec["accepted"] = i + 1
    i = rec["accepted"]  # the final token's position: the first rejection, else k (the bonus, from p_{k+1})
    if i == len(drafted):
        p_row, q_row, used = p_rows[i], None, greedy_pick(p_rows[i]) if greedy else None
    rec["kind"] = "resampled" if q_row else "bonus"
    if greedy:
        rec["token"] = used
    else:  # the final draw, with the next uniform, on sums(i)
        u = rec["final_u"] = rng.random()
        row_sums = None if sums is None else sums(i)
        rec["token"] = draw_residual(p_row, q_row, u, row_sums) if q_row else draw_bonus(p_row, u, row_sums)
    return rec


class FixedStream:
    """Stands in for random.Random in examples and tests: random() returns the given numbers in turn."""
    def __init__(self, values):
        self.random = iter(values).__next__


def output_distribution(pair, scheme):
    """Exact output distribution, by enumerating the sampler's own branches: each draft x (prob q(x)) is accepted with
    accept_prob, or rejected and the output drawn from reject_table."""
    _check_scheme(scheme)
    size = len(pair.p)
    q = _table_probs(pair.q_table, size)
    if scheme == "naive":  # y ~ p whatever x was
        q_mass = math.fsum(q)
        return [q_mass * v for v in _table_probs(pair.p_table, size)]
    acc = pair.accept[scheme]
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
    return dict(tv=tv(emp, pair.p), acceptance_rate=result["accepted"] / n if n else 0.0, n=n, seed=result["seed"],
                scheme=result["scheme"])
