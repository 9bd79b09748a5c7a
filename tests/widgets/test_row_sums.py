"""E6's running sums, formed in JavaScript (widgets/e6/row_sums.mjs, run by tests/widgets/node/row_sums.mjs under Node),
are what CPython's sampler.py forms, bit for bit: a row's running sums are itertools.accumulate's, the residual's
weights are sampler.residual's and its running sums accumulate(residual(p, q)). The house rule lets plain arithmetic
that feeds sampler.py be formed elsewhere only so; sampler.py then searches these sums (tests/widgets/test_e6_bridge.py:
the same decisions through the bridge with and without them, and as CPython's).

The rows: softmax rows of 2,048 tokens at temperatures from 0.5 to 300 (exact zeros and subnormals where exp
underflows), some rounded to float32; rows with zeros, the last ones too, all zeros, one weight; tiny weights the sums
absorb (1e-17 of the row and less, 5e-324); -0.0 entries (first, all); sums past the largest double (+inf); rows of
0, 1 and 2 tokens. Residual pairs: softmax rows with p == q at a third of the tokens and one ulp apart at a tenth,
equal rows, rows with zeros, subnormal differences, 0.0 against -0.0. Rows hold finite numbers >= 0: E6 checks each
model's row before any decision (NaN would not compare bit for bit: engines may change a NaN's payload).

Needs `node` (Node 20).
"""
import base64
import math
import random
import struct
from itertools import accumulate

import pytest

from generator.shared_sampler import sampler
from tests.conftest import ROOT
from tests.sitelib import node_job

SCRIPT = ROOT / "tests" / "widgets" / "node" / "row_sums.mjs"
V = 2048


def softmax(rng, size, temperature):
    logits = [rng.gauss(0.0, temperature) for _ in range(size)]
    top = max(logits)
    w = [math.exp(x - top) for x in logits]
    total = sum(w)
    return [v / total for v in w]


def float32(row):
    return list(struct.unpack(f"<{len(row)}f", struct.pack(f"<{len(row)}f", *row)))


def rows_with_zeros(rng, size):
    row = [0.0 if rng.random() < rng.choice([0.3, 0.6, 0.9]) else rng.random() for _ in range(size)]
    tail = rng.randrange(size)  # the last weights zero, from a random place on
    return row[:tail] + [0.0] * (size - tail)


def absorbed(rng, size):
    """Weights of every magnitude, many far below the running sum they are added to."""
    row = [rng.choice([1.0, 0.5, 1e-17, 1e-25, 1e-300, 5e-324, 1e-310, 0.0]) * rng.random() for _ in range(size)]
    row[0] = 1.0
    return row


def rows(rng):
    out = [softmax(rng, V, t) for t in (0.5, 1.0, 2.0, 5.0, 30.0, 300.0) for _ in range(8)]
    out += [float32(softmax(rng, V, t)) for t in (1.0, 3.0, 100.0) for _ in range(4)]
    out += [rows_with_zeros(rng, rng.choice([V, 64, 5])) for _ in range(40)]
    out += [absorbed(rng, rng.choice([V, 64])) for _ in range(30)]
    out += [[0.0] * V, [0.0] * (V - 1) + [1e-9], [1.0] + [0.0] * (V - 1), [-0.0] * 7, [-0.0, 0.5, -0.0, 0.25],
            [-0.0, -0.0, 5e-324], [1e308, 1e308, 1.0, 0.0], [1.7e308] * 3 + [1e-300], [], [0.3], [-0.0], [0.1, 0.2]]
    return out


def near(rng, p):
    """q for p: equal at a third of the tokens, one ulp above or below at a tenth, else another row's weight."""
    other = softmax(rng, len(p), 1.0)
    q = []
    for v, w in zip(p, other):
        r = rng.random()
        q.append(v if r < 0.33 else math.nextafter(v, rng.choice([0.0, 1.0])) if r < 0.43 else w)
    return q


def pairs(rng):
    out = []
    for t in (0.5, 1.0, 3.0, 300.0):
        for _ in range(10):
            p = softmax(rng, V, t)
            out.append((p, near(rng, p)))
    for _ in range(20):
        p = rows_with_zeros(rng, 64)
        out.append((p, [v if rng.random() < 0.5 else rng.choice([0.0, rng.random()]) for v in p]))
    for _ in range(10):
        p = absorbed(rng, 64)
        out.append((p, [rng.choice([v, v * 0.5, 0.0, 5e-324, math.nextafter(v, 0.0)]) for v in p]))
    p = softmax(rng, V, 1.0)
    out += [(p, list(p)), (p, p[:-1] + [p[-1] * 2]), ([0.0, -0.0, 5e-324, 1e-323], [-0.0, 0.0, 0.0, 5e-324]),
            ([1e308, 0.5, 0.0], [0.0, 0.25, 0.0]), ([], []), ([0.5], [0.25])]
    return out


def absorbed_weight(row):
    sums = list(accumulate(row))
    return any(w > 0 and sums[i] == sums[i - 1] for i, w in enumerate(row) if i)


def encode(row):
    return base64.b64encode(struct.pack(f"<{len(row)}d", *row)).decode()


def raw(values):
    return struct.pack(f"<{len(values)}d", *values)


@pytest.fixture(scope="module")
def job_and_answer(tmp_path_factory):
    rng = random.Random(13)
    job = {"rows": rows(rng), "pairs": pairs(rng)}
    sent = {"rows": [encode(r) for r in job["rows"]], "pairs": [[encode(p), encode(q)] for p, q in job["pairs"]]}
    out = node_job(SCRIPT, sent, tmp_path_factory.mktemp("row_sums"), 120)
    return job, {key: [base64.b64decode(b) for b in values] for key, values in out.items()}


def test_the_rows_cover_the_cases_that_matter(job_and_answer):
    job, _ = job_and_answer
    rows, pairs_ = job["rows"], job["pairs"]
    assert sum(len(r) == V for r in rows) >= 80 and len(pairs_) >= 60
    assert any(r and r[-1] == 0.0 and any(r) for r in rows)  # last weights zero
    assert any(0 < v < 2.2250738585072014e-308 for r in rows for v in r)  # subnormal weights
    assert any(absorbed_weight(r) for r in rows)  # a positive weight the running sum does not change
    assert any(math.isinf(list(accumulate(r))[-1]) for r in rows if r)  # sums past the largest double
    assert any(math.copysign(1.0, r[0]) < 0 for r in rows if r)  # -0.0 first
    assert any(a == b for p, q in pairs_ for a, b in zip(p, q)) and any(p == q for p, q in pairs_)


def test_running_sums_are_accumulates_bit_for_bit(job_and_answer):
    job, got = job_and_answer
    for i, (row, sums) in enumerate(zip(job["rows"], got["sums"], strict=True)):
        assert sums == raw(list(accumulate(row))), f"row {i}: JavaScript's running sums differ from accumulate's"


def test_residual_weights_and_sums_are_sampler_pys_bit_for_bit(job_and_answer):
    job, got = job_and_answer
    for i, ((p, q), weights, sums) in enumerate(zip(job["pairs"], got["weights"], got["residualSums"], strict=True)):
        rest = sampler.residual(p, q)
        assert weights == raw(rest), f"pair {i}: JavaScript's residual weights differ from sampler.residual"
        assert sums == raw(list(accumulate(rest))), f"pair {i}: the residual's running sums differ"
