"""E6's roofline in the browser (issue 23): after a run the report shows the reader's machine measured in the worker
(bandwidth and peak with their spread), the roofline picture with the anchor's roof, the build machine's when the
payload carries its figures, and the reader's, the run's forwards placed on it, and the v(k) the roofline predicts
beside the measured one; legible at 1280 and 375 px in light and dark, and free of serious axe violations.
No figure here is checked against a timing: only their shape, their bounds and their agreement with each other."""
import math

import pytest
from browserlib import PHONE, WIDE, dataset, opened
from faultlib import configure, e6_payload, settle_e6, start_e6
from legibility import axe_serious, small_targets, small_text

K = 2


def shown_layout(page):
    """The layout of the roofline the column shows: "wide" or "narrow"."""
    return page.evaluate("""() => [...document.querySelectorAll('#e6 .c13-e6-roofline .c13-duo > div')]
        .filter(d => d.getBoundingClientRect().height > 0).map(d => d.className.replace('c13-duo-', ''))""")


def payload_has_build_roof(page):
    return page.evaluate("""() => { const d = JSON.parse(document.getElementById('c13-widget-data').textContent);
        const r = d.e6 && d.e6.build_roof;
        return !!(r && r.bandwidth_gbs > 0 && r.peak_gflops > 0); }""")


@pytest.fixture(scope="module", params=["light", "dark"])
def after_run(request, browser, served):
    with opened(browser, served + "index.html", color_scheme=request.param, viewport=WIDE) as (page, log):
        configure(page, k=K, temperature=0, n_new=16)
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
        overflow = page.evaluate("""() => [...document.querySelectorAll('#e6 .c13-e6-roofline *')]
            .filter(n => n.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
            .map(n => n.tagName).slice(0, 5)""")
        assert overflow == []
        assert axe_serious(page, "#e6") == []
    finally:
        page.set_viewport_size(WIDE)
