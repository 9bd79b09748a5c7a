"""A smoke test of `make bench`'s E6 benchmark in Node (benchmarks/bench_e6.mjs): a --quick run on one draft and one k
prints every row of the table with numbers — ms per token of each model, c, v(k), the speedup on model time and end to
end — beside the build machine's torch figures. No timing is asserted: timings vary by machine.

Needs `node`, node_modules/pyodide (`npm ci`) and the E6 modules (widgets/e6/).
"""
import re
import shutil
import subprocess

import pytest

from generator.models.family import DRAFTS, TARGET
from tests.conftest import ROOT

SCRIPT = ROOT / "benchmarks" / "bench_e6.mjs"
# a median with its spread: 1.23 [1.1–1.4] (1.0–1.5)
STAT = r"\d+(?:\.\d+)? \[\d+(?:\.\d+)?–\d+(?:\.\d+)?\] \(\d+(?:\.\d+)?–\d+(?:\.\d+)?\)"


def run(*args):
    node = shutil.which("node")
    if node is None:
        pytest.fail("`node` is not on PATH: install Node.js 20, then run `npm ci` in the repository root")
    return subprocess.run([node, str(SCRIPT.relative_to(ROOT)), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def table():
    proc = run("--quick", "--drafts", DRAFTS[0], "--ks", "2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def section(table, start, end):
    """The lines of the table between the heading that starts with `start` and the one that starts with `end`."""
    return table.split("\n" + start, 1)[1].split("\n" + end, 1)[0]


def test_each_model_has_its_ms_per_token(table):
    rows = section(table, "ms per token", "c (draft")
    for name in (TARGET, DRAFTS[0]):
        assert re.search(rf"\n  {name}\s+{STAT}", rows), rows
    assert DRAFTS[1] not in table  # only the draft asked for


def test_c_and_v_have_numbers(table):
    assert re.search(rf"\n  {DRAFTS[0]}\s+" + STAT, section(table, "c (draft", "v(k)")), table
    assert re.search(r"\n  k = 2\s+" + STAT, section(table, "v(k)", "speedup")), table


def test_speedup_on_model_time_and_end_to_end(table):
    rows = section(table, "speedup", "target-only")
    assert re.search(rf"{DRAFTS[0]} k = 2 model\s+" + STAT, rows), rows
    assert re.search(r"k = 2 end to end\s+" + STAT, rows), rows


def test_the_decisions_stand_beside_the_least_a_decision_can_cost(table):
    """The target-only run's one draw per token and a call into Pyodide that does nothing, after each model's forward,
    each as a share of the target's forward: the floor under the per-configuration decisions printed below them."""
    share = r" \(\d+\.\d% of the forward\)"
    assert re.search(r"\ntarget-only decisions, one draw per token, each after a target forward: " + STAT + " ms per token" +
                     share, table), table
    floor = [ln for ln in table.splitlines() if ln.startswith("a call into Pyodide that does nothing")]
    assert floor, table
    for name in (TARGET, DRAFTS[0]):
        assert re.search(rf"{name} \d+(?:\.\d+)?{share}", floor[0]), floor[0]
    assert re.search(rf"\n  {DRAFTS[0]}: 2: \d\.\d\d, \d\.\d\d, \d+(?:\.\d+)?, \d+\.\d%", table), table


def test_the_torch_column_is_measured_json(table):
    rows = section(table, "ms per token", "c (draft")
    if (ROOT / "precomputed" / "measured.json").is_file():
        assert "torch, build machine" in table
        assert re.search(rf"\n  {TARGET}\s+{STAT}\s+{STAT}", rows), rows  # this machine, then torch
    else:
        assert "torch: no precomputed/measured.json" in table


def test_bad_options_are_refused_by_name():
    proc = run("--repeats", "0")
    assert proc.returncode == 1 and "--repeats" in proc.stderr
    proc = run("--drafts", "nope")
    assert proc.returncode == 1 and "nope" in proc.stderr


def test_the_roof_benchmark_prints_this_machines_bandwidth_peak_and_predicted_v():
    """benchmarks/bench_roof.mjs (in `make bench`): E6's probes in Node, each figure a median with its spread, and
    v(k) for every k of the lesson as the roofline predicts it."""
    proc = subprocess.run([shutil.which("node") or "node", "benchmarks/bench_roof.mjs", "--repeats", "1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("repeat 1")]
    assert line and re.search(rf"bandwidth {STAT} GB/s, peak {STAT} GFLOP/s", line[0]), proc.stdout
    assert re.search(r"predicted v\(k\): 1: \d+\.\d\d, .* 8: \d+\.\d\d$", line[0]), line[0]
