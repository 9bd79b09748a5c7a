"""
widgets/sampler.py runs unchanged in real Pyodide (under Node, from the local npm
package) and gives CPython's results bit for bit on seeded runs.

Needs `node` and node_modules/pyodide (`npm ci`); without them this test fails.
"""
import hashlib
import json
import random
import shutil
import subprocess
import time

import pytest

from generator.shared_sampler import PATH as SAMPLER_PATH
from generator.shared_sampler import sampler
from tests.conftest import ROOT
from tests.widgets.sampler_exercise import exercise

SCRIPT = ROOT / "tests" / "widgets" / "node" / "pyodide_sampler.mjs"
EXERCISE = ROOT / "tests" / "widgets" / "sampler_exercise.py"
PYODIDE_DIR = ROOT / "node_modules" / "pyodide"
TIMEOUT_S = 120


def zipf_pair(vocab=2048, seed=7):
    """A Zipf-like target p over vocab tokens and a draft q: p perturbed token by token, not normalised."""
    weights = [1.0 / (k + 2.7) ** 1.1 for k in range(vocab)]
    total = sum(weights)
    p = [w / total for w in weights]
    rng = random.Random(seed)
    q = [v * rng.lognormvariate(0.0, 0.5) for v in p]
    return p, q


def make_cases():
    p, q = zipf_pair()
    small_p = [0.1, 0.2, 0.3, 0.4, 0.0, 0.05]
    small_q = [0.5, 0.0, 0.25, 0.0, 0.25, 0.0]  # zeros in q, and mass on a token p never gives
    same = [1.0 / (k + 1) for k in range(64)]
    return [
        dict(p=p, q=q, n=100_000, seed=2024, scheme="correct", chunk=None),
        dict(p=p, q=q, n=100_000, seed=2024, scheme="correct", chunk=7_000),
        dict(p=p, q=q, n=20_000, seed=11, scheme="resample_p", chunk=None),
        dict(p=p, q=q, n=20_000, seed=12, scheme="naive", chunk=None),
        dict(p=p, q=q, n=20_000, seed=13, scheme="direct", chunk=None),
        dict(p=small_p, q=small_q, n=5_000, seed=3, scheme="correct", chunk=None),
        dict(p=small_p, q=small_q, n=5_000, seed=4, scheme="resample_p", chunk=777),
        dict(p=small_p, q=small_q, n=5_000, seed=5, scheme="naive", chunk=None),
        dict(p=same, q=list(same), n=10_000, seed=6, scheme="correct", chunk=None),
    ]


def run_in_pyodide(job_path):
    node = shutil.which("node")
    if node is None:
        pytest.fail("`node` is not on PATH: install Node.js 20, then run `npm ci` in the repository root")
    for name in ("package.json", "pyodide.mjs", "pyodide.asm.wasm", "python_stdlib.zip"):
        if not (PYODIDE_DIR / name).is_file():
            pytest.fail(f"{PYODIDE_DIR / name} is missing: run `npm ci` in {ROOT} to install the pyodide npm package")
    try:
        proc = subprocess.run([node, str(SCRIPT.relative_to(ROOT)), str(job_path)], cwd=ROOT,
                              capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{SCRIPT.name} did not finish within {TIMEOUT_S} s")
    if proc.returncode != 0:
        pytest.fail(f"{SCRIPT.name} exited with {proc.returncode}:\n{proc.stderr}\n{proc.stdout[-2000:]}")
    lines = proc.stdout.splitlines()
    assert len(lines) == 1, f"expected one line of JSON on stdout, got {len(lines)}:\n{proc.stdout[:2000]}"
    return json.loads(lines[0])


@pytest.mark.slow("Pyodide started in Node")
def test_sampler_in_pyodide_matches_cpython_bit_for_bit(tmp_path):
    cases = make_cases()
    job_path = tmp_path / "job.json"
    job_path.write_text(json.dumps(dict(sampler=str(SAMPLER_PATH), exercise=str(EXERCISE), cases=cases)))
    # both sides start from the very bytes of the job file (JSON floats round-trip exactly)
    cases = json.loads(job_path.read_text())["cases"]

    t0 = time.perf_counter()
    got = run_in_pyodide(job_path)
    node_s = time.perf_counter() - t0
    expected = exercise(sampler, cases)

    # really Pyodide, loaded from the local package, running the very file CPython ran
    assert got["ok"] is True
    assert got["platform"] == "emscripten"
    assert got["pyodide_module"] == (PYODIDE_DIR / "pyodide.mjs").as_uri()
    assert got["pyodide_version"] == json.loads((PYODIDE_DIR / "package.json").read_text())["version"]
    assert got["sampler_sha256"] == hashlib.sha256(SAMPLER_PATH.read_bytes()).hexdigest()
    print(f"\nPyodide {got['pyodide_version']} (Python {got['python_version']}): "
          f"load {got['load_ms']:.0f} ms, runs {got['run_ms']:.0f} ms, node process {node_s:.1f} s")

    results = got["results"]
    assert len(results) == len(expected)
    for i, (g, e) in enumerate(zip(results, expected)):
        where = f"case {i} ({e['scheme']}, n={e['n']}, chunk={e['chunk']})"
        assert g["n"] == e["n"] and g["seed"] == e["seed"], where
        assert g["counts"] == e["counts"], f"{where}: counts differ"
        assert g["accepted"] == e["accepted"], f"{where}: accepted {g['accepted']} != {e['accepted']}"
        assert g["tv"] == e["tv"], f"{where}: tv {float.hex(g['tv'])} != {float.hex(e['tv'])}"
        assert g["acceptance_rate"] == e["acceptance_rate"], where
        assert g["alpha"] == e["alpha"], f"{where}: alpha {float.hex(g['alpha'])} != {float.hex(e['alpha'])}"
        assert g["one_round"] == e["one_round"], f"{where}: one_round differs"
        assert g["primitives"] == e["primitives"], f"{where}: the real-model loop's primitives differ"
    # type-strict too: the serialised results are the same text (1 and 1.0 would differ here)
    assert json.dumps(results, sort_keys=True) == json.dumps(expected, sort_keys=True)

    # chunking does not change the stream in Pyodide either
    assert results[1]["chunk"] == 7_000 and results[0]["chunk"] is None
    assert results[1]["counts"] == results[0]["counts"]
    assert results[1]["accepted"] == results[0]["accepted"]
    assert results[1]["tv"] == results[0]["tv"]
    # sanity: the runs did real work (the main run rejects sometimes, p == q always accepts)
    assert sum(results[0]["counts"]) == 100_000 and 0 < results[0]["accepted"] < 100_000
    assert results[-1]["accepted"] == results[-1]["n"]
    assert all(c == 0 for c, pv in zip(results[5]["counts"], cases[5]["p"]) if pv == 0)
    # the primitives ran on rows with zeros and on equal rows (no residual: nothing to reject into)
    assert results[5]["primitives"]["residual_draws"] and results[-1]["primitives"]["verify"] is None
    assert {v["kind"] for r in results[:-1] for v in r["primitives"]["verify"]} == {"bonus", "resampled"}
