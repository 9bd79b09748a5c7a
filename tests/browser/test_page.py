"""The lesson page (and, for its experiment, the measurement lab's) in the browser as a whole: each experiment starts
once, labels are text, no overflow on a phone, no serious accessibility violation in either palette, and the static
versions without JavaScript and from disk."""
import pytest

from browserlib import EXPERIMENT_PAGES, EXPERIMENTS, LAB_EXPERIMENTS, WIDE, from_disk, opened, run_main, wait_ready
from legibility import axe_serious


def test_every_experiment_renders_once(lesson, lab):
    for (page, _), experiments in ((lesson, EXPERIMENTS), (lab, LAB_EXPERIMENTS)):
        for e in experiments:
            assert page.get_attribute(f"#{e}", "data-c13-init") == "done", e
            assert page.locator(f"#{e} > .c13-live").count() == 1, f"{e} was initialised more than once"
            assert page.locator(f"#{e} .c13-live").first.is_visible()


@pytest.mark.slow("the whole pages checked in Chromium (axe, overflow, from disk, without JavaScript)")
def test_a_page_change_initialises_the_new_page_once_and_keeps_the_one_worker(browser, served):
    """What the theme's instant navigation would do: new content in place, then document$ emits it."""
    with opened(browser, served + "index.html", viewport=WIDE) as (page, log):
        page.locator("#e2 [role=tablist]").scroll_into_view_if_needed()
        wait_ready(page)
        workers = [u for u in log.requests if u.endswith("pyodide-worker.mjs")]
        assert len(workers) == 1
        page.evaluate("""async () => {
            const doc = new DOMParser().parseFromString(await (await fetch(location.href)).text(), 'text/html');
            document.querySelector('article').replaceWith(document.importNode(doc.querySelector('article'), true));
            document.getElementById('c13-widget-data').replaceWith(
                document.importNode(doc.getElementById('c13-widget-data'), true));
            window.document$.next(document);
        }""")
        page.wait_for_function("[...document.querySelectorAll('section.c13-exp')].every(s => s.dataset.c13Init === 'done')",
                               timeout=15_000)
        for e in EXPERIMENTS:
            assert page.locator(f"#{e} > .c13-live").count() == 1, e
        # the new E2 finds the tab's worker ready: no second worker, no second Pyodide
        assert page.get_attribute("#e2", "data-pyodide") == "ready"
        r = run_main(page, "correct", 10_000, 9)
        assert r["state"] == "done"
        assert [u for u in log.requests if u.endswith("pyodide-worker.mjs")] == workers
        assert len([u for u in log.requests if u.endswith("pyodide.asm.wasm")]) == 1


def test_token_labels_are_inserted_as_text(lesson, data):
    page, _ = lesson
    labels = data["tokenizer"]["labels"]
    shown = page.eval_on_selector_all("#e2 .c13-live .c13-tok, #e4 .c13-live .c13-tok", "els => els.map(e => e.textContent)")
    assert shown and all(s in labels for s in shown)
    # a label with markup characters would be text, never an element: no element inside a token box
    assert page.eval_on_selector_all(".c13-live .c13-tok", "els => els.filter(e => e.children.length).length") == 0


@pytest.mark.slow("the whole pages checked in Chromium (axe, overflow, from disk, without JavaScript)")
def test_no_horizontal_overflow_at_375px(phone):
    page, _ = phone
    page.locator("#e2 [role=tablist]").scroll_into_view_if_needed()  # E2 with Pyodide started, as a reader has it
    wait_ready(page)
    for e in ("#e1", "#e3", "#e4", "#e5"):
        page.locator(e).scroll_into_view_if_needed()
    page.click("#e4 .c13-e4-bar button >> nth=4")  # the whole replayed text
    widths = page.evaluate("""() => ({ doc: document.documentElement.scrollWidth, view: document.documentElement.clientWidth,
        body: document.body.scrollWidth, inner: window.innerWidth })""")
    assert widths["view"] == 375
    assert widths["doc"] <= widths["view"] and widths["body"] <= widths["view"], widths
    # nothing sticks out of the screen, except inside a box that scrolls on its own (wide tables)
    wide = page.evaluate("""() => {
        const scrolls = (el) => { for (let a = el.parentElement; a; a = a.parentElement) {
            if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(a).overflowX)) return true; } return false; };
        return [...document.querySelectorAll('.c13-exp *')].filter(el => {
            const r = el.getBoundingClientRect();
            return r.width > 0 && (r.right > document.documentElement.clientWidth + 1 || r.left < -1)
                && !el.closest('details:not([open])') && !scrolls(el);
        }).map(el => `${el.tagName}.${typeof el.className === 'string' ? el.className : el.className.baseVal}`).slice(0, 5); }""")
    assert not wide, f"elements stick out of a 375 px screen: {wide}"


@pytest.mark.slow("the whole pages checked in Chromium (axe, overflow, from disk, without JavaScript)")
def test_axe_finds_no_serious_or_critical_violation_light(lesson):
    page, _ = lesson
    page.click("#e2 [role=tab] >> nth=2")
    page.click("#e2 .c13-live .c13-term >> nth=0")  # an explanation open, a picture highlighted
    problems = axe_serious(page)
    assert not problems, "\n".join(problems)


@pytest.mark.slow("the whole pages checked in Chromium (axe, overflow, from disk, without JavaScript)")
def test_axe_finds_no_serious_or_critical_violation_dark(browser, served):
    with opened(browser, served + "index.html", viewport=WIDE, color_scheme="dark") as (page, log):
        assert page.get_attribute("body", "data-md-color-scheme") == "slate"
        page.click("#e1 g.c13-cell[data-cell=prefill] >> visible=true")
        page.click("#e4 .c13-e4-bar button >> nth=4")
        problems = axe_serious(page)
        assert not problems, "\n".join(problems)


@pytest.mark.slow("the whole pages checked in Chromium (axe, overflow, from disk, without JavaScript)")
def test_with_javascript_disabled_every_static_version_is_there(browser, served):
    for name, experiments in EXPERIMENT_PAGES.items():
        with opened(browser, served + name, java_script_enabled=False) as (page, log):
            for e in experiments:
                section = page.locator(f"#{e}")
                assert section.is_visible()
                assert page.locator(f"#{e} .c13-live").count() == 0
                assert page.locator(f"#{e} svg, #{e} table").count() >= 1, e
                assert page.locator(f"#{e} svg:visible, #{e} table:visible").count() >= 1, e
            assert not [u for u in log.requests if "pyodide" in u or u.endswith(".mjs")]


@pytest.mark.slow("the whole pages checked in Chromium (axe, overflow, from disk, without JavaScript)")
def test_from_disk_the_static_versions_and_the_notice_show_and_nothing_throws(browser, site):
    for name, experiments in EXPERIMENT_PAGES.items():
        with from_disk(browser, site, 500, name) as (page, requests, errors):
            shown = {"index.html": "e2", "lab.html": "e6"}[name]  # one experiment's notice on each page
            assert page.locator(f"#{shown} .c13-exp-notice").is_visible(), name
            assert "serve" in page.inner_text(f"#{shown} .c13-exp-notice"), name
            for e in experiments:
                assert page.locator(f"#{e} svg, #{e} table").count() >= 1, e
            assert not errors, f"{name}: {errors}"
            assert not [u for u in requests if "pyodide.asm" in u], "Pyodide must not start from file://"
