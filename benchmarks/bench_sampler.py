"""
Time the acceptance sampler (widgets/sampler.py) in CPython: 100,000 rounds of
each scheme on a realistic 2,048-token pair, best of 3; then the calls E2's
worker makes for one ×100,000 run (its own Python, widgets/py/c13_worker.py,
run here) as a ratio to sampler.run alone, measured in alternation.

    .venv/bin/python benchmarks/bench_sampler.py
    .venv/bin/python benchmarks/bench_sampler.py --worker-calls < pair.json

--worker-calls is the CPython reference of benchmarks/bench_browser.py: it
reads {key, p, q, n, chunk, seeds} (p and q: the JSON texts the page sends),
runs the worker's calls in this fresh process (c13_pair, then per seed
c13_start, c13_step until done, c13_finish) and prints, as JSON, the ms of the
pair's build and of each run.
"""

import importlib.util
import json
import math
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from generator.shared_sampler import PATH, sampler  # noqa: E402 - widgets/sampler.py as the generator loads it

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
    worker_overhead(pair)


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


WORKER = PATH.parent / "py" / "c13_worker.py"


def worker_python():
    """The worker's Python (widgets/py/c13_worker.py) imported with `sampler` as this sampler.py: its namespace."""
    sys.modules["sampler"] = sampler
    spec = importlib.util.spec_from_file_location("c13_worker", WORKER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return vars(module)


RUN_ID = 1  # the request id the page would give the run


def time_worker_run(ns, key, p_json, q_json, scheme, seed, n, chunk):
    """One run exactly as the worker's handle() makes it: start, step until done, finish. Returns ms."""
    t0 = time.perf_counter()
    ns["c13_start"](RUN_ID, key, p_json, q_json, scheme, seed, n, chunk)
    while True:
        step = ns["c13_step"](RUN_ID)
        if step is None or step[0] >= n:
            break
    json.loads(ns["c13_finish"](RUN_ID))
    return 1e3 * (time.perf_counter() - t0)


def worker_calls():
    """--worker-calls: the CPython reference of a browser visit (see the module's text)."""
    ask = json.load(sys.stdin)
    ns = worker_python()
    t0 = time.perf_counter()
    ns["c13_pair"](ask["key"], ask["p"], ask["q"])
    pair_ms = 1e3 * (time.perf_counter() - t0)
    runs = [time_worker_run(ns, ask["key"], ask["p"], ask["q"], "correct", seed, ask["n"], ask["chunk"])
            for seed in ask["seeds"]]
    print(json.dumps({"pair_ms": pair_ms, "runs": runs, "python": sys.version.split()[0]}))


def worker_overhead(pair, repeats=5):
    """The worker's calls for a ×100,000 run against sampler.run alone, in alternation: median ratio and range."""
    ns = worker_python()
    p_json, q_json = json.dumps(pair.p), json.dumps(pair.q)
    ns["c13_pair"]("bench", p_json, q_json)
    ratios, worker_ms = [], []
    for i in range(repeats):
        t0 = time.perf_counter()
        sampler.run(pair, N, SEED + i, "correct")
        bare = 1e3 * (time.perf_counter() - t0)
        worker_ms.append(time_worker_run(ns, "bench", p_json, q_json, "correct", SEED + i, N, 10_000))
        ratios.append(worker_ms[-1] / bare)
    print(f"worker calls (c13_start, c13_step × 10, c13_finish) for {N:,} rounds: {statistics.median(worker_ms):.1f} ms "
          f"median, {statistics.median(ratios):.2f}× sampler.run alone (range {min(ratios):.2f}–{max(ratios):.2f}×, "
          f"{repeats} alternations)")


if __name__ == "__main__":
    if "--worker-calls" in sys.argv[1:]:
        worker_calls()
    else:
        main()
