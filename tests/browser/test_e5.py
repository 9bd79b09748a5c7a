"""E5 in the browser: the sliders drive the closed form and its plot; the presets load the data's figures; the best
k is the same in plot, table and prose; the page reads at 375 px; the α-by-position picture names every token."""
import re

import pytest
from browserlib import PHONE, WIDE, opened
from legibility import small_targets, small_text

from generator.pages.context import e5_best


def fmt_trim(value, digits):
    return f"{value:.{digits}f}".rstrip("0").rstrip(".")


def deepseek_acceptance(data):
    entry = next(p for p in data["papers"] if p["id"] == "deepseekv3")
    return next(f for f in entry["figures"] if f["what"] == "acceptance of the second predicted token")


def pooled_best(draft_data, ks):
    """The best k recomputed from the counts: one α = all accepted ÷ all tested, the speedup formula over ks."""
    alpha = sum(r["accepted"] for r in draft_data["rows"]) / sum(r["positions_tested"] for r in draft_data["rows"])
    assert alpha == pytest.approx(draft_data["alpha"], rel=1e-12)
    return e5_best(alpha, draft_data["c"], ks)["k"]


def test_the_sliders_drive_the_formula(lesson):
    page, _ = lesson
    assert page.get_attribute("#e5", "data-c13-init") == "done"
    # α = 0.8, c = 0, k = 1 set by hand reads exactly 1.8
    for key, value in (("alpha", "0.8"), ("c", "0"), ("k", "1")):
        page.fill(f"#e5 input[type=range][id$='-{key}']", value)
    assert page.inner_text("#e5 output[id$='-yield']") == "1.8"
    assert page.inner_text("#e5 output[id$='-speedup']") == "1.80×"
    page.fill("#e5 input[type=range][id$='-k']", "4")
    assert page.inner_text("#e5 output[id$='-yield']") == fmt_trim((1 - 0.8 ** 5) / 0.2, 3)


def test_the_k_slider_and_the_plot_span_the_data_ks(lesson, data):
    page, _ = lesson
    ks = data["constants"]["ks"]
    slider = "#e5 input[type=range][id$='-k']"
    assert (page.get_attribute(slider, "min"), page.get_attribute(slider, "max")) == (str(min(ks)), str(max(ks)))
    # one formula mark per k and the ring of the current k, in each layout of the live plot
    for layout in ("wide", "narrow"):
        assert page.locator(f"#e5 .c13-live .c13-duo-{layout} svg circle").count() == len(ks) + 1


def test_the_deepseek_preset_is_the_figure_the_prose_shows(lesson, data):
    """Item 7: the preset's α is papers.json's DeepSeek-V3 acceptance, the figure the prose quotes."""
    page, _ = lesson
    fig = deepseek_acceptance(data)
    prose = page.inner_text("#formula-vs-runs ~ p:has-text('DeepSeek-V3 的 MTP')")
    assert f"{fig['low']:.0%}～{fig['high']:.0%}" in prose and f"{1 + fig['low']:.2f}" in prose
    page.click("#e5 button:has-text('DeepSeek-V3')")
    assert page.inner_text("#e5 output[id$='-alpha-out']") == fmt_trim(fig["low"], 3)
    assert page.inner_text("#e5 output[id$='-c-out']") == "0" and page.inner_text("#e5 output[id$='-k-out']") == "1"
    assert page.inner_text("#e5 output[id$='-yield']") == fmt_trim(1 + fig["low"], 3)
    note = page.inner_text("#e5 .c13-e5-note")
    assert f"{fig['low']:.0%}～{fig['high']:.0%}" in note and fmt_trim(1 + fig["high"], 3) in note


def test_the_best_k_is_the_same_in_plot_table_prose_and_live(lesson, data):
    """Item 8: one source (the formula with one pooled α per draft) names the best k everywhere."""
    page, _ = lesson
    acc, ks = data["accounting"]["drafts"], data["constants"]["ks"]
    small, large = data["constants"]["drafts"]
    prose = page.inner_text("#formula-vs-runs ~ p:has-text('代入各自的 α')")
    for j, draft in enumerate((small, large)):
        best = acc[draft]["best_k"]
        assert best == pooled_best(acc[draft], ks)
        # the static plot (both layouts) labels this draft's best k in its colour
        for layout in ("wide", "narrow"):
            label = page.text_content(f"#e5-plot .c13-duo-{layout} text.c13-series-text-{j}.c13-strong")
            assert label == f"最佳 k={best}"
        # the table's star: the row of that k, and only it
        table = page.locator("#e5 table").nth(j)
        starred = [row.locator("td").first.inner_text() for row in table.locator("tbody tr").all()
                   if "★" in row.inner_text()]
        assert starred == [str(best)]
        assert f"{'小草稿' if j == 0 else '大草稿'}在 k = {best} 时最快" in prose
        # the live plot after loading the draft
        page.click(f"#e5 button:has-text('{draft} 的实测')")
        assert page.get_attribute("#e5 .c13-live figure", "data-best-k") == str(best)
        assert f"最快的是 k = {best}" in page.inner_text("#e5 .c13-live figcaption")
        assert f"最佳 k={best}" in page.text_content("#e5 .c13-live .c13-duo-wide svg")
        assert f"公式最快的是 k = {best}" in page.inner_text("#e5 .c13-e5-note")
    # the spread of the per-k α is stated, from the data
    assert "各 k 的接受率在" in page.inner_text("#formula-vs-runs ~ p:has-text('α 取哪一个')")


def test_the_sliders_sentence_is_for_the_static_version_only(lesson, browser, served):
    """Item 9: "交互版里可以拖动…" is hidden once the widget runs, shown without JavaScript."""
    page, _ = lesson
    sentence = "#e5 .c13-static-only"
    assert "交互版里可以拖动" in page.text_content(sentence)
    assert not page.is_visible(sentence)
    with opened(browser, served + "index.html", viewport=WIDE, java_script_enabled=False) as (static, _):
        assert static.is_visible(sentence)


def test_the_try_list_asks_first_and_answers_from_the_data(lesson, data):
    """Item 12: a list of things to try, each with its answer folded, the answers recomputed here."""
    page, _ = lesson
    acc = data["accounting"]["drafts"]
    small, large = data["constants"]["drafts"]
    items = page.locator("#e5 > ol > li")
    assert items.count() >= 4
    for i in range(items.count()):
        assert items.nth(i).locator("details summary").count() == 1
    high = e5_best(0.8, acc[small]["c"], data["constants"]["ks"])
    assert f"最快的变成 k = {high['k']}（{high['speedup']:.2f}×）" in items.nth(0).text_content()
    free = e5_best(acc[small]["alpha"], 0, data["constants"]["ks"])
    assert free["k"] == max(data["constants"]["ks"]) and f"k = {free['k']}" in items.nth(1).text_content()
    assert f"α < {acc[large]['c']:.3f}" in items.nth(2).text_content()
    # the answer is folded until asked for
    assert not items.nth(0).locator("details p").is_visible()
    items.nth(0).locator("details summary").click()
    assert items.nth(0).locator("details p").is_visible()


def test_the_tables_fit_the_column_at_1280(lesson):
    """Item 19: each E5 table is no wider than the experiment's content box."""
    page, _ = lesson
    widths = page.evaluate("""() => { const s = document.querySelector('#e5'); const cs = getComputedStyle(s);
        const inner = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
        return [...s.querySelectorAll('table')].map(t => [t.getBoundingClientRect().width, inner]); }""")
    assert len(widths) == 2
    for table, inner in widths:
        assert table <= inner + 0.5, widths


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_e5_reads_on_a_phone(browser, served, scheme):
    """Item 16: at 375 px no text in #e5 under 11 px and no tap target under 24 px, live and after a preset."""
    with opened(browser, served + "index.html", color_scheme=scheme, **PHONE) as (page, _):
        if scheme == "dark":
            page.evaluate("document.body.setAttribute('data-md-color-scheme', 'slate')")
        assert small_text(page, "#e5") == [] and small_targets(page, "#e5") == []
        assert page.is_visible("#e5-plot .c13-duo-narrow svg") and not page.is_visible("#e5-plot .c13-duo-wide svg")
        page.click("#e5 .c13-e5-presets button >> nth=1")
        assert small_text(page, "#e5") == [] and small_targets(page, "#e5") == []
        assert small_text(page, ".c13-alpha-fig") == []


def test_alpha_by_position_names_every_token(lesson, data):
    """Item 14: the picture holds every position of both drafts, each with its token and α in its title; the table
    lists them too, one click (or Enter) away."""
    page, _ = lesson
    spread, labels = data["alpha_spread"], data["tokenizer"]["labels"]
    small, large = data["constants"]["drafts"]
    n = len(spread["tokens"])
    assert n == len(spread["drafts"][small]["values"]) == 128
    titles = page.eval_on_selector_all(".c13-alpha-fig .c13-duo-wide .c13-hits title", "ts => ts.map(t => t.textContent)")
    assert len(titles) == n
    per = spread["positions_per_prompt"]
    for i in (0, 37, n - 1):
        values = "，".join(f"{w} {spread['drafts'][d]['values'][i]:.1%}" for w, d in (("小", small), ("大", large)))
        assert titles[i] == f"第 {i % per + 1} 个 token：{labels[spread['tokens'][i]]}（{values}）"
    # the extremes the prose states are among the points
    prose = page.inner_text("#formula-vs-runs ~ p:has-text('逐位置算 α')")
    low = spread["drafts"][small]["min"]
    assert f"{low:.1%}" in prose and sum(f"小 {low:.1%}" in t for t in titles) >= 1
    # the table: reached by the keyboard, one row per position
    summary = page.locator("#formula-vs-runs ~ details:has(table.c13-alpha-table) > summary")
    summary.focus()
    page.keyboard.press("Enter")
    rows = page.locator("table.c13-alpha-table tbody tr:has(td)")
    assert rows.count() == n
    assert re.sub(r"\s", "", rows.nth(5).locator("td").nth(1).inner_text()) == re.sub(r"\s", "", labels[spread["tokens"][5]])
