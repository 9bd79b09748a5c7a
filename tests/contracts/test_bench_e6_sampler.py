"""A smoke test of `make bench`'s sampler benchmark (benchmarks/bench_e6_sampler.mjs): one short repeat prints the
target's forward and, for T = 1 and T = 0 and every k, the old glue's, the bridge's with sampler.py's own running sums
and with JavaScript's: ms per round and per token, their ratios and the share of a forward. It once stopped at its
imports unnoticed; no timing is asserted."""
import re
import shutil
import subprocess

import pytest

from tests.conftest import ROOT

NUMBER = r"\d+\.\d+"
RATIO = re.compile(rf"^\s*T=(\d) k=(\d+)\s.*today {NUMBER} .*py sums {NUMBER} .*js sums {NUMBER} .*js/py {NUMBER} "
                   rf".*js/today {NUMBER} .*÷ forward {NUMBER}%$", re.M)


@pytest.mark.slow("Pyodide started in Node for a short benchmark")
def test_the_sampler_benchmark_runs_and_prints_every_row():
    node = shutil.which("node")
    if node is None:
        pytest.fail("`node` is not on PATH: install Node.js 20, then run `npm ci` in the repository root")
    run = subprocess.run([node, "benchmarks/bench_e6_sampler.mjs", "--quick", "--repeats", "1"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    rows = {(int(t), int(k)) for t, k in RATIO.findall(run.stdout)}
    assert rows == {(t, k) for t in (0, 1) for k in (1, 2, 4, 8)}, run.stdout
    assert re.search(rf"^target forward \(\w+, WebAssembly, .*\): {NUMBER} ", run.stdout, re.M), run.stdout


@pytest.mark.slow("Pyodide started in Node for a short benchmark")
def test_the_pass_benchmark_prints_every_pass():
    run = subprocess.run([shutil.which("node") or "node", "benchmarks/bench_pyodide_pass.mjs", "--repeats", "1"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    rows = re.findall(r"^  (.+?)\s+\d+\.\d \[", run.stdout, re.M)
    assert len(rows) == 6 and "sampler.draw(array, u)" in rows, run.stdout
