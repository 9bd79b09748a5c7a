"""The data stage's outputs change together or not at all, its inputs are checked before any work, and its worker
never outlives it."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from generator import atomic
from generator.errors import OutputError
from generator.models.family import DRAFTS, TARGET
from tests.conftest import ROOT

MODELS = ROOT / "models"
PRECOMPUTED = ROOT / "precomputed"
BAR = "gen_c13_precomputed:"  # how the stages' progress bar starts: it appears only once the work does


def data_command(*args, quiet=True):
    return [sys.executable, "-m", "generator", "data", *(["--quiet"] if quiet else []), *map(str, args)]


def old_outputs(folder):
    """A folder holding an old c13.json and old browser files, as a previous run left them."""
    (folder / "browser").mkdir(parents=True)
    for name in sorted(os.listdir(PRECOMPUTED / "browser")):
        (folder / "browser" / name).write_bytes(b"old " + name.encode())
    return folder


def contents(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ------------------------------------------------------------------------------------------------
# outputs that belong together
# ------------------------------------------------------------------------------------------------


def test_write_together_puts_every_old_file_back_when_one_rename_fails(tmp_path, monkeypatch):
    a, b, c = tmp_path / "a.bin", tmp_path / "sub" / "b.bin", tmp_path / "c.json"
    a.write_bytes(b"old a")
    c.write_bytes(b"old c")
    real, calls = os.replace, []

    def replace(src, dst):
        calls.append(dst)
        if len(calls) == 3:  # a and b are in place when c's rename fails
            raise OSError(18, "Invalid cross-device link")
        return real(src, dst)
    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OutputError, match="c.json: cannot write"):
        atomic.write_together({a: b"new a", b: b"new b", c: b"new c"})
    assert a.read_bytes() == b"old a" and c.read_bytes() == b"old c" and not b.exists()
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["a.bin", "c.json"]  # nothing left over


def test_write_together_replaces_the_whole_set(tmp_path):
    a, c = tmp_path / "a.bin", tmp_path / "c.json"
    a.write_bytes(b"old a")
    atomic.write_together({a: b"new a", c: b"new c"})
    assert (a.read_bytes(), c.read_bytes()) == (b"new a", b"new c")
    assert sorted(os.listdir(tmp_path)) == ["a.bin", "c.json"]


@pytest.mark.slow("the data stage started as a command, up to its checks or its worker")
def test_a_late_failure_of_the_data_stage_leaves_the_browser_files_as_they_were(tmp_path):
    """All the work done, c13.json cannot be written (its path is a folder): the browser files, written before
    c13.json, must not have changed either."""
    out = old_outputs(tmp_path / "out")
    (out / "c13.json").mkdir()
    before = contents(out)
    run = subprocess.run(data_command("--out", out / "c13.json"), cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 2 and "c13.json: cannot write" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr
    assert contents(out) == before and sorted(os.listdir(out)) == ["browser", "c13.json"]
    assert sorted(os.listdir(out / "browser")) == sorted(os.listdir(PRECOMPUTED / "browser"))


# ------------------------------------------------------------------------------------------------
# inputs checked before the work starts
# ------------------------------------------------------------------------------------------------


def refused_at_once(tmp_path, models, pre):
    """Run the data stage with its progress bar on; it must stop with exit 2 before the bar (the work) starts,
    leaving the old outputs as they were."""
    out = old_outputs(tmp_path / "out")
    (out / "c13.json").write_text('{"old": true}\n', encoding="utf-8")
    before = contents(out)
    run = subprocess.run(data_command("--models", models, "--precomputed", pre, "--out", out / "c13.json",
                                      quiet=False), cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 2, run.stderr
    assert BAR not in run.stderr and "Traceback" not in run.stderr, run.stderr
    assert contents(out) == before
    return run.stderr


@pytest.mark.slow("the data stage started as a command, up to its checks or its worker")
def test_an_infinite_anchor_figure_is_refused_before_any_work(tmp_path):
    pre = tmp_path / "pre"
    shutil.copytree(PRECOMPUTED, pre)
    text = (pre / "anchor-model.json").read_text(encoding="utf-8")
    anchor = json.loads(text)
    anchor["hardware"]["peak_bf16_dense_flops"] = 12345.5
    (pre / "anchor-model.json").write_text(json.dumps(anchor).replace("12345.5", "1e400"), encoding="utf-8")
    err = refused_at_once(tmp_path, MODELS, pre)
    assert "anchor-model.json" in err and "peak_bf16_dense_flops" in err


@pytest.mark.slow("the data stage started as a command, up to its checks or its worker")
def test_figures_that_give_no_finite_roofline_are_refused_before_any_work(tmp_path):
    """Each figure valid on its own, but the peak so large that the compute time underflows to zero."""
    pre = tmp_path / "pre"
    shutil.copytree(PRECOMPUTED, pre)
    anchor = json.loads((pre / "anchor-model.json").read_text(encoding="utf-8"))
    anchor["hardware"]["peak_bf16_dense_flops"] = 1e308
    anchor["assumptions"]["flops_per_param_per_position"] = 1e-300
    (pre / "anchor-model.json").write_text(json.dumps(anchor), encoding="utf-8")
    err = refused_at_once(tmp_path, MODELS, pre)
    assert "anchor-model.json" in err and "roofline" in err


@pytest.mark.slow("the data stage started as a command, up to its checks or its worker")
@pytest.mark.parametrize("entry, field", [('"fast"', f"models.{TARGET}"),
                                          ('{"heldout_loss": "low"}', f"models.{TARGET}.heldout_loss")])
def test_a_broken_model_card_is_refused_before_any_work(tmp_path, entry, field):
    models = tmp_path / "models"
    shutil.copytree(MODELS, models)
    card = json.loads((models / "card.json").read_text(encoding="utf-8"))
    card["models"][TARGET] = "PLACEHOLDER"
    (models / "card.json").write_text(json.dumps(card).replace('"PLACEHOLDER"', entry), encoding="utf-8")
    err = refused_at_once(tmp_path, models, PRECOMPUTED)
    assert "card.json" in err and field in err


@pytest.mark.slow("the data stage started as a command, up to its checks or its worker")
def test_a_broken_model_card_is_refused_by_the_models_command(tmp_path):
    models = tmp_path / "models"
    shutil.copytree(MODELS, models)
    card = json.loads((models / "card.json").read_text(encoding="utf-8"))
    card["models"][DRAFTS[0]] = ["not", "an", "object"]
    (models / "card.json").write_text(json.dumps(card), encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "generator", "models", "--models", str(models)], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode == 2 and f"card.json: models.{DRAFTS[0]}" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.slow("the data stage started as a command, up to its checks or its worker")
@pytest.mark.parametrize("steps", ["-1", "0"])
def test_training_with_no_steps_is_refused_before_anything_is_written(tmp_path, steps):
    out = tmp_path / "models"
    run = subprocess.run([sys.executable, "-m", "generator", "train", "--steps", steps, "--out", str(out)],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 2 and "steps" in run.stderr and "Traceback" not in run.stderr, run.stderr
    assert not out.exists()


# ------------------------------------------------------------------------------------------------
# the worker never outlives the data stage
# ------------------------------------------------------------------------------------------------


def children(pid):
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(c) for c in text.split()]


def alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow("the data stage started as a command, up to its checks or its worker")
def test_the_worker_exits_when_the_data_stage_is_killed(tmp_path):
    main = subprocess.Popen(data_command("--out", tmp_path / "c13.json"), cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline, workers = time.monotonic() + 60, []
        while time.monotonic() < deadline and not workers:  # the worker and multiprocessing's resource tracker
            workers = [c for c in children(main.pid)
                       if "gen_c13_precomputed worker" in _cmdline(c) or "spawn_main" in _cmdline(c)]
            time.sleep(0.2)
        assert workers, "the data stage started no worker process"
        time.sleep(3)  # the worker is at work (loading torch and the models)
        os.kill(main.pid, signal.SIGKILL)
        main.wait()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and any(alive(w) for w in workers):
            time.sleep(0.2)
        left = [w for w in workers if alive(w)]
        for w in left:
            os.kill(w, signal.SIGKILL)
        assert not left, "the worker went on computing after the data stage was killed"
    finally:
        if main.poll() is None:
            main.kill()
            main.wait()


def _cmdline(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""
