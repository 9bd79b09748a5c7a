"""E6's roofline in the browser: after a run the report shows the reader's machine measured in the worker
(bandwidth and peak with their spread), the roofline picture with the anchor's roof, the build machine's when the
payload carries its figures, and the reader's, the run's forwards placed on it, and the v(k) the roofline predicts
beside the measured one; what the run means: the regime from the reader's roof, c against the parameter
ratio, v(k) between 1 and k + 1, one round's timeline from the run's figures, why end to end differs, the build
machine beside the reader and the last round's overshoot; legible at 1280 and 375 px in light and dark, and free
of serious axe violations.
No figure here is checked against a timing: only their shape, their bounds and their agreement with each other.
Each test runs three times: light, dark, and on a slow machine (the whole of Chromium, its worker too, held to a
quarter of one core by a CPU cgroup: cpulimit.py), where the report must agree with itself all the same."""
import contextlib
import math

import pytest
from browserlib import CHROMIUM_ARGS, PHONE, UNMARKED_SPEEDS, WIDE, chromium_path, dataset, opened
from cpulimit import cpu_limited
from faultlib import configure, e6_payload, settle_e6, start_e6
from legibility import axe_serious, small_targets, small_text

from generator.pages.claims import THRESHOLDS

K = 2
NEW = 16  # new tokens of the run


def shown_layout(page):
    """The layout of the roofline the column shows: "wide" or "narrow"."""
    return page.evaluate("""() => [...document.querySelectorAll('#e6 .c13-e6-roofline .c13-duo > div')]
        .filter(d => d.getBoundingClientRect().height > 0).map(d => d.className.replace('c13-duo-', ''))""")


def payload_has_build_roof(page):
    return page.evaluate("""() => { const d = JSON.parse(document.getElementById('c13-widget-data').textContent);
        const r = d.e6 && d.e6.build_roof;
        return !!(r && r.bandwidth_gbs > 0 && r.peak_gflops > 0); }""")


SLOW = 0.25  # of one core: the slow machine's whole Chromium


@contextlib.contextmanager
def slow_chromium(browser, folder):
    """A second Chromium held to SLOW of one core from its start (test_slow_device.py's way)."""
    with cpu_limited(SLOW, folder, chromium_path()) as (wrapper, _):
        slow = browser.browser_type.launch(executable_path=str(wrapper), args=CHROMIUM_ARGS)
        try:
            yield slow
        finally:
            slow.close()


pytestmark = pytest.mark.slow("E6 runs the models in Chromium three times, once under a quarter of a core")


@pytest.fixture(scope="module", params=["light", "dark", "slow"])
def after_run(request, browser, served, tmp_path_factory):
    with contextlib.ExitStack() as stack:
        if request.param == "slow":
            browser = stack.enter_context(slow_chromium(browser, tmp_path_factory.mktemp("slow")))
        scheme = "dark" if request.param == "dark" else "light"
        yield stack.enter_context(run_once(browser, served, scheme))


@contextlib.contextmanager
def run_once(browser, served, scheme):
    with opened(browser, served + "lab.html", color_scheme=scheme, viewport=WIDE) as (page, log):
        configure(page, k=K, temperature=0, n_new=NEW)
        start_e6(page)
        state = settle_e6(page)
        assert state["state"] == "done", page.inner_text("#e6 .c13-e6-progress")
        page.evaluate("document.fonts.ready")
        yield page, log


def test_the_report_shows_the_readers_roof_and_the_predicted_beside_the_measured_v(after_run):
    page, log = after_run
    report = dataset(page, "#e6 .c13-e6-report")
    assert "roofError" not in report, report.get("roofError")
    bandwidth, peak, v_pred = float(report["roofBandwidth"]), float(report["roofPeak"]), float(report["roofPredictedV"])
    assert all(math.isfinite(x) and x > 0 for x in (bandwidth, peak))
    assert 1 <= v_pred <= K + 1 + 1e-9  # max(bytes/B, n·F/P) ÷ max(bytes/B, F/P) lies in [1, n]
    assert report["roofKernel"] in ("wasm-simd128", "js")
    text = page.inner_text("#e6 .c13-e6-report")
    for words in ("你的机器在屋顶线上", "GB/s", "GFLOP/s", "n = ", "预测（屋顶线）", "实测", f"v({K})"):
        assert words in text, words
    row = page.locator("#e6 .c13-e6-roof-table tr[data-row='roof-v'] td").all_inner_texts()
    assert row[0] == f"{v_pred:.2f}" and row[1].startswith(f"{float(report['v']):.2f}")
    # roof.wasm came from this site, beside the engine, once
    if report["roofKernel"] == "wasm-simd128":
        assert len([u for u in log.requests if u.endswith("/e6/roof.wasm")]) == 1


def test_the_picture_has_its_roofs_and_the_runs_forwards(after_run):
    page, _ = after_run
    roofs = 3 if payload_has_build_roof(page) else 2
    assert int(dataset(page, "#e6 .c13-e6-report")["roofRoofs"]) == roofs
    figure = page.locator("#e6 .c13-e6-roofline")
    assert figure.count() == 1 and shown_layout(page) == ["wide"]
    for layout in ("wide", "narrow"):
        drawing = figure.locator(f".c13-duo-{layout} svg")
        assert drawing.count() == 1 and drawing.get_attribute("role") == "img"
        assert drawing.locator("title").text_content() and drawing.locator("desc").text_content()
        lines = drawing.locator("polyline.c13-roof")
        assert lines.count() == roofs
        for key in ("anchor", "reader") + (("build",) if roofs == 3 else ()):
            assert drawing.locator(f"polyline.c13-roof-{key}").count() == 1, key
        assert drawing.locator(".c13-roof-marks > *").count() == 5  # target at 1 and k + 1, draft, anchor at both
    caption = figure.locator("figcaption").inner_text()
    assert "max(" in caption and "÷ 带宽" in caption and "÷ 峰值" in caption
    e6 = e6_payload(page)
    assert e6["target"] in page.locator("#e6 .c13-e6-roof-table").inner_text()


def test_the_report_with_its_roofline_is_legible_at_1280_and_375_px(after_run):
    page, _ = after_run
    assert small_text(page, "#e6") == []
    assert small_targets(page, "#e6") == []
    assert axe_serious(page, "#e6") == []
    page.set_viewport_size(PHONE["viewport"])
    try:
        page.wait_for_timeout(200)
        assert shown_layout(page) == ["narrow"]
        assert small_text(page, "#e6") == []
        assert small_targets(page, "#e6") == []
        overflow = page.evaluate("""() => [...document.querySelectorAll('#e6 :is(.c13-e6-roofline, .c13-e6-timeline) *')]
            .filter(n => n.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
            .map(n => n.tagName).slice(0, 5)""")
        assert overflow == []
        assert axe_serious(page, "#e6") == []
    finally:
        page.set_viewport_size(WIDE)


def fmt(value, digits):
    return f"{value:.{digits}f}"


def test_the_report_explains_the_regime_c_and_v_from_the_run(after_run, data):
    page, _ = after_run
    report = dataset(page, "#e6 .c13-e6-report")
    memory, compute = float(report["regimeMemoryMs"]), float(report["regimeComputeMs"])
    assert report["regime"] == ("compute" if compute > memory else "bandwidth")
    regime = page.inner_text("#e6 .c13-e6-regime")
    # the page writes every wording (docs/lab.md, E6's words); which case each decision took is read, not a phrase
    took = dict(p.split("=") for p in page.get_attribute("#e6 .c13-e6-regime", "data-picked").split())
    assert took["bound"] == report["regime"]
    # judged where the verifying forward sits: k + 1 positions, its measured time against its roof
    assert int(report["regimePositions"]) == K + 1 and str(K + 1) in regime
    verify_ms = float(report["verifyMs"])
    assert float(report["overRoof"]) == pytest.approx(verify_ms / max(memory, compute), rel=1e-9)
    predicted, measured_v = float(report["roofPredictedV"]), float(report["v"])
    assert fmt(predicted, 2) in regime and fmt(measured_v, 2) in regime
    # far above its roof a forward is overhead-bound, and the page says so; the roofline is called accurate only
    # where its v(k) agrees with the measured one; the thresholds are widgets/thresholds.json's
    t = THRESHOLDS
    assert page.evaluate("() => JSON.parse(document.getElementById('c13-widget-data').textContent).thresholds") == t
    overhead = float(report["overRoof"]) >= t["overhead_bound"]
    yes = {True: "yes", False: "no"}
    assert report["overheadBound"] == str(overhead).lower() and took["overhead"] == yes[overhead]
    agrees = abs(predicted - measured_v) <= t["roof_agrees"] * measured_v
    assert report["roofAgrees"] == str(agrees).lower() and took["agrees"] == yes[agrees]
    # the regime at one position too, on the same roof
    assert report["regimeOne"] in ("compute", "bandwidth") and took["bound_one"] == report["regimeOne"]
    # the verdict is the runs' end-to-end speedup, with its range; faster or slower only when every pair says so
    speed = dict(p.split("=") for p in page.get_attribute("#e6 .c13-e6-speed-verdict", "data-picked").split())
    low, high = float(report["speedupEndToEndMin"]), float(report["speedupEndToEndMax"])
    assert speed["speed"] == report["speed"] == ("faster" if low > 1 else "slower" if high < 1 else "same")
    guess = page.get_attribute("#e6 .c13-e6-guess", "data-guess")
    assert speed["guess_right"] == ("yes" if guess == speed["speed"] else "no")
    verdict = page.locator("#e6 .c13-e6-speed-verdict [data-kind] >> nth=0")
    assert verdict.get_attribute("data-kind") == "wall-clock"
    assert verdict.inner_text() == page.inner_text("#e6 .c13-e6-speed tr[data-row='end-to-end'] td >> nth=0")
    own = float(report["predictedOwn"])
    assert speed["prediction_fits"] == yes[low <= own <= high] and report["predictionFits"] == str(low <= own <= high).lower()
    # the timeline is the verdict's median pair: its two strips' totals are that pair's speedup
    assert float(report["stripTargetMs"]) / float(report["stripSpeculativeMs"]) == pytest.approx(
        float(report["speedupEndToEnd"]), rel=1e-9)
    strips = page.eval_on_selector_all("#e6 .c13-e6-timeline .c13-duo-wide g.c13-tl-strip",
                                       "gs => Object.fromEntries(gs.map((g) => [g.dataset.strip, +g.dataset.total]))")
    assert strips["target"] / strips["speculative"] == pytest.approx(float(report["speedupEndToEnd"]), rel=1e-9)
    # no claim about the reader's cache: the regime comes from the reader's own roof
    assert "缓存装得下" not in page.inner_text("#e6 .c13-e6-report") and "装得进" not in page.inner_text("#e6")
    # c against the parameter ratio of c13.json's models
    draft, target = report["draft"], data["constants"]["target"]
    ratio = data["models"][draft]["parameters"] / data["models"][target]["parameters"]
    assert float(report["paramRatio"]) == pytest.approx(ratio, rel=1e-12)
    c_text = page.inner_text("#e6 .c13-e6-c")
    assert fmt(float(report["c"]), 3) in c_text and fmt(ratio, 3) in c_text
    c, far = float(report["c"]), t["far_above"]
    c_took = dict(p.split("=") for p in page.get_attribute("#e6 .c13-e6-c", "data-picked").split())
    assert c_took["c_case"] == ("far_above" if c >= far * ratio else "far_below" if c <= ratio / far else "scales")
    # v(k) between its two ends
    v_text, v = page.inner_text("#e6 .c13-e6-v"), float(report["v"])
    assert fmt(v, 2) in v_text and str(K + 1) in v_text
    v_took = page.get_attribute("#e6 .c13-e6-v", "data-picked")
    assert v_took == "v_where=" + ("below" if v < 1 else "above" if v > K + 1 else "between")


def test_every_speed_in_the_report_says_its_kind(after_run):
    page, _ = after_run
    assert page.locator("#e6 .c13-e6-report").evaluate(UNMARKED_SPEEDS) == []


def test_the_timeline_draws_one_round_of_the_verdicts_median_pair(after_run):
    page, _ = after_run
    report = dataset(page, "#e6 .c13-e6-report")
    figure = page.locator("#e6 .c13-e6-timeline")
    assert figure.count() == 1
    drawing = figure.locator(".c13-duo-wide svg")
    parts = drawing.evaluate("""svg => [...svg.querySelectorAll('.c13-tl-strip')].map(g => ({strip: g.dataset.strip,
        total: Number(g.dataset.total), parts: [...g.querySelectorAll('rect')].map(r => [r.dataset.part,
        Number(r.dataset.ms)])}))""")
    spec, alone = parts
    assert spec["strip"] == "speculative" and alone["strip"] == "target"
    assert [p for p, _ in spec["parts"]] == ["draft"] * K + ["verify", "sampler"]
    draft_ms, verify_ms, target_ms = (float(report[k]) for k in ("tlDraftMs", "tlVerifyMs", "tlTargetMs"))
    assert [ms for _, ms in spec["parts"]] == pytest.approx([draft_ms] * K + [verify_ms, float(report["tlRoundBesidesMs"])])
    assert spec["total"] == pytest.approx(sum(ms for _, ms in spec["parts"])) == pytest.approx(
        float(report["stripSpeculativeMs"]))
    tokens = float(report["tlTokens"])  # the verdict's runs write what the shown run wrote
    assert tokens == pytest.approx(float(report["roundTokens"])) == pytest.approx(
        float(report["tokens"]) / float(report["rounds"]))
    assert alone["total"] == pytest.approx(tokens * (target_ms + float(report["tlTokenBesidesMs"]))) == pytest.approx(
        float(report["stripTargetMs"]))
    caption = figure.locator("figcaption").inner_text()
    assert fmt(tokens, 2) in caption and "sampler.py" in caption
    # end to end against model time: the sampler's time per token beside a target forward, where serving puts it
    said = page.inner_text("#e6 .c13-e6-end-to-end")
    token_ms = float(report["samplerTokenMs"])
    assert str(K + 1) in said and page.get_attribute("#e6 .c13-e6-end-to-end", "data-picked") == (
        "sampler_longer=" + ("yes" if token_ms >= float(report["targetMs"]) else "no"))


def test_the_build_machine_stands_beside_the_reader_and_the_overshoot_is_said(after_run):
    page, _ = after_run
    report = dataset(page, "#e6 .c13-e6-report")
    costs = page.evaluate("JSON.parse(document.getElementById('c13-widget-data').textContent).e5_costs")
    side = page.locator("#e6 .c13-e6-side")
    if costs.get("reason"):
        assert page.inner_text("#e6 .c13-e6-build-missing").endswith(costs["reason"])
    else:
        machines = page.locator("#e6 .c13-e6-side thead th[data-machine]").evaluate_all(
            "ths => ths.map(t => t.dataset.machine)")
        assert machines == ["reader"] + [key for key in ("wasm", "torch") if costs.get(key)]
        i = costs["ks"].index(K)
        for key in machines[1:]:
            cell = side.locator(f"tr[data-row='v'] td[data-machine='{key}']").inner_text()
            assert cell == fmt(costs[key]["v"][i], 2)
            cell = side.locator(f"tr[data-row='c'] td[data-machine='{key}']").inner_text()
            assert cell == fmt(costs[key]["c"][report["draft"]], 3)
            assert costs[key]["where"] in page.inner_text("#e6 .c13-e6-side-where")
        assert side.locator("tr[data-row='c'] td[data-machine='reader']").inner_text() == fmt(float(report["c"]), 3)
    over = int(report["overshoot"])
    assert over == max(0, int(report["tokens"]) - NEW)
    assert page.locator("#e6 .c13-e6-overshoot").count() == (1 if over else 0)
    if over:
        assert f"多 {over} 个" in page.inner_text("#e6 .c13-e6-overshoot")
