"""Every speed on the built pages (the lesson, index.html, and its measurement lab, lab.html) says what it is, and
the sentences that cite a speed say what the data says.

A speed figure is a number followed by "×" (1.59×, 0.5–0.8×): each must sit inside an element that carries its
kind, data-kind = formula (the lesson's formula, v = 1), formula-measured (the formula with measured c and v(k)),
wall-clock (a measured wall clock) or reported (a paper's own figure), the names of generator/pages/formats.py
SPEED_KINDS; a figure that draws several kinds names them all on its wrapper. A shape such as "5 × 8" (spaces
around ×) is not a speed and is not matched. Every expected figure is recomputed here from c13.json and
measured.json, never typed.
"""
import html
import json
import math
import re
from html.parser import HTMLParser

import pytest

from generator.pages.formats import SPEED_KINDS, fixed, ms, times
from tests.sitelib import data_file, read

# "×" figures that are not speeds, each with its reason
NOT_SPEEDS = {
    "1×": "the baseline of not speculating (1× = 不投机), a reference line, not a figure that was computed or timed",
}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
SPEED = re.compile(r"(?<![\d.])\d[\d.,]*(?:–[\d.,]+)?×")


class Speeds(HTMLParser):
    """Each "×" figure of the article's text with the data-kind of its nearest marked ancestor (None if none)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.found, self.kinds = [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "data-kind" in a:
            self.kinds.append(a["data-kind"])
        if tag not in VOID:
            self.stack.append((tag, a))

    def handle_startendtag(self, tag, attrs):
        a = dict(attrs)
        if "data-kind" in a:
            self.kinds.append(a["data-kind"])

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, text):
        if any(tag in ("script", "style") for tag, _ in self.stack):
            return
        kind = next((a["data-kind"] for _, a in reversed(self.stack) if "data-kind" in a), None)
        for m in SPEED.finditer(text):
            self.found.append((m.group(0), kind, text[max(0, m.start() - 30):m.end() + 10]))


def article(page):
    return page[page.index("<article"):page.index("</article>")]


PAGES = ("index.html", "lab.html")  # the lesson, then the lab: the build machine's costs, the roofline and E6


@pytest.fixture(scope="module")
def page(site):
    return read(site / "index.html")


@pytest.fixture(scope="module")
def lab(site):
    return read(site / "lab.html")


@pytest.fixture(scope="module")
def articles(page, lab):
    """The article of each page, by name."""
    return {"index.html": article(page), "lab.html": article(lab)}


@pytest.fixture(scope="module")
def measured():
    path = data_file().parent / "measured.json"
    assert path.is_file(), f"{path} is missing: make it with `make measure`"
    return json.loads(path.read_text(encoding="utf-8"))


def speeds(markup):
    parser = Speeds()
    parser.feed(markup)
    return parser


def test_every_speed_figure_on_the_page_carries_its_kind(articles):
    figures, named = 0, set()
    for name, markup in articles.items():
        found = speeds(markup)
        figures += len(found.found)
        unmarked = [(figure, where) for figure, kind, where in found.found if kind is None and figure not in NOT_SPEEDS]
        assert not unmarked, f"{name}: speed figures without data-kind:\n" + "\n".join(
            f"{f}: …{w}…" for f, w in unmarked)
        named |= {k for value in found.kinds for k in value.split()}
    assert figures > 100  # the tables, the figures and the prose
    # every kind named on the pages is one of the four, and each of the four is used
    assert named == set(SPEED_KINDS), named


def test_the_check_finds_an_unmarked_speed():
    assert [f for f, kind, _ in speeds('<p>快了 <b>1.59×</b>，<span data-kind="formula">0.82×</span></p>').found
            if kind is None] == ["1.59×"]


def spans(markup, kind=None):
    """(kind, title, text) of each speed span in markup."""
    out = [(k, html.unescape(t), html.unescape(x)) for k, t, x in
           re.findall(r'<span class="c13-speed" data-kind="([^"]+)" title="([^"]*)">([^<]*)</span>', markup)]
    return [s for s in out if kind is None or s[0] == kind]


def test_the_build_machines_speeds_name_the_machine_the_engine_and_the_date(articles, measured):
    machine = measured["machine"]
    both = "".join(articles.values())
    clock = spans(both, "wall-clock")
    costs = spans(both, "formula-measured")
    assert clock and costs
    for kind, title, text in clock + costs:
        assert machine["cpu"] in title and machine["torch_version"] in title, (kind, title)
    for _, title, _ in clock:
        assert machine["date_utc"][:10] in title
    for _, title, _ in spans(both, "formula"):
        assert title.startswith(SPEED_KINDS["formula"])


def section(page, start, end=r"<section\b|<h[23]\b"):
    i = page.index(start)
    return page[i:re.compile(end).search(page, i + len(start)).start()]


def test_each_table_marks_its_columns_with_their_kind(page, lab, data, measured):
    # E5: both speedup columns are the lesson's formula, the second with the measured N; the tables' box says so
    e5 = re.search(r'<section\b[^>]*\bid="e5".*?</section>', page, re.S).group(0)
    box = re.search(r'<div class="c13-e5-tables" data-kind="formula">(.*?)</div>', e5, re.S).group(1)
    tables = re.findall(r"<table>.*?</table>", box, re.S)
    assert len(tables) == len(data["constants"]["drafts"])
    for table in tables:
        assert "加速（公式，代入实测 N）" in table and "加速（实测）" not in table
    assert re.search(r'<div class="c13-duo[^"]*" data-kind="formula" id="e5-plot">', page)
    # the measured table (the lab's): the lesson's formula, the formula with measured costs, the wall clock and its
    # spread; each speedup column's heading says in its title where its figures come from
    machine = measured["machine"]
    measured_part = section(lab, '<h2 id="measured-costs">')
    table = re.search(r'<table class="c13-measured-table">.*?</table>', measured_part, re.S).group(0)
    heads = [(html.unescape(t), html.unescape(h)) for t, h in
             re.findall(r'<th scope="col"(?: title="([^"]*)")?>(.*?)</th>', table)]
    assert [h for _, h in heads[2:]] == ["课上公式（c = 参数比，v = 1）", "公式代入实测的 c、v(k)", "实测墙钟（中位数）",
                                         "墙钟最小–最大"]
    assert heads[2][0].startswith(SPEED_KINDS["formula"]) and machine["cpu"] in heads[3][0]
    assert all(machine["date_utc"][:10] in t for t, _ in heads[4:])
    rows = re.findall(r"<tr><td>.*?</tr>", table)
    assert len(rows) == sum(len(measured["speedup"]["drafts"][d]) for d in measured["drafts"])
    for row in rows:
        assert re.findall(r'<td data-kind="([^"]+)">', row) == ["formula", "formula-measured", "wall-clock", "wall-clock"]
    assert re.search(r'data-kind="formula formula-measured wall-clock" id="mc-speedup"', measured_part)
    # the papers' figures are their authors'
    papers = section(page, '<h2 id="papers">', r"<h2\b")
    assert spans(papers) and {k for k, _, _ in spans(papers)} == {"reported"}


def test_each_wall_clock_figure_is_one_that_was_timed(articles, measured):
    """A figure marked wall-clock on the pages is one of measured.json's medians (or a min–max), never a formula."""
    timed = {times(r["speedup"][key]) for d in measured["drafts"] for r in measured["speedup"]["drafts"][d]
             for key in ("median", "max")}
    lab = articles["lab.html"]
    shown = re.sub(r'<div class="c13-words".*?</div>\s*</div>\s*(?=</section>)', "", lab, flags=re.S)
    assert shown != lab, "E6's words (filled in the browser, tests/browser/test_e6_words.py) not found"
    shown += articles["index.html"]
    marked = [html.unescape(re.sub(r"<[^>]+>", "", m)) for m in
              re.findall(r'data-kind="wall-clock"[^>]*>(.*?)</(?:span|td)>', shown)]
    assert len(marked) > 2 * len(timed) // 2
    for text in marked:
        assert text.split("–")[-1] in timed, text


def flat_text(site):
    """The pages' visible text (the lesson's, then the lab's) with inline tags removed in place (a marked figure reads
    as its sentence does)."""
    s = " ".join(re.sub(r"<(script|style)\b.*?</\1>", " ", read(site / name), flags=re.S) for name in PAGES)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", s)))


def build_machine_summary(measured):
    rows = [(d, r["k"], r["speedup"]["median"]) for d in measured["drafts"] for r in measured["speedup"]["drafts"][d]]
    best = max(rows, key=lambda r: r[2])
    return rows, sum(1 for r in rows if r[2] < 1), best


def test_the_measurements_the_prose_cites_are_the_ones_timed(site, page_ctx, data, measured, small_draft,
                                                              large_draft):
    """The build machine's wall clocks the prose cites (the papers' comparison, misconception two, the evolution map,
    the measured costs' paragraph) are blanks the page names (generator/pages/blanks.py): each recomputed here from
    measured.json and c13.json, and each shown on the page as its format prints it. No sentence is pinned:
    reword one and this still holds."""
    text = flat_text(site)
    acc = data["accounting"]["drafts"]
    small, large = small_draft, large_draft
    k_max = max(data["constants"]["ks"])
    timed = {(d, r["k"]): r["speedup"]["median"] for d in measured["drafts"] for r in measured["speedup"]["drafts"][d]}
    rows, below, best = build_machine_summary(measured)
    c = page_ctx
    expected = {"timed_rows": len(rows), "timed_below_one": below, "timed_max": best[2], "timed_best_k": best[1],
                "timed_best_role": c["roles"][best[0]], "wall_large_max": timed[(large, k_max)],
                "wall_small_best": timed[(small, acc[small]["best_k"])]}
    assert {name: c[name] for name in expected} == expected
    assert c["measured"]["summary"]["all_below_one"] == (below == len(rows))
    for name in ("timed_max", "wall_large_max", "wall_small_best"):
        assert times(c[name]) in text, name
    large_at_max = next(r for r in acc[large]["rows"] if r["k"] == k_max)
    assert c["row_l_max"] is large_at_max and times(large_at_max["speedup"]) in text
    assert times(acc[small]["best_speedup"]) in text
    assert "逼出它的数字" not in text  # the evolution map says what its numbers are, never that they drove history


def test_the_slips_are_corrected_from_the_data(site, page_ctx, data, measured, small_draft, large_draft):
    """Figures an earlier page got wrong, recomputed here and compared with the blanks that print them."""
    text = flat_text(site)
    c = page_ctx
    # TV against n: the fall over two decades, small n and large n, from the recorded points
    curve = data["tv_curve"]

    def mean(scheme, i):
        runs = curve["tv"][scheme]
        return math.exp(sum(math.log(seed[i]) for seed in runs) / len(runs))

    ns = curve["ns"]
    for name, (a, b) in {"large_n": (-3, -1), "small_n": (0, 2)}.items():
        fall = c["tv_fall"][name]
        assert (fall["n_from"], fall["n_to"]) == (ns[a], ns[b])
        assert fall["direct"] == pytest.approx(mean("direct", a) / mean("direct", b), rel=1e-12)
        assert fall["correct"] == pytest.approx(mean("correct", a) / mean("correct", b), rel=1e-12)
        assert fall["sqrt_n_grew"] == pytest.approx((ns[b] / ns[a]) ** 0.5, rel=1e-12)
        assert f"{fixed(fall['direct'], 1)} 倍" in text and f"{fixed(fall['correct'], 1)} 倍" in text
    assert "n 每大 100 倍，TV 小 10 倍" not in text
    # the caption names the band it draws: the exact mean absolute deviation of De Moivre
    assert "De Moivre" in text
    # c: the median of per-sample ratios, with the ratio of the medians beside it
    target = measured["models"][measured["target"]]["ms_per_forward"]["median"]
    quotients = [measured["models"][d]["ms_per_forward"]["median"] / target for d in (small_draft, large_draft)]
    assert [c["timed_c"]["small"], c["timed_c"]["large"]] == pytest.approx(quotients, rel=1e-12)
    assert all(fixed(q, 2) in text for q in quotients)
    # v at the anchor: an estimate from two lower bounds, not a bound
    anchor = data["anchor"]
    v = (anchor["weight_read_ms_per_token"] + anchor["compute_ms_for_positions"]) / anchor["weight_read_ms_per_token"]
    assert c["v_anchor"] == pytest.approx(v, rel=1e-12) and f"≈ {fixed(v, 2)}" in text
    assert "v 也不超过" not in text
    # where speculation pays, from the roofline: the anchor's read bound
    assert ms(anchor["weight_read_ms_per_token"]) in text
    # the measured table's columns say which speedups are predicted: test_each_table_marks_its_columns_with_their_kind
