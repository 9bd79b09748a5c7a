"""The lesson's yield and speedup formulas, once for Python: the twin of widgets/figures/speedup.mjs.

The data stage's accounting (generator/data/runs.py) and the page stage's prose and measured-costs table
(generator/pages/) compute with these; the figures and E5 with the JavaScript. Each sums exactly as its twin does (term
by term, the first of equals for the best k), so both give the same doubles: tests/contracts/test_speedup_parity.py runs
the two over one grid and wants them equal bit for bit, and c13.json's stored figures equal to them.
"""


def expected_yield(alpha, k):
    """E[N] = 1 + α + … + α^k, summed as speedup.mjs expectedYield (α = 0.8, k = 1 gives 1.8 exactly)."""
    total, term = 0.0, 1.0
    for _ in range(k + 1):
        total += term
        term *= alpha
    return total


def measured_speedup(alpha, c, k, v):
    """E[N] / (k·c + v): verifying k + 1 positions costs v target forwards (v = 1: the lesson's formula)."""
    return expected_yield(alpha, k) / (k * c + v)


def speedup(alpha, c, k):
    """The lesson's formula, v = 1."""
    return measured_speedup(alpha, c, k, 1)


def best_k(alpha, c, ks):
    """The k of ks with the largest speedup(α, c, k), the first of equals, as speedup.mjs bestK."""
    best = ks[0]
    for k in ks:
        if speedup(alpha, c, k) > speedup(alpha, c, best):
            best = k
    return best
