"""The lesson's speedup formula for the page stage: the Python twin of widgets/figures/speedup.mjs.

The figures and E5 compute with the JavaScript; the prose and the measured-costs table with these. Each sums
exactly as its twin does (term by term, the first of equals for the best k), so both give the same doubles;
tests/test_speedup_parity.py runs the two over one grid and wants them equal bit for bit.
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
