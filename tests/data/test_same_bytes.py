"""The same data on any machine: the regeneration reproduces the committed c13.json under the machine's own kernel
dispatch, pinned (generator/data/kernels.py), and under other dispatches forced on the data stage, the way another
CPU would take other paths: every decision, token and count identical, every float within the stated bound
(tests/c13_compare.py), and every page printing the same text."""
import copy
import json
import os
import shutil
import subprocess
import sys

import pytest

from generator import atomic, contract
from generator.data import kernels
from tests.c13_compare import differences
from tests.conftest import ROOT
from tests.sitelib import data_file, page_text, quiet

C13 = ROOT / "precomputed" / "c13.json"
BROWSER = ROOT / "precomputed" / "browser"
MEASURED = ROOT / "precomputed" / "measured.json"  # read by the page build beside the c13.json it builds from
# Other dispatches than the pinned one, forced on the data stage (its worker inherits them): the plain kernels
# (ATen), SSE4.2 (MKL) and SSE4.1 (oneDNN) together; and MKL's vendor-neutral reproducible mode, which pin() leaves
# alone. Each entry: the variables, and the ATen capability the data stage must then report.
FORCED = {
    "plain": ({"ATEN_CPU_CAPABILITY": "default", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2", "ONEDNN_MAX_CPU_ISA": "SSE41"},
              "DEFAULT"),
    "mkl-cbwr": (dict(kernels.PINNED, MKL_CBWR="COMPATIBLE"), None),
}
# pin() sets kernels.PINNED over whatever the caller asked for, so a forced dispatch replaces PINNED itself before
# the data stage runs; `python -c` (no file) because the worker is spawned and re-imports the main module's file
FORCE = ("import json, sys\n"
         "from generator.data import kernels\n"
         "kernels.PINNED = json.loads(sys.argv[1])\n"
         "from generator.cli import main\n"
         "code = main(sys.argv[2:])\n"
         "print('capability', kernels.capability())\n"
         "sys.exit(code)\n")


def regenerate(folder, forced=None):
    """`python -m generator data` into folder/c13.json (its browser files beside it), with none of the kernel
    variables set by the caller; forced: the variables the data stage pins instead of kernels.PINNED. Returns the
    path and the ATen capability the data stage reported (None unless forced)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / "c13.json"
    environ = {key: value for key, value in os.environ.items()
               if key not in kernels.PINNED and key not in (forced or {})}
    command = ["-m", "generator"] if forced is None else ["-c", FORCE, json.dumps(forced)]
    run = subprocess.run([sys.executable, *command, "data", "--quiet", "--out", str(out)], cwd=ROOT,
                         capture_output=True, text=True, env=environ)
    assert run.returncode == 0, run.stderr
    reported = [line.split()[1] for line in run.stdout.splitlines() if line.startswith("capability ")]
    return out, (reported[-1] if reported else None)


def as_committed_code(path):
    """The regenerated file at path rewritten with the committed file's recorded code hashes (the "generator" input
    and each generator/ file), resealed: every edit to generator/ changes them, and `make check` holds them to the
    code (generator/data/provenance.py), not this test; everything else stays as regenerated. Puts the committed
    measured.json beside it, which the page build reads. Returns the data."""
    new, old = (json.loads(p.read_text(encoding="utf-8")) for p in (path, C13))
    code = lambda name: name == "generator" or name.startswith("generator/")  # noqa: E731
    inputs = {name: digest for name, digest in new["provenance"]["inputs"].items() if not code(name)}
    inputs.update((name, digest) for name, digest in old["provenance"]["inputs"].items() if code(name))
    new["provenance"]["inputs"] = inputs
    new = contract.seal(new)  # the digest covers everything but itself
    path.write_bytes(atomic.dumps_json(new).encode("utf-8"))
    if MEASURED.exists():
        shutil.copyfile(MEASURED, path.parent / MEASURED.name)
    return new


def pages_text(out):
    """The visible text of every page of the site at out (the figures' SVG text included, scripts left out)."""
    return {page.relative_to(out).as_posix(): page_text(page) for page in sorted(out.rglob("*.html"))
            if "assets" not in page.relative_to(out).parts}


def site_text(data, out):
    """The visible text of every page built from data."""
    from generator.pages.build import build
    build(data, out=out, log=quiet)
    return pages_text(out)


@pytest.fixture(scope="module")
def committed_pages(site, tmp_path_factory):
    """The committed c13.json's pages: the session's site where the suite builds it from that file (no second
    build), else built here."""
    if data_file().resolve() == C13.resolve():
        return pages_text(site)
    return site_text(C13, tmp_path_factory.mktemp("committed") / "site")


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory):
    return regenerate(tmp_path_factory.mktemp("default") / "data")[0]


def same_figures(path, committed_pages, site):
    """The regenerated file at path against the committed one: the browser files bit for bit, every field within
    the stated bound (tests/c13_compare.py), and every built page's visible text identical."""
    for name in sorted(os.listdir(BROWSER)):
        assert (path.parent / "browser" / name).read_bytes() == (BROWSER / name).read_bytes(), name
    new, old = as_committed_code(path), json.loads(C13.read_text(encoding="utf-8"))
    found = differences(new, old)
    assert not found, f"{path} differs from the committed c13.json in:\n  " + "\n  ".join(found)
    built = site_text(path, site)
    for page in sorted(set(built) | set(committed_pages)):
        assert built.get(page) == committed_pages.get(page), \
            f"{page} built from {path} prints other text than from the committed c13.json"


@pytest.mark.slow("a regeneration of the data (one per kernel dispatch) and a site built from it")
def test_regeneration_reproduces_the_committed_file(regenerated, committed_pages, tmp_path):
    """The machine's own dispatch, pinned: the committed figures and pages (its bytes too on the machines we know;
    where a CPU takes other paths all the same, every float within the stated bound)."""
    same_figures(regenerated, committed_pages, tmp_path / "site")


@pytest.mark.slow("a regeneration of the data (one per kernel dispatch) and a site built from it")
@pytest.mark.parametrize("name", sorted(FORCED))
def test_a_forced_other_kernel_dispatch_gives_the_same_figures(name, committed_pages, tmp_path):
    """Other kernels, really run by the data stage and its worker: floats that differ in their last bits at most,
    and pages that print the same text."""
    variables, capability = FORCED[name]
    path, reported = regenerate(tmp_path / "data", forced=variables)
    assert reported in kernels.ALLOWED_CAPABILITIES and reported == (capability or reported), \
        f"the data stage ran torch's {reported} kernels, not the forced {capability or 'pinned'} ones"
    same_figures(path, committed_pages, tmp_path / "site")


@pytest.mark.slow("two processes that start torch, one spawned by the other")
def test_the_pin_holds_in_a_process_started_after_it():
    """pin() before torch loads: a process started after it (the worker is one) runs the pinned kernels, even
    when its caller asked for others."""
    code = ("import multiprocessing as mp\n"
            "from generator.data import kernels\n"
            "def report(q): q.put(kernels.capability())\n"
            "if __name__ == '__main__':\n"
            "    assert kernels.pin()\n"
            "    q = mp.get_context('spawn').Queue(); p = mp.get_context('spawn').Process(target=report, args=(q,))\n"
            "    p.start(); print(kernels.check(), q.get(timeout=60)); p.join()\n")
    script = ROOT / ".pin_probe.py"
    environ = dict(os.environ, ATEN_CPU_CAPABILITY="avx512", PYTHONPATH=str(ROOT))
    try:
        script.write_text(code, encoding="utf-8")
        run = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, env=environ)
    finally:
        script.unlink()
    assert run.returncode == 0, run.stderr
    here, worker = run.stdout.split()
    assert here in kernels.ALLOWED_CAPABILITIES and worker in kernels.ALLOWED_CAPABILITIES


def test_figures_from_unpinned_kernels_are_refused(monkeypatch):
    monkeypatch.setattr(kernels, "capability", lambda: "AVX512")
    with pytest.raises(RuntimeError, match="AVX512 kernels, not the pinned AVX2"):
        kernels.check("the data stage")


# ------------------------------------------------------------------------------------------------
# the field-by-field comparison itself
# ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def committed():
    return json.loads(C13.read_text(encoding="utf-8"))


def test_last_bit_differences_are_allowed(committed):
    new = copy.deepcopy(committed)
    new["replay"]["rounds"][0]["p"][0] *= 1 + 3e-15
    new["browser"]["float16_error"]["max_abs_dp"] *= 1 + 3e-15
    new["digest"] = "0" * 64
    assert differences(new, committed) == []


def test_a_changed_decision_count_or_float_is_named(committed):
    """Every float is held to the same bound: the float16 figure (computed in float64, stored with 4 significant
    digits) may not move by one unit in its last digit either."""
    new = copy.deepcopy(committed)
    new["replay"]["rounds"][2]["accepted"] += 1
    new["greedy"]["identical"] -= 1
    draft = committed["constants"]["drafts"][0]
    new["accounting"]["drafts"][draft]["alpha"] *= 1 + 1e-9
    dp = committed["browser"]["float16_error"]["max_abs_dp"]
    new["browser"]["float16_error"]["max_abs_dp"] = float(f"{dp * (1 + 1e-4):.4g}")  # one unit up in the last digit
    assert new["browser"]["float16_error"]["max_abs_dp"] != dp
    found = differences(new, committed)
    assert [line.split(":")[0] for line in found] == [f"accounting.drafts.{draft}.alpha",
                                                      "browser.float16_error.max_abs_dp", "greedy.identical",
                                                      "replay.rounds[2].accepted"]


def test_a_missing_field_or_other_length_is_named(committed):
    new = copy.deepcopy(committed)
    del new["tv_curve"]["seed"]
    new["prompts"] = new["prompts"][:-1]
    assert [line.split(":")[0] for line in differences(new, committed)] == ["prompts", "tv_curve.seed"]
