"""The regeneration's time, whole and split by job, against a reference tree, measured in alternation.

    .venv/bin/python benchmarks/bench_regen.py [--ref REV] [--repeats N] [--n-new N] [--ks 2,6] [--whole-only]

The whole regeneration: `python -m generator data --quiet` of each tree on this repository's models and inputs,
into a temporary file, wall seconds from the command's start to its exit (what the author waits for; both
processes of the regeneration included) and the CPU seconds of the command and its worker. Then the jobs:
each measurement runs in its own process (the models loaded first, outside the clock) and reports CPU seconds
(time.process_time: a loaded machine inflates wall time far more than CPU time) and wall seconds of each job
of gen_c13_precomputed that runs the models: the greedy identity, α per position, the replay, and the accounting
runs (all prompts and seeds, at the given ks and n_new: a slice of the real table, the same runs on both sides).
The reference is this repository at REV (default HEAD), extracted with `git archive` into a temporary folder;
the two trees alternate, repeat after repeat, and the medians, ranges and new ÷ reference ratios are printed.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ACCOUNTING_N_NEW = 48  # half the real table's 96: the same runs on both sides, in half the time

CHILD = r"""
import inspect, json, sys, time
from pathlib import Path
import torch
from generator.data import runs as R
from generator.data.precompute import PROMPTS, ACCOUNTING, encode
from generator.models.checkpoint import DRAFTS, load_family
torch.set_num_threads(1)
tok, models = load_family(Path(sys.argv[1]))
models = {n: m.double() for n, m in models.items()}
prompts = {t: encode(tok, t) for t in PROMPTS}
setting = dict(ACCOUNTING, n_new=int(sys.argv[2]), ks=tuple(int(k) for k in sys.argv[3].split(",")))
class Bar:
    def update(self, n=1): pass
def greedy():
    if len(inspect.signature(R.greedy_identity).parameters) == 2:
        return R.greedy_identity(models, prompts)
    return R.greedy_identity(models, prompts, Bar())
def accounting():
    if "texts" in inspect.signature(R.accounting_counts).parameters:
        return R.accounting_counts(models, prompts, list(prompts), setting)
    return [R.accounting_counts(models, prompts, d, k, setting) for d in DRAFTS for k in setting["ks"]]
out = {}
for name, job in (("greedy identity", greedy),
                    ("α per position", lambda: R.alpha_positions(models, prompts)),
                    ("replay", lambda: R.replay(models, prompts)), ("accounting", accounting)):
    cpu, wall = time.process_time(), time.perf_counter()
    job()
    out[name] = [time.process_time() - cpu, time.perf_counter() - wall]
print(json.dumps(out))
"""


def measure(tree, args):
    run = subprocess.run([sys.executable, "-c", CHILD, str(ROOT / "models"), str(args.n_new), args.ks],
                         cwd=tree, capture_output=True, text=True, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


def whole(tree):
    """One whole regeneration by tree's generator: (wall seconds, CPU seconds of it and its children)."""
    with tempfile.TemporaryDirectory() as out:
        before = os.times()
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "generator", "data", "--quiet", "--models", str(ROOT / "models"),
                        "--precomputed", str(ROOT / "precomputed"), "--out", str(Path(out) / "c13.json")],
                       cwd=tree, capture_output=True, text=True, check=True)
        wall, after = time.perf_counter() - started, os.times()
    return wall, after.children_user + after.children_system - before.children_user - before.children_system


def alternate(ref, repeats, measure_one):
    """measure_one(tree) for both trees, alternating which goes first; {side: [results]}."""
    results = {"reference": [], "new": []}
    for i in range(repeats):
        order = (("reference", ref), ("new", ROOT)) if i % 2 == 0 else (("new", ROOT), ("reference", ref))
        for side, tree in order:
            started = time.perf_counter()
            results[side].append(measure_one(tree))
            print(f"repeat {i + 1}/{repeats} {side}: {time.perf_counter() - started:.0f} s", flush=True)
    return results


def spread(values):
    return f"{statistics.median(values):7.2f} ({min(values):.2f}–{max(values):.2f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", default="HEAD", help="git revision of the reference tree")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--n-new", type=int, default=ACCOUNTING_N_NEW)
    ap.add_argument("--ks", default="2,6", help="accounting ks measured (comma-separated)")
    ap.add_argument("--whole-only", action="store_true", help="only the whole regeneration, not the jobs")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as ref:
        archive = subprocess.run(["git", "archive", args.ref, "generator", "widgets"], cwd=ROOT,
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", ref], input=archive, check=True)
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; reference {args.ref}")
        runs = alternate(ref, args.repeats, whole)
        print(f"\nwhole regeneration (python -m generator data), median (range) over {args.repeats} alternating "
              "repeats")
        for i, what in enumerate(("wall seconds", "CPU seconds")):
            ref_v, new_v = ([r[i] for r in runs[side]] for side in ("reference", "new"))
            print(f"  {what:16s} reference {spread(ref_v)}  new {spread(new_v)}  new/reference "
                  f"{spread([n / r for n, r in zip(new_v, ref_v)])}")
        if args.whole_only:
            return
        results = alternate(ref, args.repeats, lambda tree: measure(tree, args))
    print(f"\nCPU seconds per job, median (range) over {args.repeats} alternating repeats; "
          f"accounting at ks {args.ks}, n_new {args.n_new}, every prompt and seed")
    for job in results["new"][0]:
        ref_cpu = [r[job][0] for r in results["reference"]]
        new_cpu = [r[job][0] for r in results["new"]]
        ratios = [n / r for n, r in zip(new_cpu, ref_cpu)]
        print(f"  {job:16s} reference {spread(ref_cpu)}  new {spread(new_cpu)}  new/reference {spread(ratios)}")
    total = [[sum(v[0] for v in r.values()) for r in results[side]] for side in ("reference", "new")]
    print(f"  {'all four':16s} reference {spread(total[0])}  new {spread(total[1])}  new/reference "
          f"{spread([n / r for n, r in zip(total[1], total[0])])}")


if __name__ == "__main__":
    main()
