"""`make preview` (issue 26): the lesson served on 127.0.0.1 with live reload. A template error shows in the page,
naming the file and the line, instead of leaving page loads waiting; saving the fix brings the page back; and
c13.json is regenerated when its inputs change while the preview runs. The server runs on a copy of docs/."""
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from generator import cli
from tests.conftest import ROOT


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


def test_a_template_error_shows_in_the_page_and_the_fix_brings_it_back(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs)
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "generator", "preview", "--port", str(port), "--docs", str(docs),
                               "--quiet"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}/index.html"
    try:
        first = wait_for(url, lambda page: 'id="exp-e6"' in page)
        assert "c13-preview-error" not in first

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
        assert 'id="exp-e6"' in fixed
    finally:
        server.terminate()
        output = server.communicate(timeout=60)[0]
    assert f"http://127.0.0.1:{port}/" in output


def test_the_watcher_regenerates_c13_json_when_an_input_changes(tmp_path):
    folder = tmp_path / "precomputed"
    shutil.copytree(ROOT / "precomputed", folder, ignore=shutil.ignore_patterns("measured.json"))
    said, made = [], []
    watcher = cli.DataWatcher(ROOT / "models", folder, log=said.append, regenerate=lambda: made.append(1))
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
    watcher = cli.DataWatcher(ROOT / "models", folder, log=said.append, regenerate=lambda: made.append(1))
    changed = watcher.check_once()
    assert made == [] and data.read_text(encoding="utf-8") == edited
    assert len(said) == 1 and "edited by hand" in said[0] and "make data" in said[0] and "c13.json" in said[0]
    assert watcher.check_once() == changed and len(said) == 1, "the refusal is said once, not every two seconds"
    with pytest.raises(cli.InputError, match="edited by hand"):
        cli.fresh_data(ROOT / "models", folder, log=said.append)
