"""
Time the acceptance sampler (widgets/sampler.py) in CPython: 100,000 rounds of
each scheme on a realistic 2,048-token pair, best of 3.

    .venv/bin/python benchmarks/bench_sampler.py
"""

import importlib.util
import math
import random
import time
from pathlib import Path

PATH = Path(__file__).resolve().parent.parent / "widgets" / "sampler.py"
spec = importlib.util.spec_from_file_location("sampler", PATH)
sampler = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sampler)

V, N, REPEATS, SEED = 2048, 100_000, 3, 1234


def realistic_pair():
    """Zipf-like target p; the draft q is a flattened, noisy version of it."""
    rng = random.Random(0)
    p = [1.0 / (i + 1) ** 1.1 for i in range(V)]
    q = [v ** 0.7 * math.exp(rng.gauss(0.0, 0.5)) for v in p]
    return sampler.Pair(p, q)


def main():
    t0 = time.perf_counter()
    pair = realistic_pair()
    print(f"Pair({V} tokens) built in {1e3 * (time.perf_counter() - t0):.1f} ms; "
          f"alpha = {pair.alpha:.4f}, sum p*q = {pair.sum_pq:.4f}")
    for scheme in ("correct", "resample_p", "naive"):
        times = []
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            result = sampler.run(pair, N, SEED, scheme)
            times.append(time.perf_counter() - t0)
        best = min(times)
        s = sampler.summary(result, pair)
        print(f"{scheme:>10}: {N:,} rounds in {1e3 * best:7.1f} ms (best of {REPEATS}), "
              f"{N / best:,.0f} rounds/s, acceptance {s['acceptance_rate']:.4f}, TV to p {s['tv']:.4f}")
    real_model_calls(pair)


def real_model_calls(pair, calls=2_000, k=4):
    """What the generator's real-model loop pays per call: a draft draw and a whole T = 1 round of k drafts,
    on full 2,048-token rows given as lists (no tables kept between calls)."""
    rng = random.Random(SEED)
    us = [rng.random() for _ in range(calls)]
    t0 = time.perf_counter()
    drafted = [sampler.draw(pair.q, u) for u in us]
    per_draw = (time.perf_counter() - t0) / calls
    p_rows, q_rows = [pair.p] * (k + 1), [pair.q] * k
    t0 = time.perf_counter()
    for i in range(0, calls, k):
        sampler.verify(p_rows, q_rows, drafted[i:i + k], rng)
    per_round = (time.perf_counter() - t0) / (calls // k)
    print(f"real-model loop: draw on a {V:,}-token row {1e6 * per_draw:.0f} µs; "
          f"verify of a k = {k} round {1e6 * per_round:.0f} µs")


if __name__ == "__main__":
    main()
