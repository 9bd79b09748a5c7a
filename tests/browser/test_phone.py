"""Every page (the lesson, its measurement lab, provenance) at desktop and phone widths, light and dark: axe with no
exclusions, legibility of the whole article, every sideways-scrolling box reachable by keyboard and named, display
formulas that fit a phone, prose tables that fit the column, and the JavaScript-off line of each experiment."""

import pytest
from browserlib import EXPERIMENT_PAGES, PHONE, WIDE, opened
from legibility import axe_serious, small_targets, small_text

PAGES = ("index.html", "lab.html", "provenance.html")
WIDTHS = {"1280": {"viewport": WIDE}, "375": PHONE}
SCHEMES = ("light", "dark")


def settle(page):
    """Fonts loaded and the helper's pass after the last layout change done."""
    page.evaluate("document.fonts.ready")
    page.wait_for_timeout(150)


@pytest.mark.slow("the whole lesson laid out and checked in Chromium at 375 px")
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", PAGES)
def test_axe_finds_no_serious_or_critical_violation(browser, served, name, width, scheme):
    with opened(browser, served + name, color_scheme=scheme, **WIDTHS[width]) as (page, log):
        assert page.get_attribute("body", "data-md-color-scheme") == ("slate" if scheme == "dark" else "default")
        settle(page)
        problems = axe_serious(page)
        assert not problems, f"{name} at {width} px, {scheme}:\n" + "\n".join(problems)


@pytest.mark.slow("the whole lesson laid out and checked in Chromium at 375 px")
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", PAGES)
def test_the_whole_article_is_legible(browser, served, name, width, scheme):
    """No text under 11 px (an SVG's at its size on screen) and no tap target under 24 × 24 px anywhere in the
    article, experiments included, on a phone and on a desktop (test_after_runs.py: the same after every run)."""
    with opened(browser, served + name, color_scheme=scheme, **WIDTHS[width]) as (page, log):
        settle(page)
        text, targets = small_text(page, "article"), small_targets(page, "article")
        assert not text and not targets, f"{name} at {width} px, {scheme}:\n" + "\n".join(text + targets)


@pytest.mark.slow("the whole lesson laid out and checked in Chromium at 375 px")
@pytest.mark.parametrize("name", PAGES)
def test_the_page_outside_the_experiments_is_legible_on_a_phone(browser, served, name):
    with opened(browser, served + name, **PHONE) as (page, log):
        settle(page)
        page.add_style_tag(content="section.c13-exp { display: none !important; }")
        text, targets = small_text(page, "article"), small_targets(page, "article")
        assert not text and not targets, f"{name}:\n" + "\n".join(text + targets)


SCROLLERS_JS = """() => [...document.querySelectorAll('article *')].filter(el => {
    const st = getComputedStyle(el);
    return ['auto', 'scroll'].includes(st.overflowX) && el.scrollWidth > el.clientWidth + 1
        && el.getBoundingClientRect().width > 0 && !el.closest('details:not([open])');
}).map((el, i) => { el.dataset.testScroller = i; return {
    i, what: el.className || el.tagName, tabIndex: el.tabIndex, role: el.getAttribute('role'),
    name: el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || '',
    focusableInside: !!el.querySelector('a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])') }; })"""


# pages whose every box fits a 375 px screen, folds open: the lab's one wide table (every draft and k) does
FITS_A_PHONE = {"lab.html"}


def open_folds(page):
    """Every fold of the article opened: the lab's wide table (every draft and k, measured) sits in one."""
    page.evaluate("document.querySelectorAll('article details').forEach((d) => { d.open = true; })")


@pytest.mark.slow("the whole lesson laid out and checked in Chromium at 375 px")
@pytest.mark.parametrize("name", PAGES)
def test_every_box_that_scrolls_sideways_on_a_phone_is_reachable_named_and_scrolls_by_keyboard(browser, served, name):
    with opened(browser, served + name, **PHONE) as (page, log):
        if name == "lab.html":
            open_folds(page)
        settle(page)
        boxes = page.evaluate(SCROLLERS_JS)
        if name in FITS_A_PHONE:  # its scrolling boxes need not scroll: each is still reachable and named
            assert boxes == [], f"{name}: {boxes}"
            regions = page.eval_on_selector_all("article .c13-scroll", "els => els.map((e) => [e.tabIndex, "
                                                "e.getAttribute('role'), e.getAttribute('aria-label') || ''])")
            assert regions and all(t == 0 and r == "region" and n.strip() for t, r, n in regions), regions
            return
        assert boxes, "nothing scrolls sideways at 375 px: the test would prove nothing"
        for box in boxes:
            if box["tabIndex"] < 0:
                assert box["focusableInside"], f"{name}: {box['what']} scrolls but the keyboard cannot reach it"
                continue
            assert box["name"].strip(), f"{name}: the scrolling {box['what']} has no accessible name"
            sel = f"[data-test-scroller='{box['i']}']"
            page.focus(sel)
            before = page.eval_on_selector(sel, "el => el.scrollLeft")
            page.keyboard.press("ArrowRight")
            page.wait_for_function(f"document.querySelector(\"{sel}\").scrollLeft > {before}", timeout=2_000)
            assert page.evaluate("document.activeElement.dataset.testScroller") == str(box["i"])


@pytest.mark.slow("the whole lesson laid out and checked in Chromium at 375 px")
def test_display_formulas_fit_a_phone_and_scripts_stay_legible(browser, served):
    with opened(browser, served + "index.html", **PHONE) as (page, log):
        settle(page)
        wide = page.eval_on_selector_all("article div.arithmatex", """els => els.filter(el =>
            el.scrollWidth > el.clientWidth + 1).map(el => el.textContent.trim().slice(0, 40))""")
        assert not wide, f"display formulas wider than a 375 px screen: {wide}"
        # made to fit by line breaks and a slightly smaller size, never below 11 px
        sizes = page.eval_on_selector_all("article .katex-display .katex-html *", """els => els
            .filter(el => el.childNodes.length === 1 && el.firstChild.nodeType === 3
                          && el.textContent.replace(/[\\s\\u200b]/g, '') && el.getBoundingClientRect().width >= 2)
            .map(el => parseFloat(getComputedStyle(el).fontSize))""")
        assert sizes and min(sizes) >= 11, f"a glyph of a display formula is drawn at {min(sizes):.1f} px"


# the prose tables each page has at least (the lab's one is the build machine's measured table, in a fold: opened)
PROSE_TABLES = {"index.html": 5, "lab.html": 1, "provenance.html": 5}


@pytest.mark.slow("the whole lesson laid out and checked in Chromium at 375 px")
@pytest.mark.parametrize("name", PAGES)
def test_prose_tables_fit_the_column_at_1280(browser, served, name):
    with opened(browser, served + name, viewport=WIDE) as (page, log):
        if name == "lab.html":
            open_folds(page)
        settle(page)
        wide = page.evaluate("""() => [...document.querySelectorAll('article table')]
            .filter(t => !t.closest('section.c13-exp'))
            .map(t => { const box = t.closest('.md-typeset__scrollwrap') || t.parentElement;
                        return [t.getBoundingClientRect().width, box.clientWidth,
                                (t.querySelector('th') || t).textContent.trim().slice(0, 20)]; })""")
        assert len(wide) >= PROSE_TABLES[name]
        over = [w for w in wide if w[0] > w[1] + 0.5]
        assert not over, f"{name}: tables wider than their column (table px, column px, first head): {over}"


@pytest.mark.slow("the whole lesson laid out and checked in Chromium at 375 px")
@pytest.mark.parametrize("name", EXPERIMENT_PAGES)
def test_with_javascript_off_each_experiment_says_it_runs_live_with_javascript(browser, served, name):
    with opened(browser, served + name, java_script_enabled=False, viewport=WIDE) as (page, log):
        for e in EXPERIMENT_PAGES[name]:
            line = page.locator(f"#{e} .c13-exp-noscript")
            assert line.count() == 1 and line.is_visible(), e
            assert "JavaScript" in line.inner_text() and "静态版本" in line.inner_text()
    with opened(browser, served + name, viewport=WIDE) as (page, log):
        assert page.locator(".c13-exp-noscript").count() == 0  # with JavaScript the line is not rendered
