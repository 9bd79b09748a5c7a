"""The editable pair's edge cases (被拒从 p 重抽 on an edited pair, a p on
one token, #pair=… numbers the address must refuse), E6's temperature, the bytes a run really downloads and a
cold E6's Pyodide progress (E6 on the measurement lab's page, lab.html), and the dark palette at 1280 px (axe on E6
after a run, TV's noise band on the lesson page)."""
import pytest
from browserlib import WIDE, dataset, focused, opened
from faultlib import RUN_TIMEOUT_MS, configure, downloads, e6_payload, progress, settle_e6, start_e6

# ------------------------------------------------------------------------------------------------------------
# 4. the editable pair: 被拒从 p 重抽 on an edited pair, and a p on one token
# ------------------------------------------------------------------------------------------------------------

def run_pair(page, scheme, seed=20261201):
    page.select_option("#pair select.c13-pair-scheme", scheme)
    page.fill("#pair input.c13-seed", str(seed))
    page.click("#pair .c13-pair-run")
    page.wait_for_function("['done', 'failed', 'cancelled'].includes("
                           "document.querySelector('#pair [data-run=pair]').dataset.state)", timeout=RUN_TIMEOUT_MS)
    return dataset(page, "#pair [data-run=pair]")


@pytest.mark.slow("runs in Chromium on inputs a reader can give")
def test_resample_from_p_on_an_edited_pair_and_every_scheme_on_a_one_token_p_run(browser, served):
    with opened(browser, served + "index.html", viewport=WIDE) as (page, log):
        page.locator("#pair").scroll_into_view_if_needed()
        page.focus("#pair .c13-pair-row[data-which=p] .c13-pair-bar >> nth=1")
        page.keyboard.press("PageUp")  # an edited pair: no preset's numbers
        page.wait_for_function("document.querySelector('#pair .c13-pair-stats').dataset.source === 'sampler'",
                               timeout=RUN_TIMEOUT_MS)
        closed = float(page.get_attribute("#pair .c13-pair-stats", "data-tv"))
        d = run_pair(page, "resample_p")
        text = page.inner_text("#pair .c13-run")
        assert d["state"] == "done", text
        assert f"闭式 TV {closed:.4f}" in text, text
        # p on one token (End on a p bar, as the hint offers): every scheme runs, and says what the floor of 0 means
        page.focus("#pair .c13-pair-row[data-which=p] .c13-pair-bar >> nth=0")
        page.keyboard.press("End")
        for scheme in ("correct", "resample_p", "direct"):
            d = run_pair(page, scheme)
            text = page.inner_text("#pair .c13-run")
            assert d["state"] == "done", (scheme, text)
            assert float(d["tv"]) == 0.0 and float(d["noise"]) == 0.0 and "NaN" not in text, (scheme, text)
            assert "噪声基准是 0" in text, text


# ------------------------------------------------------------------------------------------------------------
# 6. what the page accepts: #pair=… only in plain decimals that cannot overflow; E6 only at T = 0 or T = 1
# ------------------------------------------------------------------------------------------------------------

@pytest.mark.slow("runs in Chromium on inputs a reader can give")
@pytest.mark.parametrize("fragment", ["pair=p:1e308,1e308,1,1,1,1;q:62,22,9,4,2,1",
                                      "pair=p:0x1e,25,18,12,9,6;q:62,22,9,4,2,1",
                                      "pair=p:30,25,18,12,9,6;q:Infinity,22,9,4,2,1"])
def test_an_address_pair_in_exponent_hex_or_overflowing_numbers_is_refused(browser, served, fragment):
    with opened(browser, served + "index.html", viewport=WIDE) as (page, log):
        default = page.get_attribute("#pair", "data-pair")
    with opened(browser, served + "index.html#" + fragment, viewport=WIDE) as (page, log):
        note = page.inner_text("#pair .c13-pair-note")
        assert "不是一对可用的分布" in note, note
        assert page.get_attribute("#pair", "data-pair") == default
        # what the bars read sums to 100 %
        bars = page.eval_on_selector_all("#pair .c13-pair-row[data-which=p] .c13-pair-bar",
                                         "bs => bs.map(b => Number(b.dataset.units))")
        assert sum(bars) == 1000


@pytest.mark.slow("runs in Chromium on inputs a reader can give")
def test_a_temperature_other_than_0_or_1_does_not_run_as_another(browser, served):
    with opened(browser, served + "lab.html", viewport=WIDE) as (page, log):
        page.evaluate("""() => { const r = document.querySelector("#e6 .c13-controls input[name$='-temp'][value='1']");
            r.value = '2'; r.checked = true; }""")
        start_e6(page)
        page.wait_for_timeout(300)
        state = dataset(page, "#e6")
        assert state["state"] != "done" and state.get("temperature") != "2", state
        check = page.inner_text("#e6 .c13-e6-check")
        assert "T = 2" in check and "T = 0" in check, check
        assert not downloads(log)
        assert focused(page)["text"] == "开始"


# ------------------------------------------------------------------------------------------------------------
# 7. the download total a run really needs; a cold E6 shows Pyodide's steps and bytes
# ------------------------------------------------------------------------------------------------------------

WATCH_PROGRESS = """() => { window.c13Seen = [];
    const node = document.querySelector('#e6 .c13-e6-progress');
    new MutationObserver(() => window.c13Seen.push(node.textContent))
      .observe(node, { subtree: true, childList: true, characterData: true }); }"""


@pytest.mark.slow("runs in Chromium on inputs a reader can give")
def test_a_cold_run_shows_pyodides_progress_and_the_bytes_of_the_files_it_needs(browser, served):
    with opened(browser, served + "lab.html", viewport=WIDE) as (page, log):
        e6 = e6_payload(page)
        small = e6["drafts"][0]
        need = sum(e6["files"][n] for n in ("tokenizer.json", f"{e6['target']}.safetensors", f"{small}.safetensors"))
        page.evaluate(WATCH_PROGRESS)
        configure(page, draft=small)
        start_e6(page)
        assert settle_e6(page)["state"] == "done", progress(page)
        seen = page.evaluate("window.c13Seen")
        cold = [t for t in seen if t.startswith("启动 Python 抽样器")]
        assert any("第 2/3 步" in t and "已收到" in t and "MB" in t for t in cold), cold[:5]
        weights = [t for t in seen if "已收到" in t and t.startswith("下载模型权重")]
        assert weights and weights[-1].endswith(f"{need / 1e6:.1f} MB / {need / 1e6:.1f} MB"), weights[-3:]
        # a second run with the other draft: only that draft downloads, and the total says so
        page.evaluate("window.c13Seen = []")
        large = e6["drafts"][1]
        configure(page, draft=large)
        start_e6(page)
        assert settle_e6(page)["state"] == "done", progress(page)
        size = e6["files"][f"{large}.safetensors"]
        weights = [t for t in page.evaluate("window.c13Seen") if t.startswith("下载模型权重") and "已收到" in t]
        assert weights and weights[-1].endswith(f"{size / 1e6:.1f} MB / {size / 1e6:.1f} MB"), weights[-3:]


# ------------------------------------------------------------------------------------------------------------
# 9 (in part). the dark palette at 1280 px: E6's focused 开始 and the E2 link of its result; TV's noise band
# ------------------------------------------------------------------------------------------------------------

BAND_CONTRAST_JS = """() => {
    const parse = (c) => c.match(/[\\d.]+/g).map(Number);
    const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
        .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
    const band = document.querySelector('#tv-curve-wide .c13-tv-floor');
    const st = getComputedStyle(band);
    const bg = parse(getComputedStyle(document.body).backgroundColor); // the section's tint is a few per cent
    const fg = parse(st.stroke), a = parseFloat(st.opacity) * (fg.length > 3 ? fg[3] : 1);
    const mix = [0, 1, 2].map((i) => fg[i] * a + bg[i] * (1 - a));
    const [l1, l2] = [lum(mix), lum(bg)].sort((x, y) => y - x);
    return (l1 + 0.05) / (l2 + 0.05);
}"""


@pytest.mark.slow("runs in Chromium on inputs a reader can give")
def test_dark_palette_e6_after_a_run_passes_axe_and_the_tv_band_shows(browser, served):
    from legibility import axe_serious
    with opened(browser, served + "lab.html", viewport=WIDE, color_scheme="dark") as (page, log):  # E6's page
        configure(page, temperature=1)
        start_e6(page)
        assert settle_e6(page)["state"] == "done", progress(page)
        page.focus("#e6 button:text-is('开始')")
        assert axe_serious(page, "#e6") == []
    with opened(browser, served + "index.html", viewport=WIDE, color_scheme="dark") as (page, log):  # TV's
        page.locator("#tv").scroll_into_view_if_needed()
        assert page.evaluate(BAND_CONTRAST_JS) >= 2.0  # 22 % of the text colour was 1.6:1 on the dark page
