"""The speedup formula E[N] / (k·c + v) and the best k exist once per language: widgets/figures/speedup.mjs for the
figures and E5, generator/speedup.py for the data stage's accounting and the page stage (prose, the measured-costs
table). Both run here over
one grid and must give the same doubles; the page's figures from c13.json and measured.json must be what the
JavaScript computes from the same inputs."""
import json
import math
import shutil
import subprocess

import pytest

from generator import speedup
from generator.pages import context
from generator.pages.measured import measured_context
from tests.conftest import ROOT
from tests.sitelib import data_file

SPEEDUP_MODULE = ROOT / "widgets" / "figures" / "speedup.mjs"
KS = list(range(1, 9))
ALPHAS = [i / 200 for i in range(201)] + [1e-9, 0.1 + 0.2, 0.999, 0.9999, 2 / 3]
CS = [0.0, 0.05, 0.1, 1 / 3, 0.75, 1.0]
VS = [1, 1.07, 1.5, 2.75]

NODE_SCRIPT = """
import { bestK, expectedYield, measuredSpeedup } from %s;
import { readFileSync } from "node:fs";
const job = JSON.parse(readFileSync(0, "utf8"));
console.log(JSON.stringify({
  yields: job.yields.map(([a, k]) => expectedYield(a, k)),
  speedups: job.speedups.map(([a, c, k, v]) => measuredSpeedup(a, c, k, v)),
  best: job.best.map(([a, c, ks]) => bestK(a, c, ks)),
}));
"""


def js(job):
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to run widgets/figures/speedup.mjs (install Node 20)")
    script = NODE_SCRIPT % json.dumps(SPEEDUP_MODULE.as_uri())
    run = subprocess.run([node, "--input-type=module", "-e", script], input=json.dumps(job), capture_output=True,
                         text=True, cwd=ROOT, timeout=60)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_python_and_javascript_give_the_same_doubles_over_the_grid():
    job = {"yields": [[a, k] for a in ALPHAS for k in range(0, 9)],
           "speedups": [[a, c, k, v] for a in ALPHAS for c in CS for k in KS for v in VS],
           "best": [[a, c, ks] for a in ALPHAS for c in CS for ks in (KS, KS[2:], [4, 2, 6])]}
    got = js(job)
    differ = [(args, speedup.expected_yield(*args), g) for args, g in zip(job["yields"], got["yields"])
              if speedup.expected_yield(*args) != g]
    differ += [(args, speedup.measured_speedup(*args), g) for args, g in zip(job["speedups"], got["speedups"])
               if speedup.measured_speedup(*args) != g]
    differ += [(args, speedup.best_k(*args), g) for args, g in zip(job["best"], got["best"])
               if speedup.best_k(*args) != g]
    assert not differ, "\n".join(f"{a}: Python {p!r}, JavaScript {g!r}" for a, p, g in differ[:20])


def test_the_best_k_is_the_first_of_equals():
    # c = 0, α = 1: every k yields k + 1 for one forward, so the largest k wins; α = 0: every k gives 1, the first wins
    assert speedup.best_k(1.0, 0.0, KS) == 8 and speedup.best_k(0.0, 0.0, KS) == 1
    assert js({"yields": [], "speedups": [], "best": [[0.0, 0.0, KS], [1.0, 0.0, KS]]})["best"] == [1, 8]


def test_the_data_stage_and_the_page_prose_agree_with_the_formula(data):
    """c13.json's formula, speedup and best k (the data stage computes them with generator/speedup.py) and the
    prose's best k (generator/pages/context.py e5_best) against the JavaScript, from the data's own α and c: the
    same doubles, not merely close ones."""
    ks = data["constants"]["ks"]
    acc = data["accounting"]["drafts"]
    job = {"yields": [], "speedups": [], "best": []}
    for d in acc.values():
        job["speedups"] += [[d["alpha"], d["c"], r["k"], 1] for r in d["rows"]]
        job["best"] += [[a, d["c"], ks] for a in (d["alpha"], d["alpha_low"], d["alpha_high"])]
    got = js(job)
    stored = [r["speedup"] for d in acc.values() for r in d["rows"]]
    assert stored == got["speedups"]
    yields = {"yields": [[d["alpha"], r["k"]] for d in acc.values() for r in d["rows"]], "speedups": [], "best": []}
    assert [r["formula"] for d in acc.values() for r in d["rows"]] == js(yields)["yields"]
    assert [d["best_k"] for d in acc.values()] == got["best"][::3]
    for (alpha, c, k_range), best in zip(job["best"], got["best"], strict=True):
        assert speedup.best_k(alpha, c, k_range) == best
        prose = context.e5_best(alpha, c, k_range)
        assert prose["k"] == best
        assert math.isclose(prose["speedup"], speedup.speedup(alpha, c, best), rel_tol=1e-12)


def test_the_measured_costs_table_is_what_the_figures_compute(data):
    path = data_file()
    m = measured_context(data, path)
    if m is None or not m["usable"]:
        pytest.skip("no usable precomputed/measured.json")
    rows = [(e, r) for e in m["by_draft"].values() for r in e["rows"]]
    job = {"yields": [], "best": [], "speedups": []}
    for e, r in rows:
        job["speedups"] += [[e["alpha"], e["c_params"], r["k"], 1], [e["alpha"], e["c"]["median"], r["k"], 1],
                            [e["alpha"], e["c"]["median"], r["k"], r["v"]]]
    got = iter(js(job)["speedups"])
    for _, r in rows:
        assert [r["lesson"], r["v1"], r["predicted"]] == [next(got), next(got), next(got)]


def test_the_page_stage_has_one_python_copy_of_the_formula():
    """The prose's helpers (context.e5_best, claims) call speedup.py's functions; none sums α^i itself."""
    from generator.pages import claims
    assert claims.speedup is speedup.speedup and claims.best_k is speedup.best_k
    for path in (ROOT / "generator" / "pages").glob("*.py"):
        if path.name != "speedup.py":
            assert "alpha **" not in path.read_text(encoding="utf-8"), path.name
