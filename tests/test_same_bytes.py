"""The same data on any machine: the regeneration reproduces the committed c13.json under the machine's own kernel
dispatch and under a forced other one, because the data stage pins its kernels (generator/data/kernels.py)."""
import copy
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from generator.data import kernels
from tests.c13_compare import differences
from tests.sitelib import page_text, quiet

ROOT = Path(__file__).resolve().parent.parent
C13 = ROOT / "precomputed" / "c13.json"
BROWSER = ROOT / "precomputed" / "browser"
# another dispatch than any machine picks by itself: the plain kernels (ATen), SSE4.2 (MKL), SSE4.1 (oneDNN)
FORCED = {"ATEN_CPU_CAPABILITY": "default", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2", "ONEDNN_MAX_CPU_ISA": "SSE41"}


def regenerate(folder, **env):
    """`python -m generator data` into folder/c13.json (its browser files beside it), with the kernel variables
    of this environment replaced by env (none: the machine's own dispatch)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / "c13.json"
    environ = {key: value for key, value in os.environ.items() if key not in kernels.PINNED}
    run = subprocess.run([sys.executable, "-m", "generator", "data", "--quiet", "--out", str(out)], cwd=ROOT,
                         capture_output=True, text=True, env=dict(environ, **env))
    assert run.returncode == 0, run.stderr
    return out


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory):
    return regenerate(tmp_path_factory.mktemp("default") / "data")


def site_text(data, out):
    """The visible text of every page built from data (the figures' SVG text included, scripts left out)."""
    from generator.pages.build import build
    build(data, out=out, log=quiet)
    return {page.relative_to(out).as_posix(): page_text(page) for page in sorted(out.rglob("*.html"))
            if "assets" not in page.relative_to(out).parts}


def test_regeneration_reproduces_the_committed_file(regenerated, tmp_path):
    """The committed bytes exactly; where a CPU takes other paths all the same, every decision, token and count
    identical, every float within the stated bound (tests/c13_compare.py), field by field, and the same printed
    pages."""
    for name in sorted(os.listdir(BROWSER)):
        assert (regenerated.parent / "browser" / name).read_bytes() == (BROWSER / name).read_bytes(), name
    if regenerated.read_bytes() == C13.read_bytes():
        return
    new, old = (json.loads(path.read_text(encoding="utf-8")) for path in (regenerated, C13))
    found = differences(new, old)
    assert not found, "the regeneration differs from the committed c13.json in:\n  " + "\n  ".join(found)
    built, committed = site_text(regenerated, tmp_path / "new"), site_text(C13, tmp_path / "old")
    for page in sorted(set(built) | set(committed)):
        assert built.get(page) == committed.get(page), f"{page} prints other figures from the regenerated data"


def test_a_forced_other_kernel_dispatch_gives_the_same_bytes(regenerated, tmp_path):
    """Whatever kernels the caller's environment asks for, the data stage runs the pinned ones (in its worker
    too): the same bytes as the machine's own dispatch, bit for bit."""
    forced = regenerate(tmp_path / "forced", **FORCED)
    assert forced.read_bytes() == regenerated.read_bytes()


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
    dp = committed["browser"]["float16_error"]["max_abs_dp"]  # stored with 4 significant digits
    unit = 10 ** (math.floor(math.log10(dp)) - 3)
    new["browser"]["float16_error"]["max_abs_dp"] = float(f"{dp + unit:.4g}")  # one unit up in the last digit
    new["digest"] = "0" * 64
    assert differences(new, committed) == []


def test_a_changed_decision_count_or_float_is_named(committed):
    new = copy.deepcopy(committed)
    new["replay"]["rounds"][2]["accepted"] += 1
    new["greedy"]["identical"] -= 1
    draft = committed["constants"]["drafts"][0]
    new["accounting"]["drafts"][draft]["alpha"] *= 1 + 1e-9
    dp = committed["browser"]["float16_error"]["max_abs_dp"]
    new["browser"]["float16_error"]["max_abs_dp"] = float(f"{dp + 2 * 10 ** (math.floor(math.log10(dp)) - 3):.4g}")
    found = differences(new, committed)
    assert [line.split(":")[0] for line in found] == [f"accounting.drafts.{draft}.alpha",
                                                      "browser.float16_error.max_abs_dp", "greedy.identical",
                                                      "replay.rounds[2].accepted"]


def test_a_missing_field_or_other_length_is_named(committed):
    new = copy.deepcopy(committed)
    del new["tv_curve"]["seed"]
    new["prompts"] = new["prompts"][:-1]
    assert [line.split(":")[0] for line in differences(new, committed)] == ["prompts", "tv_curve.seed"]
