"""The Python that calls widgets/sampler.py for the worker: widgets/py/c13_worker.py (E2's rounds and runs, the pair's
figures, the warm-up) and widgets/py/c13_e6.py (E6's bridge), real files loaded by one loader (widgets/py/load.mjs).

- in CPython, every answer of the glue is sampler.py's own for the same calls (tests/widgets/glue_exercise.py);
- in Pyodide under Node (tests/widgets/node/pyodide_glue.mjs, installed by the loader) the same calls give the same
  answers;
- the loader's files are sampler.py and every file of widgets/py/, the page states their sizes, and no JavaScript of
  widgets/ holds Python source of its own.

Needs `node` and node_modules/pyodide (`npm ci`).
"""
import importlib
import json
import random
import re
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.widgets import glue_exercise

WIDGETS = ROOT / "widgets"
GLUE = sorted((WIDGETS / "py").glob("*.py"))
MODULES = ("sampler", "c13_worker", "c13_e6")
DRIVER = ROOT / "tests" / "widgets" / "node" / "pyodide_glue.mjs"


def node():
    path = shutil.which("node")
    if path is None:
        pytest.fail("node is needed to run Pyodide (install Node 20)")
    return path


@pytest.fixture(scope="module")
def glue(tmp_path_factory):
    """sampler.py and the glue in one folder first on sys.path (the loader's layout in Pyodide), imported."""
    folder = tmp_path_factory.mktemp("c13")
    for path in [WIDGETS / "sampler.py", *GLUE]:
        shutil.copy(path, folder / path.name)
    kept = {name: sys.modules.pop(name) for name in MODULES if name in sys.modules}
    sys.path.insert(0, str(folder))
    try:
        yield {name: importlib.import_module(name) for name in MODULES}
    finally:
        sys.path.remove(str(folder))
        for name in MODULES:
            sys.modules.pop(name, None)
        sys.modules.update(kept)


@pytest.fixture(scope="module")
def answers(glue):
    return glue_exercise.exercise(glue["c13_worker"], glue["c13_e6"], glue["sampler"])


def test_the_worker_glue_answers_what_sampler_py_answers(glue, answers):
    sampler, got = glue["sampler"], answers["worker"]
    pair = sampler.Pair(glue_exercise.P, glue_exercise.Q)
    for scheme, rounds in got["rounds"].items():
        rng = random.Random(11)
        stream = [sampler.one_round(pair, rng, scheme) for _ in range(6)]
        assert rounds == [[i, json.loads(json.dumps(stream[i]))] for i, _ in rounds], scheme
    for rid, scheme, seed, n, chunk in ((1, "correct", 5, 2_500, 1_000), (2, "resample_p", 6, 2_000, 500)):
        chunks = list(sampler.run_chunks(pair, n, seed, scheme, chunk))
        run = got["runs"][rid]
        assert run["steps"] == [[c["n"], c["accepted"]] for c in chunks] + [None]
        summary = sampler.summary(chunks[-1], pair)
        assert run["result"]["counts"] == chunks[-1]["counts"] and run["result"]["tv"] == summary["tv"]
        assert ("tv_resample_p" in run["result"]) == (scheme == "resample_p")
    assert got["dropped"]
    assert got["pair_stats"] == {"alpha": pair.alpha, "sum_pq": pair.sum_pq,
                                 "tv_resample_p": sampler.resample_p_tv(pair.p, pair.q)}
    assert got["warm_pieces"] == 3
    rng = random.Random(11)
    stream = [sampler.one_round(pair, rng, "correct") for _ in range(3)]
    assert got["after_warm"] == json.loads(json.dumps(stream[1:]))
    assert got["error"][0] == "SamplerError"


def test_the_e6_glue_answers_what_sampler_py_answers(glue, answers):
    sampler, got = glue["sampler"], answers["e6"]
    p, q = glue_exercise.P, glue_exercise.Q
    rng = random.Random(9)
    us = [rng.random() for _ in range(6)]
    assert got["draws"] == [[sampler.draw(q, u), u] for u in us]
    assert got["greedy"] == sampler.greedy_pick(q)
    rows_p, rows_q = [p, q, p], [q, p]
    each_twice = [call for call in glue_exercise.E6_VERIFY_CALLS for _ in ("summed", "not")]
    for (k, drafted, seeded), one in zip(each_twice, got["verify"], strict=True):
        rec = sampler.verify(rows_p[:k + 1], rows_q[:k], drafted,
                             random.Random(k * 100 + drafted[0]) if seeded else None)
        n = len(rec["u"])
        assert one["kind"] == rec["kind"]
        # p(x) and q(x) are not sent back (JavaScript reads them from its rows); T = 0 has no uniforms or probabilities
        assert one["numbers"] == [rec["accepted"], rec["token"], rec["final_u"], n,
                                  *(rec["u"] + rec["accept_prob"] if seeded else [])]
    assert got["sizes"] == [5] * 6 + [glue["c13_e6"].DRAFTED + 2, 4 + 2 * 2] and got["row_type"]
    assert got["ints_typecode"] == "i"
    # the final draw's sums asked for once per summed T = 1 call (the first of each seeded pair), at the position
    # drawn at (the first rejection or the bonus: the accepted count); never at T = 0 or unsummed
    assert got["filled"] == [one["numbers"][0] for one in got["verify"][0:6:2]]
    assert got["nan"]


@pytest.mark.slow("Pyodide started in Node")
def test_pyodide_gives_the_same_answers_from_the_installed_files(answers):
    run = subprocess.run([node(), str(DRIVER)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout)
    assert out["files"] == {name: f"/home/pyodide/c13/{name}.py" for name in MODULES}
    assert out["answers"] == json.loads(json.dumps(answers))


def test_the_loader_installs_sampler_py_and_every_glue_file_and_the_page_counts_their_bytes():
    script = ('import { PYTHON_FILES } from %s; console.log(JSON.stringify(PYTHON_FILES));'
              % json.dumps((WIDGETS / "py" / "load.mjs").as_uri()))
    run = subprocess.run([node(), "--input-type=module", "-e", script], capture_output=True, text=True, cwd=ROOT,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    files = json.loads(run.stdout)
    assert sorted(files) == sorted(["sampler.py", *(f"py/{p.name}" for p in GLUE)]) and len(GLUE) >= 2
    from generator.pages.widget_payload import pyodide_bytes
    sizes = pyodide_bytes()
    for rel in files:
        assert sizes[rel.split("/")[-1]] == (WIDGETS / rel).stat().st_size, rel


# a template literal (assigned or passed, its text on the lines after the backtick) with a line of Python that
# defines or imports
PYTHON_IN_JS = re.compile(r"[=(,]\s*`\n[^`]*?^(?:def |import |from \w+ import )", re.M)


def test_no_javascript_of_the_widgets_holds_python_source():
    found = []
    for path in sorted(WIDGETS.rglob("*")):
        if path.suffix in (".js", ".mjs"):
            text = path.read_text(encoding="utf-8")
            found += [f"{path.relative_to(ROOT)}: {m.group(0)[:60]!r}" for m in PYTHON_IN_JS.finditer(text)]
    assert not found, "Python belongs in widgets/py/ (loaded by widgets/py/load.mjs):\n" + "\n".join(found)
    assert PYTHON_IN_JS.search("const GLUE = `\nimport math\nimport sampler\n`;")
    assert PYTHON_IN_JS.search("py.runPython(`\nimport sys\nsys.path`)")
