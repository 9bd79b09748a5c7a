"""自己动手：任意的 p 和 q — the editable pair in the browser. Editing a bar (keys or a pointer drag) changes p and the
picture at once, green + blue filling p to the pixel; every preset and an edited pair get the α, Σ p·q and closed-form
TV that sampler.py computes in CPython; the address carries the pair; "Run 10,000" is CPython's run, count for count;
the live first picture is the build-time one; axe, overflow and legibility at 375 px in both palettes."""
import json
from urllib.parse import unquote

import pytest
from browserlib import PHONE, WIDE, dataset, focused, opened, sampler
from legibility import axe_serious, small_targets, small_text
from test_static_live import normalise

PYODIDE_MS = 180_000
# a crowded test machine loads Pyodide slowly but steadily: the tests give the loading watchdog more room
PATIENT = ("document.addEventListener('DOMContentLoaded', () => { "
           "document.documentElement.dataset.c13StallMs = '240000'; })")


@pytest.fixture(scope="module")
def wide(browser, served):
    with opened(browser, served + "index.html", viewport=WIDE) as (page, log):
        page.add_init_script(PATIENT)
        page.reload()
        page.wait_for_function("document.documentElement.dataset.c13Widgets === 'ready'", timeout=15_000)
        page.locator("#pair").scroll_into_view_if_needed()
        yield page


def config(page):
    return json.loads(page.eval_on_selector("#pair script.c13-pair-data", "n => n.textContent"))


def units(page, which):
    return page.eval_on_selector_all(f"#pair .c13-pair-row[data-which={which}] .c13-pair-bar",
                                     "bars => bars.map(b => Number(b.dataset.units))")


def picture_parts(page):
    """Per column of the live wide picture: the green and blue heights in px, and the px of one unit of probability
    read off the picture's own axis (its grid lines and their percentage labels)."""
    return page.evaluate("""() => {
        const svg = document.querySelector('#pair .c13-pair-picture .c13-duo-wide svg');
        const grid = [...svg.querySelectorAll(':scope > line.c13-grid')].map((l) => ({
            y: l.getBoundingClientRect().top, value: parseFloat(l.nextElementSibling.textContent) / 100 }));
        const [low, high] = [grid[0], grid[grid.length - 1]];
        const perUnit = (low.y - high.y) / (high.value - low.value);
        const h = (g, cls) => { const r = g.querySelector(cls); return r ? r.getBoundingClientRect().height : 0; };
        return { perUnit, columns: [...svg.querySelectorAll('g.c13-col')].map((g) => ({ token: g.dataset.token,
            green: h(g, 'rect.c13-shared'), blue: h(g, 'rect.c13-resid-bar'), red: h(g, 'rect.c13-excess-bar') })) };
    }""")


def assert_picture_is(page, p_units, q_units, unit):
    drawn = picture_parts(page)
    assert [c["token"] for c in drawn["columns"]] == [str(i) for i in range(len(p_units))]
    for column, p, q in zip(drawn["columns"], p_units, q_units):
        assert abs(column["green"] + column["blue"] - p / unit * drawn["perUnit"]) <= 1, column
        assert abs(column["green"] + column["red"] - q / unit * drawn["perUnit"]) <= 1, column


def sampler_numbers(p_units, q_units, unit):
    pair = sampler.Pair([v / unit for v in p_units], [v / unit for v in q_units])
    return {"alpha": pair.alpha, "sum_pq": pair.sum_pq, "tv": sampler.resample_p_tv(pair.p, pair.q)}


def shown_numbers(page):
    """The stats line's numbers once sampler.py in Pyodide has computed them for the pair shown now."""
    page.wait_for_function("document.querySelector('#pair .c13-pair-stats').dataset.source === 'sampler'",
                           timeout=PYODIDE_MS)
    d = dataset(page, "#pair .c13-pair-stats")
    return {"alpha": float(d["alpha"]), "sum_pq": float(d["sumPq"]), "tv": float(d["tv"])}


def test_keyboard_editing_a_bar_changes_p_and_the_picture_fills_p(wide):
    page = wide
    c = config(page)
    page.click("#pair .c13-pair-preset[data-preset=flat]")
    before = units(page, "p")
    page.focus("#pair .c13-pair-row[data-which=p] .c13-pair-bar >> nth=2")
    for _ in range(5):
        page.keyboard.press("ArrowUp")
    page.keyboard.press("PageUp")
    after = units(page, "p")
    assert after[2] == before[2] + 150 and sum(after) == c["unit"]
    assert all(a < b for i, (a, b) in enumerate(zip(after, before)) if i != 2)  # the others shrank to make room
    assert focused(page)["role"] == "slider"
    assert float(page.get_attribute("#pair .c13-pair-row[data-which=p] .c13-pair-bar >> nth=2", "aria-valuenow")) == \
        after[2] / 10
    assert_picture_is(page, after, units(page, "q"), c["unit"])
    assert page.get_attribute("#pair .c13-pair-preset[data-preset=flat]", "aria-pressed") == "false"


@pytest.mark.slow("the editable pair in Chromium: dragged, edited, laid out at 375 px or run by Pyodide")
def test_dragging_a_bar_sets_it_to_the_pointer_and_the_picture_follows(wide):
    page = wide
    c = config(page)
    page.click("#pair .c13-pair-preset[data-preset=same]")
    track = page.locator("#pair .c13-pair-row[data-which=p] .c13-pair-bar >> nth=4").locator(".c13-pair-track")
    box = track.bounding_box()
    x = box["x"] + box["width"] / 2
    page.mouse.move(x, box["y"] + box["height"] * 0.9)
    page.mouse.down()
    page.mouse.move(x, box["y"] + box["height"] * 0.6, steps=4)
    page.mouse.move(x, box["y"] + box["height"] * 0.5, steps=4)
    page.mouse.up()
    p = units(page, "p")
    assert abs(p[4] - c["unit"] / 2) <= 10 and sum(p) == c["unit"], p
    assert_picture_is(page, p, units(page, "q"), c["unit"])
    assert focused(page)["role"] == "slider"


@pytest.mark.slow("the editable pair in Chromium: dragged, edited, laid out at 375 px or run by Pyodide")
def test_each_preset_and_an_edited_pair_get_sampler_py_numbers(wide):
    page = wide
    c = config(page)
    for preset in c["presets"]:
        page.click(f"#pair .c13-pair-preset[data-preset={preset['id']}]")
        assert page.get_attribute(f"#pair .c13-pair-preset[data-preset={preset['id']}]", "aria-pressed") == "true"
        assert units(page, "p") == preset["p_units"] and units(page, "q") == preset["q_units"]
        assert shown_numbers(page) == sampler_numbers(preset["p_units"], preset["q_units"], c["unit"]), preset["id"]
        assert_picture_is(page, preset["p_units"], preset["q_units"], c["unit"])
    page.focus("#pair .c13-pair-row[data-which=q] .c13-pair-bar >> nth=0")
    page.keyboard.press("PageDown")
    page.keyboard.press("ArrowDown")
    assert shown_numbers(page) == sampler_numbers(units(page, "p"), units(page, "q"), c["unit"])


def test_run_10000_is_cpythons_run_of_the_pair(wide):
    page = wide
    c = config(page)
    page.click("#pair .c13-pair-preset[data-preset=q-zero]")
    page.select_option("#pair select.c13-pair-scheme", "correct")
    page.fill("#pair input.c13-seed", "20261130")
    page.click("#pair .c13-pair-run")
    page.wait_for_function("['done', 'failed'].includes(document.querySelector('#pair [data-run=pair]').dataset.state)",
                           timeout=PYODIDE_MS)
    d = dataset(page, "#pair [data-run=pair]")
    assert d["state"] == "done", page.inner_text("#pair .c13-run")
    pair = sampler.Pair([v / c["unit"] for v in units(page, "p")], [v / c["unit"] for v in units(page, "q")])
    result = sampler.run(pair, c["run_size"], 20261130, "correct")
    assert page.inner_text("#pair .c13-pair-run") == f"跑 {c['run_size']:,} 轮"
    assert f"再跑 {c['run_size']:,} 轮" in page.text_content("#pair")  # the prose names the run the button makes
    assert json.loads(d["counts"]) == result["counts"]
    assert float(d["tv"]) == sampler.summary(result, pair)["tv"]
    assert page.locator("#pair .c13-run .c13-hist svg").count() == 2  # the histogram over p, both layouts


@pytest.mark.slow("the editable pair in Chromium: dragged, edited, laid out at 375 px or run by Pyodide")
def test_the_address_carries_the_pair_and_reads_it_back(browser, served, wide):
    page = wide
    c = config(page)
    page.click("#pair .c13-pair-preset[data-preset=disjoint]")
    page.focus("#pair .c13-pair-row[data-which=q] .c13-pair-bar >> nth=1")
    for key in ("PageUp", "ArrowUp", "ArrowUp"):
        page.keyboard.press(key)
    pair = {"p": units(page, "p"), "q": units(page, "q")}
    fragment = page.evaluate("location.hash")
    assert unquote(fragment).startswith("#pair=p:")
    with opened(browser, served + "index.html" + fragment, viewport=WIDE) as (other, _):
        assert {"p": units(other, "p"), "q": units(other, "q")} == pair
        assert other.evaluate("location.hash") == fragment
        assert other.get_attribute("#pair", "data-pair") == page.get_attribute("#pair", "data-pair")
        # pasting another address into the same tab shows its pair
        other.evaluate("location.hash = '#pair=p:1,1,1,1,1,1;q:0,0,0,0,0,5'")
        other.wait_for_function("document.querySelector('#pair').dataset.pair.endsWith('q:0,0,0,0,0,100')")
        assert units(other, "p") == [167, 167, 167, 167, 166, 166] and sum(units(other, "q")) == c["unit"]
    with opened(browser, served + "index.html#pair=p:1,2;q:x", viewport=WIDE) as (bad, _):
        default = next(p for p in c["presets"] if p["id"] == c["default"])
        assert units(bad, "p") == default["p_units"]
        assert "#pair=" in bad.inner_text("#pair .c13-pair-note")


@pytest.mark.slow("the editable pair in Chromium: dragged, edited, laid out at 375 px or run by Pyodide")
def test_the_live_first_picture_is_the_build_time_one(browser, served, wide):
    c = config(wide)
    index = [p["id"] for p in c["presets"]].index(c["default"])
    with opened(browser, served + "index.html", viewport=WIDE, java_script_enabled=False) as (page, _):
        static = page.eval_on_selector(f"#pair-stack-{index}", "n => n.outerHTML")
    with opened(browser, served + "index.html", viewport=WIDE) as (page, _):
        live = page.eval_on_selector("#pair .c13-pair-picture .c13-duo", "n => n.outerHTML")
    assert len(static) > 500 and normalise(live) == normalise(static)


@pytest.mark.slow("the editable pair in Chromium: dragged, edited, laid out at 375 px or run by Pyodide")
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_on_a_phone_it_fits_reads_and_passes_axe(browser, served, scheme):
    with opened(browser, served + "index.html", color_scheme=scheme, **PHONE) as (page, _):
        page.locator("#pair").scroll_into_view_if_needed()
        page.focus("#pair .c13-pair-row[data-which=p] .c13-pair-bar >> nth=0")
        page.keyboard.press("ArrowUp")
        assert not small_text(page, "#pair .c13-live"), small_text(page, "#pair .c13-live")
        assert not small_targets(page, "#pair .c13-live"), small_targets(page, "#pair .c13-live")
        widths = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert widths[0] <= widths[1] == 375, widths
        outside = page.evaluate("""() => [...document.querySelectorAll('#pair .c13-live *')].filter((el) => {
            const r = el.getBoundingClientRect(); return r.width > 0 && (r.right > 376 || r.left < -1); }).length""")
        assert outside == 0
        problems = axe_serious(page, "#pair")
        assert not problems, "\n".join(problems)
