"""E2 in the browser: Pyodide starts when the reader reaches it, and every draw is sampler.py's own."""
import math
import time

import pytest

from browserlib import (PYODIDE_TIMEOUT_MS, cancel_e2_run, choose, dataset, focused, names, one_round_matches_sampler_py, run_main,
                        tab_until, wait_ready)
from legibility import small_text


def test_the_picture_and_the_alpha_of_the_chosen_pair(lesson, data):
    page, _ = lesson
    assert page.get_attribute("#e2", "data-c13-init") == "done"
    prefixes, drafts = names(data)
    assert page.locator("#e2 .c13-e2-picture .c13-duo-wide svg .c13-col").count() >= 8
    assert f"{data['distributions'][prefixes[0]]['alpha'][drafts[0]] * 100:.1f}%" in page.inner_text("#e2 .c13-e2-stats")
    # the picture shows constants.top_n tokens one by one, plus the folded rest, on a wide screen: in both layouts
    for layout in ("wide", "narrow"):
        assert page.locator(f"#e2 .c13-e2-picture .c13-duo-{layout} svg .c13-col").count() == \
            data["constants"]["top_n"] + 1
    # one layout shows: the wide one only where the column keeps its text at 11 px (1280 px is too narrow for it)
    shown = [layout for layout in ("wide", "narrow") if page.is_visible(f"#e2 .c13-e2-picture .c13-duo-{layout} svg")]
    assert len(shown) == 1 and small_text(page, "#e2 .c13-e2-picture") == []


def test_the_draft_radios_name_each_drafts_role(lesson, small_draft, large_draft):
    page, _ = lesson
    small, large = small_draft, large_draft
    text = page.inner_text("#e2 .c13-controls")
    assert f"{small}（小草稿）" in text and f"{large}（大草稿）" in text


@pytest.mark.slow("Chromium with Pyodide, a run of the experiment")
def test_pyodide_starts_only_when_the_reader_reaches_e2(lesson, served):
    page, log = lesson
    assert not [u for u in log.requests if "pyodide" in u], "Pyodide was requested before the reader reached E2"
    assert page.get_attribute("#e2", "data-pyodide") == "idle"
    started = time.perf_counter()
    page.locator("#e2 [role=tablist]").scroll_into_view_if_needed()
    wait_ready(page)
    seconds = time.perf_counter() - started
    pyodide = [u for u in log.requests if "/vendor/pyodide/" in u]
    assert pyodide and all(u.startswith(served + "assets/vendor/pyodide/") for u in pyodide), pyodide
    assert served + "assets/c13/sampler.py" in log.requests
    assert "已就绪" in page.inner_text("#e2 .c13-py")
    print(f"\nPyodide ready {seconds:.2f} s after E2 came into view (page's own figure: "
          f"{page.get_attribute('#e2', 'data-pyodide-ready-ms')} ms)")


def test_e2_completes_a_10000_round_run_in_pyodide(lesson):
    page, _ = lesson
    wait_ready(page)
    r = run_main(page, "correct", 10_000, 424242)
    assert r["state"] == "done", r
    assert r["n"] == "10000" and r["seed"] == "424242" and r["scheme"] == "correct"
    assert 0 < float(r["tv"]) < 1
    assert int(page.get_attribute("#e2 .c13-run:has([data-run=main])", "data-progress")) >= 1
    text = page.inner_text("#e2 [data-run=main]")
    assert "种子 424242" in text and "10,000 轮" in text
    assert page.locator("#e2 .c13-hist svg .c13-emp").count() >= 8


def test_one_round_shows_what_sampler_py_drew(lesson, data):
    page, _ = lesson
    expected = one_round_matches_sampler_py(page, data, 2, "跑一轮", 777, "correct")
    text = page.inner_text("#e2 .c13-panel:not([hidden]) .c13-round")
    for word in ("草稿抽到 x", "p(x)", "q(x)", "接受概率", "均匀随机数 u", "判定"):
        assert word in text
    assert ("从残差里抽到" in text) == (not expected["accepted"])


def test_the_naive_scheme_keeps_a_guess_at_the_rate_sum_pq(lesson, data):
    page, _ = lesson
    one_round_matches_sampler_py(page, data, 0, "跑一轮（朴素）", 2024, "naive")
    prefixes, drafts = names(data)
    d = data["distributions"][prefixes[0]]
    page.click("#e2 [role=tabpanel] >> nth=0 >> text=跑 10,000 轮（朴素）")
    page.wait_for_function("document.querySelector('#e2 [data-run=naive]').dataset.state === 'done'",
                           timeout=PYODIDE_TIMEOUT_MS)
    r = dataset(page, "#e2 [data-run=naive]")
    spq = d["sum_pq"][drafts[0]]
    assert r["scheme"] == "naive" and abs(float(r["acceptance"]) - spq) < 5 * math.sqrt(spq * (1 - spq) / 10_000)


@pytest.mark.slow("Chromium with Pyodide, a run of the experiment")
def test_the_offline_seed_reproduces_the_json_tv_exactly(lesson, data):
    page, _ = lesson
    prefixes, drafts = names(data)
    page.click("#e2 [role=tab] >> nth=2")
    for prefix, draft, scheme in ((prefixes[0], drafts[0], "correct"), (prefixes[1], drafts[1], "resample_p")):
        choose(page, prefix, draft)
        page.select_option("#e2 .c13-repro-box select", scheme)
        page.click("#e2 .c13-repro-box button")
        page.wait_for_function("['done', 'failed'].includes(document.querySelector('#e2 [data-run=repro]').dataset.state)",
                               timeout=PYODIDE_TIMEOUT_MS)
        r = dataset(page, "#e2 [data-run=repro]")
        ref = data["offline"]["results"][prefix][draft][scheme]
        assert r["state"] == "done" and int(r["n"]) == ref["n"] and int(r["seed"]) == ref["seed"]
        assert float(r["tv"]) == ref["tv"], (prefix, draft, scheme, r["tv"], ref["tv"])
        assert r["equal"] == "true"
        # a figure a reader reads (four decimals), the exact double on demand
        text = page.inner_text("#e2 [data-run=repro]")
        assert f"{ref['tv']:.4f}" in text and "逐位相同" in text and repr(ref["tv"]) not in text, text
        assert repr(ref["tv"]) not in page.inner_text("#e2 .c13-repro-box .c13-hint")
        for toggle in page.locator("#e2 [data-run=repro] .c13-raw-toggle").all():
            toggle.click()
        raw = page.eval_on_selector_all("#e2 [data-run=repro] code.c13-raw:not([hidden])", "cs => cs.map(c => c.textContent)")
        assert raw == [repr(ref["tv"])] * 2, raw
    choose(page, prefixes[0], drafts[0])


def test_predict_first_target_p_is_biased_and_residual_is_at_the_noise_floor(lesson, data):
    page, _ = lesson
    prefixes, drafts = names(data)
    choose(page, prefixes[0], drafts[0])
    closed = data["distributions"][prefixes[0]]["tv_resample_p_closed_form"][drafts[0]]
    wrong = run_main(page, "resample_p", 100_000, 31337)
    assert wrong["scheme"] == "resample_p"
    tv, noise = float(wrong["tv"]), float(wrong["noise"])
    assert tv > 3 * noise and tv > 0.7 * closed, (tv, noise, closed)
    text = page.inner_text("#e2 [data-run=main]")
    assert "偏了" in text and "离线参考" in text
    right = run_main(page, "correct", 100_000, 31337)
    assert right["scheme"] == "correct"
    tv, noise = float(right["tv"]), float(right["noise"])
    assert 0.75 * noise < tv < 1.3 * noise, (tv, noise)
    assert "对了" in page.inner_text("#e2 [data-run=main]")
    # the live acceptance rate is α up to sampling noise
    alpha = data["distributions"][prefixes[0]]["alpha"][drafts[0]]
    assert abs(float(right["acceptance"]) - alpha) < 5 * math.sqrt(alpha * (1 - alpha) / 100_000)


@pytest.mark.slow("Chromium with Pyodide, a run of the experiment")
def test_a_run_reports_progress_never_freezes_the_page_and_can_be_cancelled(lesson, data):
    page, _ = lesson
    wait_ready(page)
    # the button: pressed right after starting, the run ends as cancelled and the page says so
    cancel_e2_run(page)
    assert "已取消" in page.inner_text("#e2 .c13-run:has([data-run=main]) .c13-progress")
    # a long run through the page's one worker: progress after each chunk, the main thread keeps ticking
    d = data["distributions"][names(data)[0][0]]
    outcome = page.evaluate("""async ([p, q]) => {
        const { python } = await import(new URL('assets/c13/c13-widgets.js', document.baseURI).href);
        let ticks = 0, worst = 0, last = performance.now(), progress = 0;
        const timer = setInterval(() => { const t = performance.now(); worst = Math.max(worst, t - last); last = t; ticks++; }, 20);
        const run = python.run({ key: 'long', p: JSON.stringify(p), q: JSON.stringify(q), scheme: 'correct',
                                 seed: 1, n: 50000000, chunk: 50000 }, () => { progress++; });
        const t0 = performance.now();
        while (progress < 5 && performance.now() - t0 < 60000) await new Promise(r => setTimeout(r, 20));
        const seen = progress;
        python.cancel();
        let cancelled = false;
        try { await run; } catch (e) { cancelled = !!e.cancelled; }
        clearInterval(timer);
        return { seen, cancelled, worst, ticks, state: python.state };
    }""", [d["p"], d["q"][names(data)[1][0]]])
    assert outcome["seen"] >= 5, outcome
    assert outcome["cancelled"] and outcome["state"] == "idle", outcome
    assert outcome["worst"] < 500, f"the page stalled for {outcome['worst']:.0f} ms during a run"
    # after a cancel the next run starts a new worker and completes
    r = run_main(page, "correct", 10_000, 5)
    assert r["state"] == "done" and r["n"] == "10000"


@pytest.mark.slow("Chromium with Pyodide, a run of the experiment")
def test_a_missing_pyodide_file_gives_a_clear_message_and_the_static_version(browser, served):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    # as on a host where the build's copy of Pyodide is incomplete: its loader answers 404
    context.route("**/assets/vendor/pyodide/pyodide.mjs", lambda route: route.fulfill(status=404, body="missing"))
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(served + "index.html")
        page.wait_for_function("document.documentElement.dataset.c13Widgets === 'ready'", timeout=15_000)
        page.click("#e2 [role=tab] >> nth=2")
        page.wait_for_function("document.querySelector('#e2').dataset.pyodide === 'failed'", timeout=PYODIDE_TIMEOUT_MS)
        message = page.inner_text("#e2 .c13-py")
        assert "pyodide.mjs" in message and "没能载入" in message and "make site" in message, message
        assert page.locator("#e2 .c13-py button", has_text="重试").is_visible()
        # the static version is opened next to the message, and still readable
        assert page.get_attribute("#e2 details.c13-static-box", "open") is not None
        assert page.locator("#e2 details.c13-static-box svg:visible").count() >= 1
        # a run asked for now says why it cannot happen instead of hanging
        page.check("#e2 .c13-predict input[value=correct]")
        page.click("#e2 button[data-n='10000']")
        page.wait_for_function("document.querySelector('#e2 [data-run=main]').dataset.state === 'failed'", timeout=10_000)
        assert "运行失败" in page.inner_text("#e2 .c13-run:has([data-run=main]) .c13-progress")
        assert not errors, errors
    finally:
        context.close()


@pytest.mark.slow("Chromium with Pyodide, a run of the experiment")
def test_keyboard_alone_drives_e2(phone):
    page, _ = phone
    # from the E2 heading's link, Tab reaches the tabs; arrows choose ③ (and the focus ring shows)
    page.focus("#exp-e2 a.headerlink")
    f = tab_until(page, lambda f: f["role"] == "tab")
    assert f["outline"] != "none" and f["outlineWidth"] >= 2, f
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    f = focused(page)
    assert f["role"] == "tab" and f["text"].startswith("③")
    assert page.get_attribute("#e2 [role=tab] >> nth=2", "aria-selected") == "true"
    # one round with Enter
    tab_until(page, lambda f: f["tag"] == "BUTTON" and f["text"] == "跑一轮")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#e2 .c13-panel:not([hidden]) .c13-round').dataset.record",
                           timeout=PYODIDE_TIMEOUT_MS)
    # the prediction with Space and the arrow keys, then the run with Enter
    tab_until(page, lambda f: f["type"] == "radio" and f["inE2"] and f["value"] in ("resample_p", "correct"))
    page.keyboard.press("Space")
    page.keyboard.press("ArrowDown")
    assert page.is_checked("#e2 .c13-predict input[value=correct]")
    tab_until(page, lambda f: f["tag"] == "BUTTON" and f["text"].startswith("跑 10,000"))
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#e2 [data-run=main]').dataset.state === 'done'",
                           timeout=PYODIDE_TIMEOUT_MS)
    assert dataset(page, "#e2 [data-run=main]")["scheme"] == "correct"


def test_the_wrong_answer_names_the_token_the_data_says_is_under_produced(lesson, data):
    page, _ = lesson
    prefixes, drafts = names(data)
    choose(page, prefixes[0], drafts[0])
    run_main(page, "resample_p", 10_000, 4242)
    token = data["distributions"][prefixes[0]]["resample_p_deficit"][drafts[0]]["token"]
    label = data["tokenizer"]["labels"][token]
    assert page.text_content("#e2 [data-run=main] .c13-feedback .c13-tok") == label
