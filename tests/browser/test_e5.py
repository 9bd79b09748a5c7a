"""E5 in the browser: the sliders drive the closed form and its plot; the presets load the data's figures; the best
k is the same in plot, table and prose; the page reads at 375 px; the α-by-position picture names every token."""
import json
import re
from pathlib import Path

import pytest
from browserlib import PHONE, UNMARKED_SPEEDS, WIDE, opened
from walklib import follow, speedup
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
    """The preset's α is papers.json's DeepSeek-V3 acceptance, the figure E5's fifth try quotes (its
    answer folded under it)."""
    page, _ = lesson
    fig = deepseek_acceptance(data)
    prose = page.text_content("#e5 ol > li:has-text('DeepSeek-V3 的情形')")
    assert f"下端 {fmt_trim(fig['low'], 2)}" in prose
    assert f"{1 + fig['low']:.2f}" in prose and f"{1 + fig['high']:.2f}" in prose
    page.click("#e5 button:has-text('DeepSeek-V3')")
    assert page.inner_text("#e5 output[id$='-alpha-out']") == fmt_trim(fig["low"], 3)
    assert page.inner_text("#e5 output[id$='-c-out']") == "0" and page.inner_text("#e5 output[id$='-k-out']") == "1"
    assert page.inner_text("#e5 output[id$='-yield']") == fmt_trim(1 + fig["low"], 3)
    note = page.inner_text("#e5 .c13-e5-note")
    assert f"{fig['low']:.0%}～{fig['high']:.0%}" in note and fmt_trim(1 + fig["high"], 3) in note


def test_the_best_k_is_the_same_in_plot_table_prose_and_live(lesson, data, small_draft, large_draft):
    """One source (the formula with one pooled α per draft) names the best k everywhere."""
    page, _ = lesson
    acc, ks = data["accounting"]["drafts"], data["constants"]["ks"]
    small, large = small_draft, large_draft
    prose = page.inner_text("#formula-vs-runs ~ p:has-text('时最快')")
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
        page.click(f"#e5 button:has-text('{draft}：实测 α')")
        assert page.get_attribute("#e5 .c13-live figure", "data-best-k") == str(best)
        assert f"最快的是 k = {best}" in page.inner_text("#e5 .c13-live figcaption")
        assert f"最佳 k={best}" in page.text_content("#e5 .c13-live .c13-duo-wide svg")
        assert f"公式最快的是 k = {best}" in page.inner_text("#e5 .c13-e5-note")
    # the spread of the per-k α is stated, from the data
    assert "各 k 的接受率在" in page.text_content("#formula-vs-runs ~ details:has-text('各 k 的接受率在')")


def test_the_sliders_sentence_is_for_the_static_version_only(lesson, browser, served):
    """The sentence "交互版里可以拖动…" is hidden once the widget runs, shown without JavaScript."""
    page, _ = lesson
    sentence = "#e5 .c13-static-only"
    assert "交互版里可以拖动" in page.text_content(sentence)
    assert not page.is_visible(sentence)
    with opened(browser, served + "index.html", viewport=WIDE, java_script_enabled=False) as (static, _):
        assert static.is_visible(sentence)


def test_the_tries_done_in_order_leave_the_state_each_answer_speaks_of(browser, served, data, small_draft):
    """The five tries done one after another as their text asks (walklib.follow: the presets, the sliders, «α 往下拖»
    until the speedup falls below 1×), nothing reset between them: after the second every k pays, so the fastest is
    the slider's top; after the third, α falls below 1× where its answer says (α < c, within a step of the slider)."""
    acc, ks = data["accounting"]["drafts"][small_draft], data["constants"]["ks"]
    with opened(browser, served + "index.html", viewport=WIDE) as (page, _):
        asked = [page.inner_text(f"#e5 > ol > li >> nth={i}") for i in range(5)]
        follow(page, asked[0])
        follow(page, asked[1])
        assert page.get_attribute("#e5 .c13-live figure", "data-best-k") == str(max(ks))
        follow(page, asked[2])
        alpha = float(page.input_value("#e5 input[type=range][id$='-alpha']"))
        assert speedup(page) < 1, f"the third try never falls below 1× (α down to {alpha}): it leaves c at 0?"
        assert acc["c"] - 0.02 <= alpha < acc["c"], (alpha, acc["c"])
        for i in (3, 4):
            assert follow(page, asked[i])


def test_the_try_list_asks_first_and_answers_from_the_data(lesson, data, small_draft, large_draft):
    """A list of things to try, each with its answer folded, the answers recomputed here."""
    page, _ = lesson
    acc = data["accounting"]["drafts"]
    small, large = small_draft, large_draft
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
    """Each E5 table is no wider than the experiment's content box."""
    page, _ = lesson
    widths = page.evaluate("""() => { const s = document.querySelector('#e5'); const cs = getComputedStyle(s);
        const inner = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
        return [...s.querySelectorAll('table')].map(t => [t.getBoundingClientRect().width, inner]); }""")
    assert len(widths) == 2
    for table, inner in widths:
        assert table <= inner + 0.5, widths


@pytest.mark.slow("E5 laid out and checked in Chromium at 375 px")
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_e5_reads_on_a_phone(browser, served, scheme):
    """At 375 px no text in #e5 under 11 px and no tap target under 24 px, live and after a preset."""
    with opened(browser, served + "index.html", color_scheme=scheme, **PHONE) as (page, _):
        if scheme == "dark":
            page.evaluate("document.body.setAttribute('data-md-color-scheme', 'slate')")
        assert small_text(page, "#e5") == [] and small_targets(page, "#e5") == []
        live = "#e5 .c13-live"
        assert page.is_visible(f"{live} .c13-duo-narrow svg") and not page.is_visible(f"{live} .c13-duo-wide svg")
        assert not page.is_visible("#e5-plot")  # the build-time plot folds away once the live one is drawn
        page.click("#e5 .c13-e5-presets button >> nth=1")
        assert small_text(page, "#e5") == [] and small_targets(page, "#e5") == []
        assert small_text(page, ".c13-alpha-fig") == []


def test_alpha_by_position_names_every_token(lesson, data, small_draft, large_draft):
    """The picture holds every position of both drafts, each with its token and α in its title; the table
    lists them too, one click (or Enter) away."""
    page, _ = lesson
    positions, labels = data["alpha_positions"], data["tokenizer"]["labels"]
    small, large = small_draft, large_draft
    n = len(positions["tokens"])
    assert n == len(positions["drafts"][small]["values"]) == 128
    titles = page.eval_on_selector_all(".c13-alpha-fig .c13-duo-wide .c13-hits title", "ts => ts.map(t => t.textContent)")
    assert len(titles) == n
    per = positions["positions_per_prompt"]
    for i in (0, 37, n - 1):
        values = "，".join(f"{w} {positions['drafts'][d]['values'][i]:.1%}" for w, d in (("小", small), ("大", large)))
        assert titles[i] == f"第 {i % per + 1} 个 token：{labels[positions['tokens'][i]]}（{values}）"
    # the extremes the prose states are among the points
    prose = page.inner_text("#formula-vs-runs ~ p:has-text('逐位置算 α')")
    low = positions["drafts"][small]["min"]
    assert f"{low:.1%}" in prose and sum(f"小 {low:.1%}" in t for t in titles) >= 1
    # the table: reached by the keyboard, one row per position
    summary = page.locator("#formula-vs-runs ~ details:has(table.c13-alpha-table) > summary")
    summary.focus()
    page.keyboard.press("Enter")
    rows = page.locator("table.c13-alpha-table tbody tr:has(td)")
    assert rows.count() == n
    assert re.sub(r"\s", "", rows.nth(5).locator("td").nth(1).inner_text()) == re.sub(r"\s", "", labels[positions["tokens"][5]])


def test_every_speed_e5_prints_live_says_it_is_the_lessons_formula(lesson, data):
    page, _ = lesson
    small = data["constants"]["drafts"][0]
    page.click(f"#e5 button:has-text('{small}：实测 α')")
    live = page.locator("#e5 .c13-live")
    assert live.evaluate(UNMARKED_SPEEDS) == []
    kinds = live.evaluate("root => [...root.querySelectorAll('[data-kind]')].map((e) => e.dataset.kind)")
    assert kinds and set(kinds) == {"formula"}
    assert page.locator("#e5 output[id$='-speedup']").evaluate("o => o.closest('[data-kind]').dataset.kind") == "formula"
    assert "c = 参数比" in page.inner_text(f"#e5 button:has-text('{small}：实测 α')")


# E5's choice of costs: the build machine's measured c and v(k) (precomputed/measured.json) in the formula
MEASURED_PATH = Path(__file__).resolve().parents[2] / "precomputed" / "measured.json"


def measured_costs():
    """measured.json's medians as E5 uses them, read here from the file: per engine c per draft, v(k) per k."""
    m = json.loads(MEASURED_PATH.read_text())
    torch = {"c": {d: s["median"] for d, s in m["forward"]["c"].items()},
             "v": {r["k"]: r["median"] for r in m["forward"]["v"]},
             "points": {d: {r["k"]: r["speedup"] for r in rows} for d, rows in m["speedup"]["drafts"].items()}}
    return m, {"torch": torch}


def formula(alpha, c, k, v):
    return sum(alpha ** i for i in range(k + 1)) / (k * c + v)


def choose_costs(page, key):
    page.check(f"#e5 input[type=radio][name$='-costs'][value='{key}']")
    assert page.get_attribute("#e5 .c13-live figure", "data-costs") == key


def test_measured_costs_move_the_curve(lesson, data):
    """Each choice of costs puts its c and v(k) into E[N] / (k·c + v(k)), recomputed here from
    measured.json and c13.json; torch draws the measured wall-clock speedups of the loaded draft; each speedup
    carries its kind."""
    if not MEASURED_PATH.exists():
        pytest.skip("no precomputed/measured.json")
    m, costs = measured_costs()
    acc, ks = data["accounting"]["drafts"], data["constants"]["ks"]
    page, _ = lesson
    speed = "#e5 output[id$='-speedup']"
    for draft in data["constants"]["drafts"]:
        page.click(f"#e5 button:has-text('{draft}：实测 α')")
        alpha = acc[draft]["alpha"]
        for key in ("torch",):
            choose_costs(page, key)
            c, v = costs[key]["c"][draft], costs[key]["v"]
            assert page.is_disabled("#e5 input[type=range][id$='-c']")
            assert page.inner_text("#e5 output[id$='-c-out']") == fmt_trim(c, 3)
            for k in (ks[0], ks[-1]):
                page.fill("#e5 input[type=range][id$='-k']", str(k))
                assert float(page.get_attribute(speed, "data-value")) == pytest.approx(formula(alpha, c, k, v[k]), rel=1e-12)
                assert page.inner_text(speed) == f"{formula(alpha, c, k, v[k]):.2f}×"
                assert page.locator(speed).evaluate("o => o.closest('[data-kind]').dataset.kind") == "formula-measured"
            values = {kk: formula(alpha, c, kk, v[kk]) for kk in ks}
            best = max(ks, key=lambda kk: (values[kk], -kk))
            assert page.get_attribute("#e5 .c13-live figure", "data-best-k") == str(best)
            desc = page.text_content("#e5 .c13-live .c13-duo-wide svg desc")
            assert f"k = {ks[-1]}：{values[ks[-1]]:.2f}×" in desc
            squares = page.locator("#e5 .c13-live .c13-duo-wide svg g.c13-measured")
            note = page.inner_text("#e5 .c13-e5-note")
            if key == "torch":
                # the build machine's wall-clock medians of this draft, one square per k, the current k's in the note
                assert squares.count() == len(costs["torch"]["points"][draft])
                wall = costs["torch"]["points"][draft][ks[-1]]
                assert f"{wall['median']:.2f}×" in note
                kinds = page.locator("#e5 .c13-e5-note [data-kind]").evaluate_all("es => es.map((e) => e.dataset.kind)")
                assert kinds == ["wall-clock"]
                assert m["machine"]["cpu"] in page.get_attribute("#e5 .c13-e5-note [data-kind]", "title")
            else:
                assert squares.count() == 0
            assert page.get_attribute("#e5 .c13-live .c13-duo", "data-kind") == "formula-measured wall-clock"
            assert page.locator("#e5 .c13-live").evaluate(UNMARKED_SPEEDS) == []
        # back to the lesson's costs: the slider's c and v = 1 again
        choose_costs(page, "lesson")
        assert not page.is_disabled("#e5 input[type=range][id$='-c']")
        k = int(page.inner_text("#e5 output[id$='-k-out']"))
        assert float(page.get_attribute(speed, "data-value")) == pytest.approx(formula(alpha, acc[draft]["c"], k, 1), rel=1e-12)
        assert page.locator(speed).evaluate("o => o.closest('[data-kind]').dataset.kind") == "formula"


def test_the_choice_of_costs_by_keyboard_and_a_hand_moved_alpha(lesson, data):
    """The choice is a radio group reached by the keyboard; α moved by hand keeps the last draft's c, without the
    measured points; DeepSeek-V3's preset goes back to the lesson's costs."""
    if not MEASURED_PATH.exists():
        pytest.skip("no precomputed/measured.json")
    _, costs = measured_costs()
    page, _ = lesson
    small = data["constants"]["drafts"][0]
    page.click(f"#e5 button:has-text('{small}：实测 α')")
    choose_costs(page, "lesson")
    page.focus("#e5 input[type=radio][name$='-costs'][value='lesson']")
    page.keyboard.press("ArrowDown")
    assert page.get_attribute("#e5 .c13-live figure", "data-costs") == "torch"
    assert page.evaluate("document.activeElement.value") == "torch"
    page.fill("#e5 input[type=range][id$='-alpha']", "0.9")
    page.fill("#e5 input[type=range][id$='-k']", "3")
    c, v = costs["torch"]["c"][small], costs["torch"]["v"]
    assert float(page.get_attribute("#e5 output[id$='-speedup']", "data-value")) == pytest.approx(formula(0.9, c, 3, v[3]), rel=1e-12)
    assert page.locator("#e5 .c13-live .c13-duo-wide svg g.c13-measured").count() == 0
    page.click("#e5 button:has-text('DeepSeek-V3')")
    assert page.get_attribute("#e5 .c13-live figure", "data-costs") == "lesson"
    assert page.is_checked("#e5 input[type=radio][name$='-costs'][value='lesson']")


def test_the_choices_of_costs_are_the_lessons_against_the_measured(lesson):
    """E6 runs on the measurement lab's page (lab.html), not beside E5: E5 offers exactly the lesson's costs and the
    build machine's PyTorch (E6's WebAssembly costs stay on the lab's page), each enabled with measured.json, and no "your machine"
    (你的机器), neither live nor in the static version's words; an E6 report dispatched on this page (the event E5
    once listened to, c13:e6-measured) changes nothing."""
    page, _ = lesson
    radios = page.locator("#e5 fieldset.c13-e5-costs input[type=radio][name$='-costs']")
    assert radios.evaluate_all("es => es.map((e) => e.value)") == ["lesson", "torch"]
    if MEASURED_PATH.exists():
        assert radios.evaluate_all("es => es.map((e) => e.disabled)") == [False, False]
        assert page.is_hidden("#e5 .c13-e5-costs-why")
    assert "你的机器" not in page.text_content("#e5")
    static = page.locator("#e5 .c13-static-only").all_text_contents()
    assert static and not [t for t in static if "E6" in t], static
    choose_costs(page, "lesson")
    before = page.inner_html("#e5 .c13-live")
    page.evaluate("""() => document.dispatchEvent(new CustomEvent("c13:e6-measured", { detail: { draft: "x", k: 2,
        c: 0.5, v: 1.5, kernel: "wasm-simd128", speedupModel: { median: 1.1, min: 1.0, max: 1.2 } } }))""")
    assert page.locator("#e5 fieldset.c13-e5-costs input[type=radio]").count() == 2
    assert page.inner_html("#e5 .c13-live") == before
