"""TV against the number of draws, in Chromium: the figure's points sit where c13.json's tv_curve says (within a
pixel, wide and at 375 px), the live first state is the build-time figure, the browser's rerun through sampler.py
in Pyodide equals the offline points bit for bit, a rerun can be cancelled without losing the focus, and the
section reads at 375 px."""
import json
import math

import pytest
from browserlib import PHONE, PYODIDE_TIMEOUT_MS, WIDE, dataset, focused, opened
from legibility import small_targets, small_text
from test_static_live import normalise

RUN_TIMEOUT_MS = 4 * PYODIDE_TIMEOUT_MS

# each visible point's centre, the vertical grid line of each n and the horizontal one of each power of ten, on screen
GEOMETRY_JS = """() => {
  const svg = [...document.querySelectorAll('#tv-curve svg')].find((s) => s.getBoundingClientRect().width > 0);
  const centre = (el) => { const r = el.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; };
  return {
    layout: svg.id,
    points: [...svg.querySelectorAll('.c13-tv-point')].map((el) => ({ scheme: el.dataset.scheme,
      seed: Number(el.dataset.seed), n: Number(el.dataset.n), at: centre(el) })),
    xs: [...svg.querySelectorAll('line.c13-grid[data-n]')].map((el) => [Number(el.dataset.n), centre(el)[0]]),
    ys: [...svg.querySelectorAll('line.c13-grid[data-tv]')].map((el) => [Number(el.dataset.tv), centre(el)[1]]),
  };
}"""


def expected_points(curve):
    """(scheme, seed, n) → the TV the data gives that point."""
    return {(scheme, seed, n): curve["tv"][scheme][s][i] for scheme in curve["schemes"]
            for s, seed in enumerate(curve["seeds"][scheme]) for i, n in enumerate(curve["ns"])}


def check_geometry(page, curve):
    g = page.evaluate(GEOMETRY_JS)
    wanted = expected_points(curve)
    assert sorted((p["scheme"], p["seed"], p["n"]) for p in g["points"]) == sorted(wanted), g["layout"]
    xs = dict(g["xs"])
    (lo, y_lo), (hi, y_hi) = min(g["ys"]), max(g["ys"])
    assert hi / lo >= 100, "the y axis spans at least two powers of ten"
    for p in g["points"]:
        tv = wanted[(p["scheme"], p["seed"], p["n"])]
        y = y_lo + (math.log10(tv) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * (y_hi - y_lo)
        assert abs(p["at"][0] - xs[p["n"]]) <= 1, (g["layout"], p)
        assert abs(p["at"][1] - y) <= 1, (g["layout"], p, y)
    return g["layout"]


@pytest.mark.slow("the TV curve rerun by Pyodide in Chromium")
def test_the_points_are_where_the_data_says_wide_and_on_a_phone(browser, served, data):
    curve = data["tv_curve"]
    with opened(browser, served + "index.html", viewport=WIDE) as (page, _):
        assert check_geometry(page, curve) == "tv-curve-wide"
    with opened(browser, served + "index.html", **PHONE) as (page, _):
        assert check_geometry(page, curve) == "tv-curve-narrow"


@pytest.mark.slow("the TV curve rerun by Pyodide in Chromium")
def test_the_live_figure_is_the_build_time_figure(browser, served):
    with opened(browser, served + "index.html", viewport=WIDE, java_script_enabled=False) as (page, _):
        static = page.eval_on_selector("#tv-curve", "n => n.outerHTML")
    with opened(browser, served + "index.html", viewport=WIDE) as (page, _):
        assert page.eval_on_selector("#tv", "s => s.dataset.c13Init") == "done"
        live = page.eval_on_selector("#tv-curve", "n => n.outerHTML")
        assert page.locator("#tv .c13-tv-live button.md-button").first.is_visible()
    assert len(static) > 2000 and static.count("<svg") == 2
    assert normalise(live) == normalise(static)


def run_to(page, n):
    page.select_option("#tv .c13-tv-live select", str(n))
    page.click("#tv .c13-tv-live button.md-button >> nth=0")


@pytest.mark.slow("the TV curve rerun by Pyodide in Chromium")
def test_the_browser_rerun_equals_the_offline_points_bit_for_bit(browser, served, data):
    curve = data["tv_curve"]
    upto = curve["ns"][2]  # 10⁴: every scheme and seed at n = 10², 10³, 10⁴ (the same code path as 10⁶)
    with opened(browser, served + "index.html", viewport=WIDE) as (page, _):
        run_to(page, upto)
        page.wait_for_function("['done', 'failed', 'cancelled'].includes("
                               "document.querySelector('#tv .c13-tv-summary').dataset.state)", timeout=RUN_TIMEOUT_MS)
        d = dataset(page, "#tv .c13-tv-summary")
        assert d["state"] == "done", page.inner_text("#tv .c13-tv-live")
        live = json.loads(d["live"])
        count = 0
        for scheme in curve["schemes"]:
            for s in range(len(curve["seeds"][scheme])):
                for i, n in enumerate(curve["ns"]):
                    if n <= upto:
                        assert live[scheme][s][i] == curve["tv"][scheme][s][i], (scheme, s, n)  # the same double
                        count += 1
                    else:
                        assert live[scheme][s][i] is None
        assert int(d["points"]) == int(d["equal"]) == count
        assert "逐位相同" in page.inner_text("#tv .c13-tv-summary")
        rings = page.eval_on_selector_all("#tv-curve-wide .c13-tv-ring", "rs => rs.length")
        assert rings == count


@pytest.mark.slow("the TV curve rerun by Pyodide in Chromium")
def test_a_rerun_can_be_cancelled_and_the_focus_stays(browser, served, data):
    with opened(browser, served + "index.html", viewport=WIDE) as (page, _):
        page.focus("#tv .c13-tv-live button.md-button >> nth=0")
        page.select_option("#tv .c13-tv-live select", str(data["tv_curve"]["ns"][-1]))
        page.focus("#tv .c13-tv-live button.md-button >> nth=0")
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelector('#tv .c13-tv-summary').dataset.state === 'running'")
        assert page.get_attribute("#tv .c13-tv-live button.md-button >> nth=0", "aria-disabled") == "true"
        page.focus("#tv .c13-progress button")
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelector('#tv .c13-tv-summary').dataset.state === 'cancelled'",
                               timeout=PYODIDE_TIMEOUT_MS)
        assert focused(page)["tag"] != "BODY"
        assert page.get_attribute("#tv .c13-tv-live button.md-button >> nth=0", "aria-disabled") == "false"
        assert page.locator("#tv .c13-progress button").is_hidden()
        assert "已取消" in page.inner_text("#tv .c13-progress")


@pytest.mark.slow("the TV curve rerun by Pyodide in Chromium")
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_section_reads_at_375_px(browser, served, scheme):
    with opened(browser, served + "index.html", color_scheme=scheme, **PHONE) as (page, _):
        page.locator("#tv").scroll_into_view_if_needed()
        assert small_text(page, "#tv") == []
        assert small_targets(page, "#tv") == []
        overflow = page.evaluate("""() => [...document.querySelectorAll('#tv *')].filter((el) => {
            const r = el.getBoundingClientRect();
            return r.width > 0 && (r.right > document.documentElement.clientWidth + 1 || r.left < -1)
              && !el.closest('.c13-scroll, .katex-mathml') && !el.parentElement.closest('svg');
        }).map((el) => el.tagName + '.' + el.className)""")
        assert overflow == []
        # the marks take the theme's colours: a point of each scheme is visible against the page's background
        colours = page.evaluate("""() => { const svg = document.querySelector('#tv-curve-narrow');
            const bg = getComputedStyle(document.body).backgroundColor;
            return [...new Set([...svg.querySelectorAll('.c13-tv-point')].map((el) => el.dataset.scheme))].map((s) => {
              const el = svg.querySelector(`.c13-tv-point[data-scheme=${s}]`); const st = getComputedStyle(el);
              return [s, st.fill === 'none' ? st.stroke : st.fill, bg]; }); }""")
        for scheme_name, colour, bg in colours:
            assert colour != bg, (scheme_name, colour)
