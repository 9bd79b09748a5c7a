"""Every speed on the built page says what it is (issue 24, item 1), and the sentences the issue found wrong say
what the data says (item 4).

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


@pytest.fixture(scope="module")
def page(site):
    return read(site / "index.html")


@pytest.fixture(scope="module")
def measured():
    path = data_file().parent / "measured.json"
    assert path.is_file(), f"{path} is missing: make it with `make measure`"
    return json.loads(path.read_text(encoding="utf-8"))


def speeds(markup):
    parser = Speeds()
    parser.feed(markup)
    return parser


def test_every_speed_figure_on_the_page_carries_its_kind(page):
    found = speeds(article(page))
    assert len(found.found) > 100  # the tables, the figures and the prose
    unmarked = [(figure, where) for figure, kind, where in found.found if kind is None and figure not in NOT_SPEEDS]
    assert not unmarked, "speed figures without data-kind:\n" + "\n".join(f"{f}: …{w}…" for f, w in unmarked)
    # every kind named on the page is one of the four, and each of the four is used
    named = {k for value in found.kinds for k in value.split()}
    assert named == set(SPEED_KINDS), named


def test_the_check_finds_an_unmarked_speed():
    assert [f for f, kind, _ in speeds('<p>快了 <b>1.59×</b>，<span data-kind="formula">0.82×</span></p>').found
            if kind is None] == ["1.59×"]


def spans(markup, kind=None):
    """(kind, title, text) of each speed span in markup."""
    out = [(k, html.unescape(t), html.unescape(x)) for k, t, x in
           re.findall(r'<span class="c13-speed" data-kind="([^"]+)" title="([^"]*)">([^<]*)</span>', markup)]
    return [s for s in out if kind is None or s[0] == kind]


def test_the_build_machines_speeds_name_the_machine_the_engine_and_the_date(page, measured):
    machine = measured["machine"]
    clock = spans(article(page), "wall-clock")
    costs = spans(article(page), "formula-measured")
    assert clock and costs
    for kind, title, text in clock + costs:
        assert machine["cpu"] in title and machine["torch_version"] in title, (kind, title)
    for _, title, _ in clock:
        assert machine["date_utc"][:10] in title
    for _, title, _ in spans(article(page), "formula"):
        assert title.startswith(SPEED_KINDS["formula"])


def section(page, start, end=r"<section\b|<h[23]\b"):
    i = page.index(start)
    return page[i:re.compile(end).search(page, i + len(start)).start()]


def test_each_table_marks_its_columns_with_their_kind(page, data, measured):
    # E5: both speedup columns are the lesson's formula, the second with the measured N; the tables' box says so
    e5 = re.search(r'<section\b[^>]*\bid="e5".*?</section>', page, re.S).group(0)
    box = re.search(r'<div class="c13-e5-tables" data-kind="formula">(.*?)</div>', e5, re.S).group(1)
    tables = re.findall(r"<table>.*?</table>", box, re.S)
    assert len(tables) == len(data["constants"]["drafts"])
    for table in tables:
        assert "加速（公式，代入实测 N）" in table and "加速（实测）" not in table
    assert re.search(r'<div class="c13-duo[^"]*" data-kind="formula" id="e5-plot">', page)
    # the measured table: the lesson's formula, the formula with measured costs, the wall clock and its spread; each
    # speedup column's heading says in its title where its figures come from
    machine = measured["machine"]
    measured_part = section(page, '<h3 id="measured-costs">')
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


def test_each_wall_clock_figure_is_one_that_was_timed(page, measured):
    """A figure marked wall-clock on the page is one of measured.json's medians (or a min–max), never a formula."""
    timed = {times(r["speedup"][key]) for d in measured["drafts"] for r in measured["speedup"]["drafts"][d]
             for key in ("median", "max")}
    shown = re.sub(r'<div class="c13-words".*?</div>\s*</div>\s*(?=</section>)', "", article(page), flags=re.S)
    assert shown != article(page), "E6's words (filled in the browser, tests/browser/test_e6_words.py) not found"
    marked = [html.unescape(re.sub(r"<[^>]+>", "", m)) for m in
              re.findall(r'data-kind="wall-clock"[^>]*>(.*?)</(?:span|td)>', shown)]
    assert len(marked) > 2 * len(timed) // 2
    for text in marked:
        assert text.split("–")[-1] in timed, text


def flat_text(site):
    """The page's visible text with inline tags removed in place (a marked figure reads as its sentence does)."""
    s = re.sub(r"<(script|style)\b.*?</\1>", " ", read(site / "index.html"), flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", s)))


def build_machine_summary(measured):
    rows = [(d, r["k"], r["speedup"]["median"]) for d in measured["drafts"] for r in measured["speedup"]["drafts"][d]]
    best = max(rows, key=lambda r: r[2])
    return rows, sum(1 for r in rows if r[2] < 1), best


def test_the_sentences_that_cite_a_measurement_give_it(site, data, measured, small_draft, large_draft):
    text = flat_text(site)
    acc = data["accounting"]["drafts"]
    small, large = small_draft, large_draft
    k_max = max(data["constants"]["ks"])
    timed = {(d, r["k"]): r["speedup"]["median"] for d in measured["drafts"] for r in measured["speedup"]["drafts"][d]}
    rows, below, best = build_machine_summary(measured)
    names = {small: "小草稿", large: "大草稿"}
    # 三个证据问题: our own measurement beside the formula's best
    start = text.index("实验显示了什么？")
    evidence = text[start:text.index("一句话、停在哪", start)]
    assert f"按课上的公式最好是 {times(acc[small]['best_speedup'])}" in evidence
    count = "全部低于 1×" if below == len(rows) else f"里有 {below} 个低于 1×"
    assert f"{len(rows)} 个墙钟加速的中位数{count}，最好的是 {times(best[2])}（{names[best[0]]}，k = {best[1]}）" in evidence
    # 误区二: the formula at k_max, and what the build machine timed there
    myth = text[text.index("误区二"):text.index("误区三")]
    assert f"k = {k_max} 时大草稿的墙钟加速是 {times(timed[(large, k_max)])}，小草稿是 {times(timed[(small, k_max)])}" in myth
    # 它解决了什么: the formula's best k and the wall clock at that k
    solved = text[text.index("它解决了什么"):text.index("它卡在哪里")]
    k = acc[small]["best_k"]
    row = next(r for r in acc[small]["rows"] if r["k"] == k)
    assert f"课上的公式给出 {times(row['speedup'])}；同一个 k，构建机上 torch 实测的墙钟加速是 {times(timed[(small, k)])}" in solved
    # the evolution map says what its numbers are; the large draft's formula and its wall clock
    assert "逼出它的数字" not in text and "相关的数字" in text
    assert f"k = {k_max} 时只有 {times(next(r for r in acc[large]['rows'] if r['k'] == k_max)['speedup'])}，" \
           f"构建机上实测的墙钟加速是 {times(timed[(large, k_max)])}" in text
    # the measured costs' paragraph: the best wall clock, with its draft and k
    assert f"{times(best[2])}（{names[best[0]]}，k = {best[1]}）" in text[text.index("把实测的 c 和 v(k) 代进公式"):]


def test_the_slips_are_corrected_from_the_data(site, data, measured, small_draft, large_draft):
    text = flat_text(site)
    # TV against n: the fall over two decades, small n and large n, from the recorded points
    curve = data["tv_curve"]

    def mean(scheme, i):
        runs = curve["tv"][scheme]
        return math.exp(sum(math.log(seed[i]) for seed in runs) / len(runs))

    ns = curve["ns"]
    large = [mean(s, -3) / mean(s, -1) for s in ("direct", "correct")]
    small = [mean(s, 0) / mean(s, 2) for s in ("direct", "correct")]
    assert "n 每大 100 倍，TV 小 10 倍" not in text
    assert (f"n 从 {ns[-3]:,} 到 {ns[-1]:,}，大了 {ns[-1] / ns[-3]:,.0f} 倍，TV 按此应小 {fixed((ns[-1] / ns[-3]) ** 0.5, 1)} 倍；"
            f"直接抽样的 TV（各种子的几何平均）小了 {fixed(large[0], 1)} 倍，正确方案小了 {fixed(large[1], 1)} 倍") in text
    assert (f"从 {ns[0]:,} 到 {ns[2]:,}（大了 {ns[2] / ns[0]:,.0f} 倍），两者只小了 {fixed(small[0], 1)} 倍和 "
            f"{fixed(small[1], 1)} 倍") in text
    # the caption names the band it draws: the exact De Moivre mean, the approximation only for large n
    assert "灰带是噪声基准：直接从 p 抽 n 次时 TV 的期望，按二项分布平均绝对偏差的精确式（De Moivre）" in text
    # c: the median of per-sample ratios, not the ratio of the medians shown beside it
    target = measured["models"][measured["target"]]["ms_per_forward"]["median"]
    quotients = [measured["models"][d]["ms_per_forward"]["median"] / target for d in (small_draft, large_draft)]
    assert "c 取“草稿 ÷ 同一样本的目标”这个比值的中位数" in text
    assert f"那样算，小草稿是 {fixed(quotients[0], 2)}，大草稿是 {fixed(quotients[1], 2)}" in text
    # v at the anchor: an estimate from two lower bounds, not a bound
    anchor = data["anchor"]
    v = (anchor["weight_read_ms_per_token"] + anchor["compute_ms_for_positions"]) / anchor["weight_read_ms_per_token"]
    assert "v 也不超过" not in text
    assert f"≈ {fixed(v, 2)}。这是由两个下界算出的估计，不是上界" in text
    # where speculation pays: once, from the roofline, the anchor's gain said to be a prediction
    assert "为什么锚点赚" not in text and text.count("投机解码在哪里赚") == 1
    pays = text[text.index("投机解码在哪里赚"):]
    assert "受带宽所限的前向，赚" in pays and "受算力或调用开销所限的前向，不赚" in pays
    assert "这是屋顶线的预测" in pays and ms(anchor["weight_read_ms_per_token"]) in pays
    # the measured table's columns say which speedups are predicted: test_each_table_marks_its_columns_with_their_kind
