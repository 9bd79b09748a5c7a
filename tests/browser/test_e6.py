"""E6 in the browser, on the measurement lab's page (lab.html): nothing of it loads before the reader presses 开始; a
run at T = 0 writes the target's own text, every round shown and the reader's measurements consistent with the run;
the report shows medians with their range over n timed rounds, tokens per second, which forward ran and the clock's
step, and 再测一次 adds samples; T = 1 finishes (pointing to E2 on the lesson page); 取消 settles; an over-long prompt
is refused before anything loads; legible on a phone in light and dark."""
import math

import pytest
from browserlib import PHONE, PYODIDE_TIMEOUT_MS, dataset, focused, from_disk, opened
from legibility import small_targets, small_text

LAZY = ("e6/engine.mjs", "e6/model.mjs", "e6/tokenizer.mjs", "e6/speculate.mjs", "e6/timing.mjs", ".safetensors",
        "models/tokenizer.json")
AGAIN = "#e6 button:text-is('再测一次')"
MEASURED = "['done', 'failed', 'cancelled'].includes(document.querySelector('#e6').dataset.measure)"
RUN_TIMEOUT_MS = 4 * PYODIDE_TIMEOUT_MS  # Pyodide, ≈ 10 MB of weights, two runs of the real models
SETTLED = "['done', 'failed', 'cancelled'].includes(document.querySelector('#e6').dataset.state)"


def lazy_requests(log):
    return [u for u in log.requests if any(part in u for part in LAZY)]


def configure(page, *, draft=None, k=2, temperature=0, n_new=16, prompt=None, guess="faster"):
    page.check(f"#e6 .c13-e6-gate input[value='{guess}']")  # E6 asks its question first (widgets/e6/question.js)
    if prompt is not None:
        page.fill("#e6 textarea.c13-e6-prompt", prompt)
    if draft:
        page.check(f"#e6 .c13-controls input[value='{draft}']")
    page.check(f"#e6 .c13-controls input[name$='-temp'][value='{temperature}']")
    page.select_option("#e6 select[id$='-k']", str(k))
    page.select_option("#e6 select[id$='-new']", str(n_new))


def run(page, seed=20241):
    page.fill("#e6 input.c13-seed", str(seed))
    page.click("#e6 button:text-is('开始')")
    page.wait_for_function(SETTLED, timeout=RUN_TIMEOUT_MS)
    return dataset(page, "#e6")


def expected_yield(alpha, k):
    return sum(alpha ** i for i in range(k + 1))


def test_nothing_of_e6_loads_before_the_reader_starts_it(lab, data):
    page, log = lab
    assert page.get_attribute("#e6", "data-c13-init") == "done"
    page.locator("#e6 .c13-e6").scroll_into_view_if_needed()
    page.focus("#e6 textarea.c13-e6-prompt")
    page.wait_for_timeout(500)
    assert page.get_attribute("#e6", "data-state") == "idle"
    assert not lazy_requests(log), lazy_requests(log)
    assert page.get_attribute(AGAIN, "aria-disabled") == "true"  # nothing to measure again before a run
    # the reader is told how much a run downloads with each draft (the tokenizer, the target, that draft), from the
    # payload's sizes
    e6 = page.evaluate("JSON.parse(document.getElementById('c13-widget-data').textContent).e6")
    hint = page.inner_text("#e6 .c13-e6-weight")
    for draft in e6["drafts"]:
        need = sum(e6["files"][n] for n in ("tokenizer.json", f"{e6['target']}.safetensors", f"{draft}.safetensors"))
        assert f"用 {draft} 共 {need / 1e6:.1f} MB" in hint, hint
    # the lesson's prompts are one press away
    for prompt in (p["text"] for p in data["prompts"]):
        page.click(f"#e6 .c13-e6-lesson button[aria-label='用提示 {prompt}']")
        assert page.input_value("#e6 textarea.c13-e6-prompt") == prompt


def test_an_over_long_prompt_is_refused_before_anything_loads(lab, data):
    page, log = lab
    context = data["models"][data["constants"]["target"]]["context"]
    page.fill("#e6 textarea.c13-e6-prompt", "孔明曰：「" * 200)
    page.click("#e6 button:text-is('开始')")
    check = page.locator("#e6 .c13-e6-check")
    assert check.get_attribute("data-problem") == "context"
    assert f"超过上下文 {context}" in check.inner_text()
    assert page.get_attribute("#e6", "data-state") == "idle"
    assert focused(page)["text"] == "开始"
    assert not lazy_requests(log)
    page.fill("#e6 textarea.c13-e6-prompt", data["replay"]["prompt"])
    assert check.inner_text() == ""  # the message goes once the prompt fits


@pytest.mark.slow("E6 runs the three models in Chromium")
def test_a_greedy_run_writes_the_targets_own_text_and_shows_every_round(lab, data, served):
    page, log = lab
    small = data["constants"]["drafts"][0]
    configure(page, draft=small, k=2, temperature=0, n_new=16, prompt=data["replay"]["prompt"])
    state = run(page)
    assert state["state"] == "done", page.inner_text("#e6 .c13-e6-progress")
    assert state["identical"] == "true" and state["temperature"] == "0" and state["k"] == "2" and state["draft"] == small
    assert "两段完全相同" in page.inner_text("#e6 .c13-e6-verdict")
    report = dataset(page, "#e6 .c13-e6-report")
    rounds = page.locator("#e6 ol.c13-e6-rounds > li")
    assert rounds.count() == int(report["rounds"]) > 0
    written = sum(int(a) + 1 for a in rounds.evaluate_all("items => items.map(li => li.dataset.accepted)"))
    assert written >= 16 and all(int(a) <= 2 for a in rounds.evaluate_all("l => l.map(li => li.dataset.accepted)"))
    # the measurements agree with the run and with each other
    tokens, forwards = int(report["tokens"]), int(report["targetForwards"])
    assert tokens >= 16 and forwards == int(report["rounds"])
    assert math.isclose(float(report["tokensPerTargetForward"]), tokens / forwards, rel_tol=1e-9)
    alpha, c, v = float(report["alpha"]), float(report["c"]), float(report["v"])
    assert math.isclose(alpha, int(report["accepted"]) / int(report["tested"]), rel_tol=1e-9)
    assert 0 < c and 0 < v and all(math.isfinite(float(report[key])) and float(report[key]) > 0
                                   for key in ("speedupModel", "speedupEndToEnd"))
    # the lesson's formula, c = the parameter ratio, v = 1, with the α of this run's temperature: the body samples at
    # T = 1 only, so a T = 0 run's formula takes this run's own α
    body = data["accounting"]["drafts"][small]
    assert float(report["lessonAlpha"]) == alpha
    assert math.isclose(float(report["predictedLesson"]), expected_yield(alpha, 2) / (2 * body["c"] + 1), rel_tol=1e-9)
    assert "这次运行的 α（T = 0" in page.inner_text("#e6 .c13-e6-speed tr[data-row='lesson']")
    assert math.isclose(float(report["predictedOwn"]), expected_yield(alpha, 2) / (2 * c + v), rel_tol=1e-9)
    # every speed says what it is: the reader's wall clock, the formula with the reader's costs, the body's formula
    kinds = page.eval_on_selector_all("#e6 .c13-e6-speed tr[data-row] td",
                                      "cells => cells.map((c) => [c.closest('tr').dataset.row, c.dataset.kind])")
    assert dict(kinds) == {"model": "wall-clock", "end-to-end": "wall-clock", "own": "formula-measured",
                           "lesson": "formula"} and len(kinds) == 8
    assert set(page.eval_on_selector_all("#e6 .c13-e6-rate td", "cells => cells.map((c) => c.dataset.kind)")) == \
        {"wall-clock"}
    table = page.inner_text("#e6 .c13-e6-report")
    for words in ("c = 草稿一次前向 ÷ 目标一次前向", "v(2)", "α", "目标前向", "草稿前向", "接受判定", "端到端", "v = 1"):
        assert words in table
    assert f"（{tokens} ÷ {forwards}）" in table
    # the files came from this site: the target, the chosen draft and the tokenizer, nothing else
    models = [u for u in log.requests if "/models/" in u]
    assert models and all(u.startswith(served + "assets/c13/models/") for u in models)
    assert {u.rsplit("/", 1)[-1] for u in models} == {f"{data['constants']['target']}.safetensors",
                                                        f"{small}.safetensors", "tokenizer.json"}


@pytest.mark.slow("E6 runs the three models in Chromium")
def test_the_report_shows_medians_with_their_range_and_measuring_again_adds_samples(lab, data):
    page, log = lab
    configure(page, k=3, temperature=0, n_new=16, prompt=data["replay"]["prompt"])
    assert run(page)["state"] == "done"
    report = dataset(page, "#e6 .c13-e6-report")
    n, step, block = int(report["n"]), float(report["clockStep"]), float(report["minBlockMs"])
    assert n == 9 and 0 < step <= 2 and block == max(5, min(20, 50 * step))
    assert float(report["shortestBlockMs"]) >= block >= 5  # every sample a block of at least 5 ms by the clock
    for key in ("targetMs", "draftMs", "verifyMs", "speedupModel", "speedupEndToEnd", "targetPerSecond",
                "speculativePerSecond"):
        low, high = float(report[f"{key}Min"]), float(report[f"{key}Max"])
        assert 0 < low <= high, key
    # a median lies within its range: the block-timed costs over the samples, the speedups over the runs' pairs
    for key in ("targetMs", "draftMs", "verifyMs", "speedupModel", "speedupEndToEnd"):
        assert float(report[f"{key}Min"]) <= float(report[key]) <= float(report[f"{key}Max"]), key
    assert int(report["runs"]) % 2 == 1
    assert float(report["targetPerSecondEndToEnd"]) > 0 and float(report["speculativePerSecondEndToEnd"]) > 0
    text = page.inner_text("#e6 .c13-e6-report")
    assert report["kernel"] in ("js", "wasm-simd128")
    named = {"": "前向：JavaScript", "standard": "前向：WebAssembly SIMD（128 位）",
             "relaxed": "前向：WebAssembly SIMD（128 位，relaxed SIMD 的融合乘加）"}  # the build of forward.wat that ran
    assert (report["kernel"] == "js") == (report["simd"] == "") and named[report["simd"]] in text
    assert f"计时精度是 {report['clockStep']} ms" in text and f"n = {n} 轮" in text
    for words in ("各轮最小–最大", "每秒写出的 token", "目标单独写", "投机解码（"):
        assert words in text, words
    cells = page.locator("#e6 .c13-e6-rate tr[data-row='target'] td").all_inner_texts()
    assert len(cells) == 3 and "–" in cells[1] and all(any(ch.isdigit() for ch in c) for c in cells)
    # 再测一次, from the keyboard: more rounds join the same samples, and the button works again
    assert page.get_attribute(AGAIN, "aria-disabled") == "false"
    requests = len(log.requests)
    page.focus(AGAIN)
    page.keyboard.press("Enter")
    page.wait_for_function(MEASURED, timeout=RUN_TIMEOUT_MS)
    assert page.get_attribute("#e6", "data-measure") == "done", page.inner_text("#e6 .c13-e6-progress")
    assert page.get_attribute("#e6", "data-state") == "done"
    again = dataset(page, "#e6 .c13-e6-report")
    assert int(again["n"]) == 2 * n and f"n = {2 * n} 轮" in page.inner_text("#e6 .c13-e6-report")
    assert f"共 n = {2 * n} 轮" in page.inner_text("#e6 .c13-e6-progress")
    assert float(again["targetMsMin"]) <= float(report["targetMsMin"])  # the range spans the old samples too
    assert page.get_attribute(AGAIN, "aria-disabled") == "false" and focused(page)["text"] == "再测一次"
    assert page.get_attribute("#e6 button:text-is('开始')", "aria-disabled") == "false"
    assert not [u for u in log.requests[requests:] if "/models/" in u]  # nothing downloaded again


@pytest.mark.slow("E6 runs the three models in Chromium")
def test_a_sampled_run_finishes_and_points_to_e2(lab, data):
    page, _ = lab
    configure(page, k=3, temperature=1, n_new=16)
    state = run(page, seed=7)
    assert state["state"] == "done" and state["temperature"] == "1" and state["k"] == "3"
    assert "identical" not in state
    verdict = page.locator("#e6 .c13-e6-verdict")
    # E2 is on the lesson page
    assert "同一个分布" in verdict.inner_text() and verdict.locator("a[href='index.html#exp-e2']").count() == 1
    # the guess made before the run stays beside the report (widgets/e6/question.js)
    guess = page.locator("#e6 .c13-e6-guess")
    assert guess.is_visible() and guess.get_attribute("data-guess") == "faster" and "会更快" in guess.inner_text()
    # at T = 1 the lesson's formula takes the body's α (E5's), the one the lesson samples with
    report = dataset(page, "#e6 .c13-e6-report")
    body = data["accounting"]["drafts"][report["draft"]]
    assert float(report["lessonAlpha"]) == body["alpha"]
    assert math.isclose(float(report["predictedLesson"]), expected_yield(body["alpha"], 3) / (3 * body["c"] + 1),
                        rel_tol=1e-9)


@pytest.mark.slow("E6 runs the three models in Chromium")
def test_cancel_mid_run_settles_and_keeps_the_focus(lab, data):
    page, _ = lab
    configure(page, k=1, temperature=1, n_new=max(page.evaluate(
        "JSON.parse(document.getElementById('c13-widget-data').textContent).e6.new_tokens")))
    page.fill("#e6 input.c13-seed", "99")
    page.click("#e6 button:text-is('开始')")
    page.wait_for_function("document.querySelector('#e6').dataset.state === 'running'", timeout=RUN_TIMEOUT_MS)
    page.focus("#e6 button:text-is('取消')")
    page.keyboard.press("Enter")
    page.wait_for_function(SETTLED, timeout=RUN_TIMEOUT_MS)
    assert page.get_attribute("#e6", "data-state") == "cancelled"
    now = focused(page)
    assert now["tag"] != "BODY" and page.evaluate("!!document.activeElement.closest('#e6')"), now
    assert page.get_attribute("#e6 button:text-is('开始')", "aria-disabled") == "false"
    assert "已取消" in page.inner_text("#e6 .c13-e6-progress")
    assert page.get_attribute(AGAIN, "aria-disabled") == "true"  # the cancelled run shows no report to add to
    # the buttons work again: a short run after the cancel finishes
    configure(page, k=2, temperature=0, n_new=16)
    assert run(page)["state"] == "done"


@pytest.mark.slow("E6 runs the three models in Chromium")
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_e6_is_legible_on_a_phone_after_a_run(browser, served, data, scheme):
    with opened(browser, served + "lab.html", color_scheme=scheme, **PHONE) as (page, _):
        configure(page, k=2, temperature=0, n_new=16)
        assert run(page)["state"] == "done"
        page.evaluate("document.fonts.ready")
        assert small_text(page, "#e6") == []
        assert small_targets(page, "#e6") == []
        # nothing in E6 is wider than the phone's column
        overflow = page.evaluate("""() => [...document.querySelectorAll('#e6 .c13-e6 *')]
            .filter(n => n.getBoundingClientRect().right > document.documentElement.clientWidth + 1
                         && !n.closest('.c13-scroll'))
            .map(n => n.tagName + '.' + n.className).slice(0, 5)""")
        assert overflow == []


@pytest.mark.slow("E6 runs the three models in Chromium")
def test_without_javascript_and_from_disk_e6_shows_the_build_machines_table(browser, served, site):
    with opened(browser, served + "lab.html", java_script_enabled=False) as (page, log):
        assert page.locator("#e6 .c13-live").count() == 0
        assert page.locator("#e6 .c13-e6-static").is_visible()
        assert "make serve" in page.inner_text("#e6 .c13-e6-static")
        assert not lazy_requests(log)
    with from_disk(browser, site, 300, "lab.html") as (page, requests, errors):
        assert page.locator("#e6 .c13-exp-notice").is_visible()
        assert page.locator("#e6 .c13-e6-static").is_visible()
        assert not [u for u in requests if any(part in u for part in LAZY)]
        assert not errors, errors
