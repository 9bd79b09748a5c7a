"""E2 as a reader works it: the status line's size, the keyboard focus through runs, the KaTeX formula and its
terms, the picture kept in view, what a switch of prefix or draft clears, the caption's x, the seed field, and every
text and control readable and hittable on a phone."""
import random

import pytest
from browserlib import (PHONE, PYODIDE_TIMEOUT_MS, dataset, focused, names, one_round_matches_sampler_py, opened, run_main,
                        wait_ready)
from legibility import small_targets, small_text

from generator.shared_sampler import sampler

TERMS = "ABCDEFGHI"


def fetched_files(site):
    """The files starting Pyodide fetches, as the built site holds them (the lock file is read, package.json not)."""
    vendor = site / "assets" / "vendor" / "pyodide"
    files = [p for p in vendor.iterdir() if p.is_file() and p.name != "package.json"]
    return files + [site / "assets" / "c13" / "sampler.py"]


@pytest.mark.slow("Chromium with Pyodide, a run of the experiment")
def test_the_status_line_says_the_real_size_of_what_is_fetched(lesson, site):
    page, log = lesson
    assert page.get_attribute("#e2", "data-pyodide") == "idle"
    total = sum(p.stat().st_size for p in fetched_files(site))
    text = page.inner_text("#e2 .c13-py")
    assert f"{total / 1e6:.1f} MB" in text and "10 MB" not in text, text
    page.locator("#e2 [role=tablist]").scroll_into_view_if_needed()
    wait_ready(page)
    # the stated size is the sum of the files the page really fetched
    got = {u.rsplit("/", 1)[-1] for u in log.requests if "/vendor/pyodide/" in u or u.endswith("/sampler.py")}
    assert got == {p.name for p in fetched_files(site)}, got


def press_and_keep_focus(page, selector, done_js):
    """Focus a control, press Enter, wait for done_js: the focus is still on the control, and Tab goes on from it."""
    page.focus(selector)
    page.keyboard.press("Enter")
    page.wait_for_function(done_js, timeout=PYODIDE_TIMEOUT_MS)
    same = page.evaluate("s => document.activeElement === document.querySelector(s)", selector)
    assert same, f"the focus left {selector} for {focused(page)}"
    page.keyboard.press("Tab")
    after = page.evaluate("""s => { const b = document.querySelector(s), a = document.activeElement;
        return !!a.closest('#e2') && !!(b.compareDocumentPosition(a) & Node.DOCUMENT_POSITION_FOLLOWING); }""", selector)
    assert after, f"Tab did not go on from {selector}: {focused(page)}"


@pytest.mark.slow("Chromium with Pyodide, a run of the experiment")
def test_buttons_that_turn_off_while_working_keep_the_keyboard_focus(browser, served):
    # a fresh page: the first runs are asked for while Pyodide is still loading
    with opened(browser, served + "index.html", **PHONE) as (page, _):
        page.focus("#e2 [role=tab] >> nth=0")
        page.keyboard.press("End")
        assert page.get_attribute("#e2", "data-pyodide") in ("idle", "loading")
        # 取消 by keyboard while the run waits for Python (on a loaded sampler the run ends in about 0.1 s, before a
        # key can reach 取消): the cancel button hides, the focus goes back to the run's button
        start = "#e2 .c13-repro-box .c13-seed-row button"
        page.focus(start)
        page.keyboard.press("Enter")
        page.focus("#e2 .c13-run:has([data-run=repro]) .c13-progress button")
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelector('#e2 [data-run=repro]').dataset.state === 'cancelled'")
        assert page.evaluate("s => document.activeElement === document.querySelector(s)", start), focused(page)
        one = "#e2 [role=tabpanel]:not([hidden]) .c13-buttons button"
        press_and_keep_focus(page, one, "document.querySelector('#e2 .c13-panel:not([hidden]) .c13-round').dataset.record")
        page.check("#e2 .c13-predict input[value=correct]")
        for n in (10_000, 100_000):
            press_and_keep_focus(page, f"#e2 button[data-n='{n}']",
                                 "document.querySelector('#e2 [data-run=main]').dataset.state === 'done'")
        press_and_keep_focus(page, "#e2 .c13-repro-box .c13-seed-row button",
                             "document.querySelector('#e2 [data-run=repro]').dataset.state === 'done'")


def highlights(page):
    """The highlighted part on the picture's svg of each layout (wide, narrow)."""
    return page.eval_on_selector_all("#e2 .c13-e2-picture svg", "ss => ss.map(s => s.getAttribute('data-hl'))")


def test_the_formula_is_katex_and_its_terms_are_keyboard_toggles(lesson):
    page, _ = lesson
    page.click("#e2 [role=tab] >> nth=2")
    # the page writes the proof's formulas once, in the prose: the live box holds a copy of each, and nothing else of
    # the page's marks its terms
    with_terms = """s => [...document.querySelectorAll(s)].filter(m => m.querySelector('.katex-html [data-term]')).length"""
    assert page.evaluate(with_terms, "article .arithmatex:not(#e2 *)") == 3
    assert page.evaluate(with_terms, "#e2 .arithmatex") == page.locator("#e2 .c13-live .c13-formula .katex").count() == 3
    terms = page.eval_on_selector_all("#e2 .c13-live .c13-term", """ts => ts.map(t => ({ term: t.dataset.term,
        role: t.getAttribute('role'), tab: t.tabIndex, inKatex: !!t.closest('.katex-html'),
        hidden: !!t.closest('[aria-hidden=true]') }))""")
    assert [t["term"] for t in terms] == list(TERMS)
    assert all(t["role"] == "button" and t["tab"] == 0 and t["inKatex"] and not t["hidden"] for t in terms), terms
    # no serif fallback of the old hand-typed formula
    assert page.locator("#e2 p.c13-formula").count() == 0
    first = page.eval_on_selector_all("#e2 .c13-term *", "es => [...new Set(es.filter(e => e.childElementCount === 0)"
                                      ".map(e => getComputedStyle(e).fontFamily.split(',')[0].trim()))]")
    assert first and all(f.startswith("KaTeX_") for f in first), first
    page.focus("#e2 .c13-term[data-term=A]")
    page.keyboard.press("Enter")
    assert page.get_attribute("#e2 .c13-term[data-term=A]", "aria-pressed") == "true"
    assert highlights(page) == ["shared", "shared"]
    # the explanation is the page's own entry of the proof's list, with the pair's α beside it
    explained = page.inner_text("#e2 .c13-term-explain")
    entry = page.evaluate("""() => { const dt = document.getElementById('proof-A');
        return [dt.innerText, dt.nextElementSibling.innerText]; }""")
    alpha = page.evaluate("document.querySelector('#e2 .c13-e2-stats').textContent.match(/α = Σ min\\(p, q\\) = ([\\d.]+%)/)[1]")
    assert explained.startswith("(A)") and all(part in explained for part in entry), (explained, entry)
    assert f"α = {alpha}" in explained, (explained, alpha)
    assert page.locator("#e2 .c13-term-explain [id]").count() == 0  # a copy: the page's ids stay the page's
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.term") == "B"
    page.keyboard.press("Space")
    assert highlights(page) == ["excess", "excess"]
    page.keyboard.press("Space")
    assert page.get_attribute("#e2 .c13-term[data-term=B]", "aria-pressed") == "false"
    assert highlights(page) == [None, None]


def picture_in_view(page):
    # the picture in the layout shown (the other one has no box)
    box = page.evaluate("""() => { const r = [...document.querySelectorAll('#e2 .c13-e2-picture svg')]
          .map(s => s.getBoundingClientRect()).find(b => b.height > 0);
        const header = document.querySelector('.md-header').getBoundingClientRect().bottom;
        return { top: r.top, bottom: r.bottom, header, height: innerHeight }; }""")
    return box["top"] >= box["header"] - 1 and box["bottom"] <= box["height"] + 1, box


def work_the_formula_and_the_runs(page):
    page.click("#e2 [role=tab] >> nth=2")
    for term in TERMS:
        page.click(f"#e2 .c13-term[data-term={term}]")
        ok, box = picture_in_view(page)
        assert ok, f"after pressing term {term} the picture is off screen: {box}"
    for selector in ("#e2 button[data-n='10000']", "#e2 .c13-repro-box select", "#e2 .c13-term[data-term=G]"):
        page.focus(selector)
        ok, box = picture_in_view(page)
        assert ok, f"with {selector} focused the picture is off screen: {box}"


def test_the_picture_stays_in_view_while_the_reader_works_the_formula_wide(lesson):
    work_the_formula_and_the_runs(lesson[0])


@pytest.mark.slow("Chromium with Pyodide, a run of the experiment")
def test_the_picture_stays_in_view_while_the_reader_works_the_formula_phone(browser, served):
    with opened(browser, served + "index.html", **PHONE) as (page, _):
        work_the_formula_and_the_runs(page)


def test_switching_prefix_or_draft_clears_what_belonged_to_the_old_choice(lesson, data):
    page, _ = lesson
    prefixes, drafts = names(data)
    page.click("#e2 [role=tab] >> nth=2")
    page.check(f"#e2 .c13-controls input[value='{prefixes[0]}']")
    run_main(page, "correct", 10_000, 8080)
    page.click("#e2 [role=tabpanel] >> nth=2 >> text=跑一轮")
    page.wait_for_function("document.querySelector('#e2 .c13-panel:not([hidden]) .c13-round').dataset.record")
    assert page.locator("#e2 [data-run=main] + figure .c13-duo").count() == 1
    for value in (drafts[1], prefixes[1]):
        page.check(f"#e2 .c13-controls input[value='{value}']")
        assert page.inner_text("#e2 [data-run=main]").strip() == ""
        assert page.locator("#e2 .c13-run figure svg").count() == 0, "an old histogram is still shown"
        assert "state" not in dataset(page, "#e2 [data-run=main]")
        assert page.inner_text("#e2 .c13-panel:not([hidden]) .c13-round").strip() == ""
        assert page.inner_text("#e2 .c13-panel:not([hidden]) .c13-tally").strip() == ""
    # a run that ends after a switch says whose it is (the switch comes at once, before the run can end)
    page.evaluate("""prefix => { document.querySelector("#e2 button[data-n='100000']").click();
        document.querySelector(`#e2 .c13-controls input[value='${prefix}']`).click(); }""", prefixes[0])
    page.wait_for_function("document.querySelector('#e2 [data-run=main]').dataset.state === 'done'",
                           timeout=PYODIDE_TIMEOUT_MS)
    assert dataset(page, "#e2 [data-run=main]").get("stale") == "true"
    assert f"属于之前的选择（前缀 {prefixes[1]}，" in page.inner_text("#e2 [data-run=main]")
    # Chinese sentences follow each other without a space (the feedback once read "✓ 对了。 TV 是…")
    assert "。 " not in page.inner_text("#e2 [data-run=main]")
    page.check(f"#e2 .c13-controls input[value='{drafts[0]}']")


def first_round_x(data, prefix, draft, seed):
    entry = data["distributions"][prefix]
    return sampler.one_round(sampler.Pair(entry["p"], entry["q"][draft]), random.Random(seed), "correct")["x"]


@pytest.mark.parametrize("shown", [True, False])
def test_the_caption_says_where_the_drafted_x_is(lesson, data, shown):
    page, _ = lesson
    prefixes, drafts = names(data)
    columns = int(page.get_attribute("#e2 .c13-e2-picture", "data-columns"))
    drawn = data["distributions"][prefixes[0]]["columns"][drafts[0]]["tokens"][:columns]
    seed = next(s for s in range(30_000, 40_000) if (first_round_x(data, prefixes[0], drafts[0], s) in drawn) == shown)
    record = one_round_matches_sampler_py(page, data, 2, "跑一轮", seed, "correct")
    label = data["tokenizer"]["labels"][record["x"]]
    caption = page.inner_text("#e2 .c13-e2-picture figcaption")
    marked = page.eval_on_selector_all("#e2 .c13-e2-picture svg", "ss => ss.map(s => [...s.querySelectorAll("
                                       "'.c13-col-x')].map(g => g.dataset.token))")
    if shown:  # marked in both layouts
        assert f"标着 x 的是最近一轮草稿抽到的 token「{label}」" in caption, caption
        assert marked == [[str(record["x"])]] * 2, marked
    else:
        assert f"x =「{label}」不在单独画出的 {columns} 个 token 里" in caption and "其余" in caption, caption
        assert "标着 x 的" not in caption and marked == [[], []], marked


def test_an_invalid_seed_is_replaced_and_the_page_says_so(lesson):
    page, _ = lesson
    page.click("#e2 [role=tab] >> nth=2")
    for typed in ("-5", "1.5", "99999999999"):
        page.fill("#e2 input.c13-seed", typed)
        page.click("#e2 [role=tabpanel] >> nth=2 >> text=跑一轮")
        page.wait_for_function("document.querySelector('#e2 .c13-panel:not([hidden]) .c13-round').dataset.record")
        used = page.get_attribute("#e2 .c13-panel:not([hidden]) .c13-round", "data-seed")
        note = page.inner_text("#e2 .c13-seed-note")
        assert f"「{typed}」" in note and f"随机种子 {used}" in note, note
        assert page.input_value("#e2 input.c13-seed") == used
        assert page.locator("#e2 .c13-seed-note").is_visible()
    page.fill("#e2 input.c13-seed", "12")
    page.click("#e2 [role=tabpanel] >> nth=2 >> text=跑一轮")
    page.wait_for_function("document.querySelector('#e2 .c13-panel:not([hidden]) .c13-round').dataset.seed === '12'")
    assert page.inner_text("#e2 .c13-seed-note") == ""


def test_the_prose_says_which_run_reproduces_the_offline_table(lesson, data):
    page, _ = lesson
    steps = page.inner_text("#e2 ~ ol")
    assert "按离线检验重跑" in steps and "同一量级" in steps and "逐位相同" in steps and f"{data['offline']['n']:,}" in steps, \
        steps
    assert "结果应当一致" not in steps
    prefixes, drafts = names(data)
    page.check(f"#e2 .c13-controls input[value='{prefixes[0]}']")
    page.check(f"#e2 .c13-controls input[value='{drafts[0]}']")
    r = run_main(page, "correct", 100_000, 2718)
    ref = data["offline"]["results"][prefixes[0]][drafts[0]]["correct"]
    assert r["seed"] != str(ref["seed"])
    assert "种子和次数都与这次不同" in page.inner_text("#e2 [data-run=main]")
    # ... and the button that does reproduce it says the seed and the size, and gives the offline TV exactly
    page.select_option("#e2 .c13-repro-box select", "correct")
    button = page.inner_text("#e2 .c13-repro-box .c13-seed-row button")
    assert f"种子 {ref['seed']}" in button and f"{ref['n']:,} 轮" in button


@pytest.mark.slow("Chromium with Pyodide, a run of the experiment")
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_on_a_phone_every_text_of_e2_is_readable_and_every_control_hittable(browser, served, scheme):
    """At 375 px no text of E2 is drawn under 11 px and no tap target is under 24 × 24 px: its pictures are redrawn
    one row per token, not shrunk. Before Python (the live picture and the folded static version), and after a
    round (the x marked), a highlighted term and a run of 10,000 (the histogram)."""
    with opened(browser, served + "index.html", color_scheme=scheme, **PHONE) as (page, _):
        assert page.get_attribute("#e2", "data-pyodide") == "idle"
        assert page.is_visible("#e2 .c13-e2-picture .c13-duo-narrow svg")
        assert not page.is_visible("#e2 .c13-e2-picture .c13-duo-wide svg")
        assert small_text(page, "#e2") == [] and small_targets(page, "#e2") == []
        page.click("#e2 [role=tab] >> nth=2")
        page.click("#e2 [role=tabpanel] >> nth=2 >> text=跑一轮")
        page.wait_for_function("document.querySelector('#e2 .c13-panel:not([hidden]) .c13-round').dataset.record",
                               timeout=PYODIDE_TIMEOUT_MS)
        page.click("#e2 .c13-term[data-term=C]")
        assert run_main(page, "correct", 10_000, 31)["state"] == "done"
        assert page.is_visible("#e2 [data-run=main] + figure .c13-duo-narrow svg .c13-emp")
        assert small_text(page, "#e2") == [] and small_targets(page, "#e2") == []
    # and the build-time version as a reader without JavaScript gets it
    with opened(browser, served + "index.html", color_scheme=scheme, java_script_enabled=False, **PHONE) as (page, _):
        assert page.is_visible("#e2-stack-0-0 .c13-duo-narrow svg")
        assert small_text(page, "#e2") == [] and small_targets(page, "#e2") == []
