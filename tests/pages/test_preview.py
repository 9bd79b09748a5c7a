"""`make preview`: the lesson served on 127.0.0.1 with live reload. A template error shows in the page,
naming the file and the line, instead of leaving page loads waiting; saving the fix brings the page back; and
c13.json is regenerated when its inputs change while the preview runs. The server runs on a copy of docs/.
Each regeneration runs in a process of its own (the settings are read once per process), so a second change
is never left stale; a broken c13.json shows in the page; a port in use is one line; Ctrl-C ends a regeneration."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from generator import cli, watch
from tests.conftest import MODELS, ROOT


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(url):
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.read().decode("utf-8")


def wait_for(url, ok, seconds=240):
    """The page at url once ok(page) holds; fails with the last page seen after `seconds`."""
    end, page = time.monotonic() + seconds, ""
    while time.monotonic() < end:
        try:
            page = fetch(url)
            if ok(page):
                return page
        except OSError:
            pass
        time.sleep(1)
    pytest.fail(f"{url} did not reach the expected state in {seconds} s; last page starts: {page[:300]!r}")


@pytest.mark.slow("the preview server started, with its rebuilds")
def test_a_template_error_shows_in_the_page_and_the_fix_brings_it_back(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs)
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "generator", "preview", "--port", str(port), "--docs", str(docs),
                               "--quiet"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}/index.html"
    try:
        first = wait_for(url, lambda page: 'id="exp-e5"' in page)  # the lesson's last experiment
        assert "c13-preview-error" not in first
        lab = wait_for(f"http://127.0.0.1:{port}/lab.html", lambda page: 'id="exp-e6"' in page)  # E6: the lab's
        assert "c13-preview-error" not in lab

        source = (docs / "index.md").read_text(encoding="utf-8")
        lines = source.splitlines(keepends=True)
        broken_line = next(i for i, line in enumerate(lines) if line.startswith("## ")) + 2
        lines.insert(broken_line - 1, "[[ no_such_figure | pct ]]\n")
        (docs / "index.md").write_text("".join(lines), encoding="utf-8")
        broken = wait_for(url, lambda page: "c13-preview-error" in page)
        assert "预览：这一页没能生成" in broken and "no_such_figure" in broken
        assert f"index.md: line {broken_line}" in broken

        (docs / "index.md").write_text(source, encoding="utf-8")
        fixed = wait_for(url, lambda page: "c13-preview-error" not in page)
        assert 'id="exp-e5"' in fixed
    finally:
        server.terminate()
        output = server.communicate(timeout=60)[0]
    assert f"http://127.0.0.1:{port}/" in output


def test_the_watcher_regenerates_c13_json_when_an_input_changes(tmp_path):
    folder = tmp_path / "precomputed"
    shutil.copytree(ROOT / "precomputed", folder, ignore=shutil.ignore_patterns("measured.json"))
    said, made = [], []
    watcher = watch.DataWatcher(ROOT / "models", folder, log=said.append, regenerate=lambda: made.append(1))
    assert watcher.check_once() == [] and made == []
    papers = folder / "papers.json"
    papers.write_text(papers.read_text(encoding="utf-8").replace("\n", "\n ", 1), encoding="utf-8")
    assert watcher.check_once() == ["precomputed/papers.json"] and made == [1]
    assert any("papers.json" in line and "regenerating" in line for line in said)

    def failing():
        raise cli.InputError(papers, "papers", "broken")
    watcher.regenerate = failing
    assert watcher.check_once() == ["precomputed/papers.json"]
    assert "keep the last good data" in said[-1] and "papers.json: papers: broken" in said[-1]
    said.clear()
    watcher.check_once()
    assert said == [], "a failed regeneration is retried only when the inputs change again"


def test_the_watcher_never_overwrites_a_c13_json_edited_by_hand(tmp_path):
    """The preview decides as `make site` does (cli.must_regenerate): a hand edit is refused and named, once, and
    the file keeps the edit."""
    folder = tmp_path / "precomputed"
    shutil.copytree(ROOT / "precomputed", folder, ignore=shutil.ignore_patterns("measured.json"))
    data = folder / "c13.json"
    edited = data.read_text(encoding="utf-8").replace('"c_definition": "weights', '"c_definition": "Weights', 1)
    assert edited != data.read_text(encoding="utf-8")
    data.write_text(edited, encoding="utf-8")
    said, made = [], []
    watcher = watch.DataWatcher(ROOT / "models", folder, log=said.append, regenerate=lambda: made.append(1))
    changed = watcher.check_once()
    assert made == [] and data.read_text(encoding="utf-8") == edited
    assert len(said) == 1 and "edited by hand" in said[0] and "make data" in said[0] and "c13.json" in said[0]
    assert watcher.check_once() == changed and len(said) == 1, "the refusal is said once, not every two seconds"
    with pytest.raises(cli.InputError, match="edited by hand"):
        cli.fresh_data(ROOT / "models", folder, log=said.append)


# lesson.toml made small (every key, within its ranges), so that a regeneration takes seconds
SMALL_LESSON = """prompts = ["孔明曰：「", "卻說曹操"]
[k]
max = 2
lesson = 2
greedy = [2]
[greedy]
new_tokens = {greedy}
[replay]
new_tokens = 16
seed = 7
max_tries = 100
[accounting]
seeds = [1]
new_tokens = 8
[alpha_positions]
new_tokens = 8
seed = 11
[offline]
n = 1000
seed = 20221130
[tv]
ns = [100, 1000, 10000, 100000]
seeds = 1
seed = 20230202
[display]
top_n = 12
small_vocab = 8
[e2]
live_sizes = [10000, 100000]
[e6]
new_tokens = [16]
"""


def small_precomputed(tmp_path, greedy=8):
    """A copy of precomputed/ whose lesson.toml is SMALL_LESSON (its c13.json is then stale)."""
    folder = tmp_path / "precomputed"
    shutil.copytree(ROOT / "precomputed", folder, ignore=shutil.ignore_patterns("measured.json"))
    (folder / "lesson.toml").write_text(SMALL_LESSON.format(greedy=greedy), encoding="utf-8")
    return folder


def greedy_tokens(folder):
    return json.loads((folder / "c13.json").read_text(encoding="utf-8"))["greedy"]["n_new"]


@pytest.mark.slow("the preview server started, with its rebuilds")
def test_every_regeneration_reads_the_settings_as_they_are_on_disk(tmp_path):
    """The settings are read once per process (generator/data/settings.py): a long-lived preview that regenerated in
    its own process would write the second change's hashes over the first change's figures, and `make check` would
    call it fresh. Each regeneration runs in a process of its own."""
    folder = small_precomputed(tmp_path, greedy=8)
    lesson = folder / "lesson.toml"
    said = []
    watcher = watch.DataWatcher(MODELS, folder, log=said.append)
    assert "precomputed/lesson.toml" in watcher.check_once()
    assert said[-1] == "preview: regenerated c13.json; the pages rebuild", said
    assert greedy_tokens(folder) == 8

    lesson.write_text(SMALL_LESSON.format(greedy=6), encoding="utf-8")
    assert watcher.check_once() == ["precomputed/lesson.toml"] and said[-1].startswith("preview: regenerated"), said
    assert greedy_tokens(folder) == 6

    lesson.write_text(SMALL_LESSON.format(greedy=0), encoding="utf-8")  # refused by the child, in its own words
    watcher.check_once()
    assert "regeneration failed, the pages keep the last good data" in said[-1], said
    assert "lesson.toml: greedy.new_tokens: must be a whole number from 1" in said[-1]
    assert "Traceback" not in said[-1] and greedy_tokens(folder) == 6
    count = len(said)
    watcher.check_once()
    assert len(said) == count, "a failed regeneration is not retried until its inputs change"

    lesson.write_text(SMALL_LESSON.format(greedy=7), encoding="utf-8")  # the same file again: retried
    assert watcher.check_once() == ["precomputed/lesson.toml"] and said[-1].startswith("preview: regenerated"), said
    check = subprocess.run([sys.executable, "-m", "generator", "check", "--precomputed", str(folder)], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert check.returncode == 0 and "is fresh" in check.stdout, check.stderr
    assert greedy_tokens(folder) == 7


def children(pid, name):
    """The live child processes of pid whose command line holds `name` (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid and fields[0] != "Z" and name in command:
            found.append(int(stat.parent.name))
    return found


def alive(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


SAID_BROKEN = "the pages show this message until the file is regenerated"  # generator/watch.py, on a refused file


@pytest.mark.slow("the preview server started, with its rebuilds")
def test_a_broken_c13_json_shows_in_the_page_and_ctrl_c_ends_a_regeneration(tmp_path):
    """A hand-edited c13.json under a running preview: every page says so (in Chinese, naming the file and
    `make data`) instead of leaving page loads waiting; the fixed file brings the page back. Ctrl-C while the
    preview regenerates ends the regeneration too, and the preview process never imports the settings."""
    folder = small_precomputed(tmp_path)
    port = free_port()
    log = tmp_path / "preview.log"
    with log.open("w") as out:  # -X importtime: every module the preview process imports, in its output
        server = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "generator", "preview", "--port",
                                   str(port), "--precomputed", str(folder), "--quiet"], cwd=ROOT, stdout=out,
                                  stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    url = f"http://127.0.0.1:{port}/index.html"
    lab = f"http://127.0.0.1:{port}/lab.html"
    try:
        assert 'id="exp-e5"' in wait_for(url, lambda page: 'id="exp-e5"' in page, seconds=180)
        assert 'id="exp-e6"' in wait_for(lab, lambda page: 'id="exp-e6"' in page, seconds=60)
        data = folder / "c13.json"
        good = data.read_bytes()
        edited = good.replace(b'"c_definition": "weights', b'"c_definition": "Weights', 1)
        assert edited != good
        data.write_bytes(edited)
        for at in (url, lab):  # every page says so
            page = wait_for(at, lambda page: "c13-preview-error" in page, seconds=120)
            assert "数据文件 <code>c13.json</code>" in page and "<code>make data</code>" in page
            assert f"{data}: digest: does not match the content" in page
        # and the console, once its watcher has looked (every 2 s, reading every input: slow on a loaded machine)
        end = time.monotonic() + 120
        while SAID_BROKEN not in log.read_text(encoding="utf-8", errors="replace") and time.monotonic() < end:
            time.sleep(0.2)
        data.write_bytes(good)
        assert 'id="exp-e5"' in wait_for(url, lambda page: "c13-preview-error" not in page, seconds=120)
        assert 'id="exp-e6"' in wait_for(lab, lambda page: "c13-preview-error" not in page, seconds=120)

        (folder / "lesson.toml").write_text(SMALL_LESSON.format(greedy=6), encoding="utf-8")
        end = time.monotonic() + 60
        while not (running := children(server.pid, "generator data")) and time.monotonic() < end:
            time.sleep(0.1)
        assert running, "the preview started no regeneration in a process of its own"
        server.send_signal(signal.SIGINT)
        server.wait(timeout=60)
        assert not any(alive(pid) for pid in running), "the regeneration went on after the preview stopped"
        assert data.read_bytes() == good, "the regeneration was cut, and c13.json left as it was"
    finally:
        server.terminate()
        server.wait(timeout=60)
    output = log.read_text(encoding="utf-8", errors="replace")
    assert SAID_BROKEN in output
    assert "Traceback" not in output and "regeneration failed" not in output
    imported = re.findall(r"^import time:.*\|\s*(\S+)\s*$", output, re.M)
    assert "generator.data.provenance" in imported and "generator.pages.preview" in imported
    assert not [name for name in imported if name in ("generator.data.settings", "torch")], \
        "the preview process imports no setting and no torch: each regeneration reads them in a process of its own"


@pytest.mark.slow("the preview server started, with its rebuilds")
def test_a_broken_c13_json_fails_no_preview_build(tmp_path, monkeypatch):
    """The hooks as the preview runs them, with a c13.json truncated or not JSON at all: every page shows the box,
    and nothing raises (a raising hook leaves every page load of the preview waiting)."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import Files

    from generator.pages.preview import CONFIG
    good = (ROOT / "precomputed" / "c13.json").read_text(encoding="utf-8")
    monkeypatch.setenv("C13_PREVIEW", "1")
    for broken in (good[:len(good) // 2], "not JSON at all\n"):
        data = tmp_path / "c13.json"
        data.write_text(broken, encoding="utf-8")
        monkeypatch.setenv("C13_DATA", str(data))
        config = load_config(config_file=str(CONFIG), site_dir=str(tmp_path / "site"))
        hooks = config.plugins["generator/pages/hooks.py"]  # the module as MkDocs loads it, by its path
        config = config.plugins.on_config(config)
        files = config.plugins.on_files(Files([]), config=config)
        page = hooks.on_page_markdown("# 第 3 课\n", page=None, config=config, files=files)
        assert "c13-preview-error" in page and f"{data}:" in page
        assert "数据文件 <code>c13.json</code>" in page and "<code>make data</code>" in page


def test_a_second_preview_on_a_port_in_use_says_so_in_one_line(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = subprocess.run([sys.executable, "-m", "generator", "preview", "--port", str(port), "--precomputed",
                              str(tmp_path), "--quiet"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and run.stdout == "", run.stdout
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr
    assert f"error: port {port} on 127.0.0.1 is in use" in run.stderr and "--port" in run.stderr


def test_a_failed_regeneration_is_said_in_one_line_of_its_own():
    """The child's `error: …` line as it is, a crash as its last line and the place it names: never a traceback."""
    crash = ('Traceback (most recent call last):\n  File "/x/generator/data/runs.py", line 3, in run\n    x\n'
             "NameError: name 'x' is not defined\n")
    assert watch.child_message(crash, 1) == ("NameError: name 'x' is not defined "
                                           '(File "/x/generator/data/runs.py", line 3, in run)')
    assert watch.child_message("loading…\nerror: lesson.toml: k.max: must be a whole number\n", 2) == \
        "lesson.toml: k.max: must be a whole number"
    assert watch.child_message("", -15) == "it ended by signal 15"
