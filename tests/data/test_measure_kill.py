"""`make measure` killed with -9 in its Node phase leaves no Node process and, once the next measurement starts, no
temporary folder; `make measure QUICK=1` passes --quick. The kill is real: a process running the Node
phase (browser_forwards, with a stub in place of measure_browser.mjs that only spins, as the real measuring loop
does, without turning the event loop) gets SIGKILL."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import pytest

from generator.data import measure as measure_module
from generator.errors import InputError
from tests.conftest import MODELS, ROOT

STUB = """import { writeFileSync } from "node:fs";
writeFileSync(process.env.C13_STUB_PIDFILE, JSON.stringify({ pid: process.pid, folder: process.argv[2] }));
const end = Date.now() + 120000;
while (Date.now() < end) { /* busy, as E6's timing blocks are */ }
"""
PHASE = """import sys
from pathlib import Path
import generator.data.measure as m
m.BROWSER_SCRIPT = Path(sys.argv[1])
m.browser_forwards(sys.argv[2], [1, 2, 3], [4, 5], True)
"""


def alive(pid):
    """True while pid runs (a zombie waiting for its reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_for(condition, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


@pytest.fixture
def killed_in_node_phase(tmp_path):
    """A process in the Node phase, killed with -9: returns (node's pid, its folder, the temporary folder)."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    stub = tmp_path / "stub.mjs"
    stub.write_text(STUB, encoding="utf-8")
    pidfile = tmp_path / "node.json"
    env = dict(os.environ, TMPDIR=str(scratch), C13_STUB_PIDFILE=str(pidfile))
    proc = subprocess.Popen([sys.executable, "-c", PHASE, str(stub), str(MODELS)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    node = None
    try:
        assert wait_for(lambda: pidfile.is_file() and pidfile.stat().st_size > 0 or proc.poll() is not None, 120)
        assert proc.poll() is None, proc.communicate()[1].decode()[-2000:]
        node = json.loads(pidfile.read_text(encoding="utf-8"))
        assert alive(node["pid"])
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        yield node["pid"], node["folder"], scratch
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if node and alive(node["pid"]):
            os.kill(node["pid"], signal.SIGKILL)  # the stub this test started, left running by the old code


def test_a_killed_measurement_leaves_no_node_running(killed_in_node_phase):
    node, _, _ = killed_in_node_phase
    assert wait_for(lambda: not alive(node), 5), f"Node ({node}) outlived the killed measurement"


def test_the_next_measurement_removes_the_killed_ones_folder(killed_in_node_phase, monkeypatch, tmp_path):
    _, folder, scratch = killed_in_node_phase
    assert os.path.dirname(folder) == str(scratch) and os.path.isdir(folder)
    mine = scratch / "c13-measure-not-ours"  # a folder of that name without the marker: not touched
    mine.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    with measure_module.scratch_folder() as running:  # a measurement running now: its folder is kept
        with pytest.raises(InputError):
            measure_module.measure(MODELS, tmp_path / "measured.json", repeats=0)  # stops at once, after cleaning
        assert running.is_dir()
    assert sorted(p.name for p in scratch.iterdir()) == ["c13-measure-not-ours"]


def test_make_measure_quick_passes_quick_and_repeats():
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}  # run by `make test`
    run = subprocess.run(["make", "--no-print-directory", "-n", "measure", "QUICK=1", "REPEATS=5"], cwd=ROOT,
                         capture_output=True, text=True, env=env)
    line = [ln for ln in run.stdout.splitlines() if "-m generator measure" in ln]
    assert line and line[-1].endswith("-m generator measure --quick --repeats 5"), run.stdout + run.stderr
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make measure QUICK=1" in readme and "`--quick` for a short run" not in readme
