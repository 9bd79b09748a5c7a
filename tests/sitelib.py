"""Helpers of the site tests: which c13.json they read, reading built pages, writing variants of the data."""
import html
import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path

from generator import contract

ROOT = Path(__file__).resolve().parent.parent
LESSON_SPEC = ROOT.parent / "shared" / "spec" / "LESSON.md"


def data_file():
    """$C13_DATA when set, else the committed precomputed/c13.json."""
    return Path(os.environ.get("C13_DATA") or ROOT / "precomputed" / "c13.json")


def quiet(*args, **kwargs):
    pass


def drafts_by_size(data):
    """c13.json's drafts from the fewest parameters to the most (c13.json → models): the page's 小草稿, 大草稿."""
    return sorted(data["constants"]["drafts"], key=lambda name: data["models"][name]["parameters"])


def write_data(path, data, sealed=True):
    """Write a variant of c13.json; sealed like the generator's output unless it plays a hand edit. E6's browser files
    are read beside it (browser.dir): the committed ones are linked there unless the folder already exists."""
    path.write_text(json.dumps(contract.seal(data) if sealed else data, ensure_ascii=False), encoding="utf-8")
    folder = (data.get("browser") or {}).get("dir") if isinstance(data, dict) else None
    if isinstance(folder, str) and folder and not (path.parent / folder).exists():
        (path.parent / folder).symlink_to(data_file().parent / folder, target_is_directory=True)
    return path


def read(path):
    return path.read_text(encoding="utf-8")


def page_text(path):
    """The visible text of a page (tags, scripts and styles removed, entities decoded)."""
    return visible_text(read(path))


def visible_text(markup):
    """The text of some HTML: tags, scripts and styles removed, entities decoded."""
    s = re.sub(r"<(script|style)\b.*?</\1>", " ", markup, flags=re.S)
    s = re.sub(r"<[^>]+>", " ", s)
    return html.unescape(s)


class Collect(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.refs, self.ids, self.anchors, self.stack = [], set(), [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        for key in ("href", "src"):
            if a.get(key):
                self.refs.append((tag, key, a[key]))
        if tag == "a":
            self.anchors.append([a.get("href"), ""])
            self.stack.append(len(self.anchors) - 1)

    def handle_endtag(self, tag):
        if tag == "a" and self.stack:
            self.stack.pop()

    def handle_data(self, d):
        for i in self.stack:
            self.anchors[i][1] += d


def parse(path):
    c = Collect()
    c.feed(read(path))
    return c


def our_pages(site):
    return sorted(site.glob("*.html"))


def widget_json(page):
    return re.search(r'<script type="application/json" id="c13-widget-data">(.*?)</script>', page, re.S).group(1)


def node_job(script, job, folder, timeout_s, needs=()):
    """Run `node SCRIPT JOB.json` from the repository root (the job written as JSON into folder) and return what it
    printed, parsed; fail the test naming what is missing (node, or a file of `needs`), a timeout or the exit."""
    import shutil
    import subprocess

    import pytest
    root = Path(__file__).resolve().parent.parent
    node = shutil.which("node")
    if node is None:
        pytest.fail("`node` is not on PATH: install Node.js 20, then run `npm ci`")
    for path in needs:
        if not Path(path).is_file():
            pytest.fail(f"{path} is missing (npm ci / make data)")
    path = Path(folder) / "job.json"
    path.write_text(json.dumps(job, ensure_ascii=False), encoding="utf-8")
    try:
        proc = subprocess.run([node, str(Path(script).relative_to(root)), str(path)], cwd=root, capture_output=True,
                              text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{Path(script).name} did not finish within {timeout_s} s")
    if proc.returncode != 0:
        pytest.fail(f"{Path(script).name} exited with {proc.returncode}:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout)
