"""The measured costs (make measure → precomputed/measured.json) on the measurement lab's page (lab.html) in Chromium:
at 375 px the narrow drawings show, no text under 11 px and no tap target under 24 px, the table reachable in its
scroller; at 1280 px the wide drawings show and fit; in the dark palette the lines and points follow the theme's
colours."""
import pytest
from browserlib import PHONE, WIDE, opened
from legibility import small_targets, small_text

FIGURES = ("#mc-speedup", "#mc-verify")

SHOWN_JS = """(id) => {
  const box = (sel) => { const el = document.querySelector(sel); const r = el.getBoundingClientRect();
                         return getComputedStyle(el).display !== 'none' && r.width > 0 ? r.width : 0; };
  const column = document.querySelector('article').getBoundingClientRect().width;
  return {wide: box(id + ' .c13-duo-wide svg'), narrow: box(id + ' .c13-duo-narrow svg'), column};
}"""


@pytest.mark.slow("the lab's measured figures drawn in Chromium per palette and at 375 px")
@pytest.mark.parametrize("scheme", ("light", "dark"))
def test_the_measured_figures_read_on_a_phone(browser, served, scheme):
    with opened(browser, served + "lab.html", color_scheme=scheme, **PHONE) as (page, log):
        page.evaluate("document.fonts.ready")
        for fig in FIGURES:
            page.locator(fig).scroll_into_view_if_needed()
            shown = page.evaluate(SHOWN_JS, fig)
            assert shown["narrow"] > 0 and shown["wide"] == 0, f"{fig}: the narrow drawing is not the one shown: {shown}"
            assert shown["narrow"] <= shown["column"] + 0.5, f"{fig} overflows the column: {shown}"
            assert not small_text(page, fig), small_text(page, fig)
        page.click("#measured-costs ~ details.c13-more > summary")
        for root in ("#measured-costs ~ details.c13-more",):
            problems = small_text(page, root) + small_targets(page, root)
            assert not problems, "\n".join(problems)
        # the table's scroller is reachable by keyboard and named
        scroller = page.locator("#measured-costs ~ details.c13-more .c13-scroll")
        assert scroller.get_attribute("tabindex") == "0" and scroller.get_attribute("aria-label")


def test_the_wide_drawings_show_on_a_desktop(browser, served):
    with opened(browser, served + "lab.html", viewport=WIDE) as (page, log):
        for fig in FIGURES:
            shown = page.evaluate(SHOWN_JS, fig)
            assert shown["wide"] > 0 and shown["narrow"] == 0, f"{fig}: {shown}"
            assert shown["wide"] <= shown["column"] + 0.5
            assert not small_text(page, fig), small_text(page, fig)


COLOURS_JS = """() => {
  const st = (sel, prop) => getComputedStyle(document.querySelector(sel))[prop];
  return {point: st('#mc-speedup-wide circle.c13-mc-point', 'fill'), text: st('article', 'color'),
          cost: st('#mc-speedup-wide polyline.c13-mc-cost', 'stroke'),
          lesson: st('#mc-speedup-wide polyline.c13-mc-lesson', 'stroke'),
          dash: st('#mc-speedup-wide polyline.c13-mc-lesson', 'strokeDasharray')};
}"""


@pytest.mark.slow("the lab's measured figures drawn in Chromium per palette and at 375 px")
def test_the_lines_and_points_follow_the_palette(browser, served):
    seen = {}
    for scheme in ("light", "dark"):
        with opened(browser, served + "lab.html", viewport=WIDE, color_scheme=scheme) as (page, log):
            seen[scheme] = page.evaluate(COLOURS_JS)
    for scheme, c in seen.items():
        assert c["point"] == c["text"], f"{scheme}: the measured points are not in the text colour: {c}"
        assert c["cost"] != c["lesson"] and c["dash"] not in ("none", ""), f"{scheme}: the two lines look alike: {c}"
    assert seen["light"]["point"] != seen["dark"]["point"], "the points keep the light palette in the dark one"
    assert seen["light"]["cost"] != seen["dark"]["cost"], "the measured-cost line keeps the light palette"
