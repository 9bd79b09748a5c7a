"""Every experiment in its after-run state, at 1280 px and at 375 px, light and dark, E1–E5 on the
lesson page and E6 on the measurement lab's: each one run or operated as a reader would, then the whole article
measured — no text drawn under 11 px (an SVG's text at
its size on screen, after the drawing is scaled to the column), no tap target under 24 × 24 px — and axe run over
the whole page, the theme's markup included."""

import pytest
from browserlib import PHONE, WIDE, dataset, opened, run_main
from faultlib import RUN_TIMEOUT_MS, configure, settle_e6, start_e6
from legibility import axe_serious, small_targets, small_text

WIDTHS = {"1280": {"viewport": WIDE}, "375": PHONE}
DONE = "['done', 'failed', 'cancelled'].includes(document.querySelector('{}').dataset.state)"


def lesson_runs(page, data):
    """E1 a cell chosen, E2 10,000 rounds of the correct scheme, TV rerun to n = 10², the pair run, E3 at the
    largest k, E4 a step of the verify motion, E5 a preset: each waited for until it has finished."""
    page.click("#e1 g.c13-cell[data-cell=compute] >> visible=true")
    assert run_main(page, "correct", 10000, 7)["state"] == "done"
    page.select_option("#tv .c13-tv-live select", str(data["tv_curve"]["ns"][0]))
    page.click("#tv .c13-tv-live button.md-button >> nth=0")
    page.wait_for_function(DONE.format("#tv .c13-tv-summary"), timeout=RUN_TIMEOUT_MS)
    page.fill("#pair input.c13-seed", "11")
    page.click("#pair .c13-pair-run")
    page.wait_for_function(DONE.format("#pair [data-run=pair]"), timeout=RUN_TIMEOUT_MS)
    page.fill("#e3 input[type=range]", str(max(data["constants"]["ks"])))
    page.click("#e4 .c13-e4-bar button >> nth=4")
    page.click("#e5 .c13-e5-presets button >> nth=1")
    states = {"tv": dataset(page, "#tv .c13-tv-summary")["state"],
              "pair": dataset(page, "#pair [data-run=pair]")["state"]}
    assert set(states.values()) == {"done"}, states


def lab_runs(page, data):
    """E6 a sampled run, waited for until it has finished."""
    configure(page, temperature=1)
    start_e6(page)
    states = {"e6": settle_e6(page)["state"]}
    assert set(states.values()) == {"done"}, states


RUNS = {"index.html": lesson_runs, "lab.html": lab_runs}  # each page's experiments, run


def after_runs(page, data, name):
    RUNS[name](page, data)
    page.evaluate("document.fonts.ready")
    page.wait_for_timeout(200)


@pytest.mark.slow("every experiment run in Chromium, then axe at two widths and both palettes")
@pytest.mark.parametrize("scheme", ("light", "dark"))
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", RUNS)
def test_after_every_run_the_article_reads_and_passes_axe(browser, served, data, name, width, scheme):
    with opened(browser, served + name, color_scheme=scheme, **WIDTHS[width]) as (page, log):
        after_runs(page, data, name)
        text, targets = small_text(page, "article"), small_targets(page, "article")
        assert not text and not targets, f"{name} at {width} px, {scheme}:\n" + "\n".join(text + targets)
        problems = axe_serious(page)
        assert not problems, f"{name} at {width} px, {scheme}:\n" + "\n".join(problems)


@pytest.mark.slow("every experiment run in Chromium, then axe at two widths and both palettes")
@pytest.mark.parametrize("width", (1440, 1100, 1000, 800, 700, 600))
@pytest.mark.parametrize("name", RUNS)
def test_at_other_widths_no_figure_draws_text_under_11_px(browser, served, name, width):
    """Between the two measured widths the column changes (the side bars come and go): each figure shows the
    layout that keeps its text at 11 px at every one of them."""
    with opened(browser, served + name, viewport={"width": width, "height": 900}) as (page, log):
        page.evaluate("document.fonts.ready")
        page.wait_for_timeout(150)
        assert small_text(page, "article") == [], f"{name} at {width} px"
