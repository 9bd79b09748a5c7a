"""E2's Python runtime when things go wrong: a missing or broken Pyodide file, a start that stops making progress,
and 取消 pressed while Pyodide is still loading. Every such case ends in a usable page within seconds."""
import time

import pytest
from browserlib import PYODIDE_TIMEOUT_MS, WIDE, dataset, focused, opened

STALL_MS = 3_000     # the page's "no progress" watchdog, shortened for the test of a stalled start
# A broken file must be caught by itself, not by the watchdog: those tests set it far beyond the bound. (Pyodide's
# compilation and Python's start run without a word for seconds on a busy machine: a watchdog that short would
# fail a good start.)
LONG_STALL_MS = 30_000
FAIL_BOUND_S = 8.0   # from the broken answer to the failure message on screen
# what a deliberately broken start may log (the browser's 404 line, Pyodide's own complaints)
EXPECTED_ERRORS = (r"(?i)404|failed to load|pyodide|python|wasm|stdlib|zip|sampler|syntax|compile|abort|module|"
                   r"import|fatal|error loading|unexpected")
VENDOR = "**/assets/vendor/pyodide/"

CORRUPT = {
    "pyodide.asm.wasm": ("application/wasm", b"\x00asm\x01\x00\x00\x00 this is not a module"),
    "python_stdlib.zip": ("application/zip", b"PK\x03\x04 not a zip archive at all"),
    "pyodide.asm.mjs": ("text/javascript", b"export default function ( { broken"),
    "sampler.py": ("text/x-python", b"def broken(:\n"),
}
CASES = [
    ("pyodide.asm.wasm", 404), ("pyodide.asm.wasm", "corrupt"),
    ("python_stdlib.zip", 404), ("python_stdlib.zip", "corrupt"),
    ("pyodide.asm.mjs", 404), ("pyodide.asm.mjs", "corrupt"),
    ("pyodide-lock.json", 404),
    ("sampler.py", 404), ("sampler.py", "corrupt"),
]


def url_pattern(name):
    return "**/assets/c13/sampler.py" if name == "sampler.py" else VENDOR + name


def start_e2(page, stall_ms=STALL_MS):
    """Shorten the watchdog, then reach E2 (which starts Pyodide)."""
    page.evaluate("ms => { document.documentElement.dataset.c13StallMs = String(ms); }", stall_ms)
    assert page.get_attribute("#e2", "data-pyodide") == "idle"
    page.click("#e2 [role=tab] >> nth=2")


def assert_failed_and_usable(page, name):
    message = page.inner_text("#e2 .c13-py")
    assert "重试" in message and ("没能载入" in message or "停滞" in message), message
    assert name in message or "停滞" in message, f"the message does not name {name}: {message}"
    assert page.locator("#e2 .c13-py button", has_text="重试").is_visible()
    assert page.get_attribute("#e2 details.c13-static-box", "open") is not None
    assert page.locator("#e2 details.c13-static-box svg:visible").count() >= 1
    # nothing is left waiting: every button of the experiment can be pressed
    # (the big runs wait for the prediction to be answered, whatever Pyodide does)
    assert page.get_attribute("#e2", "data-running") == "false"
    stuck = page.eval_on_selector_all("#e2 .c13-live button:not([data-n])", "bs => bs.filter(b => b.disabled || "
                                      "b.getAttribute('aria-disabled') === 'true').map(b => b.textContent)")
    assert not stuck, stuck


def retry_succeeds(page):
    page.evaluate("() => { document.documentElement.dataset.c13StallMs = '60000'; }")
    page.click("#e2 .c13-py button:has-text('重试')")
    assert focused(page)["tag"] != "BODY", "the retry button hid and dropped the focus to <body>"
    page.wait_for_function("document.querySelector('#e2').dataset.pyodide === 'ready'", timeout=PYODIDE_TIMEOUT_MS)
    page.click("#e2 [role=tabpanel] >> nth=2 >> text=跑一轮")
    page.wait_for_function("document.querySelector('#e2 .c13-panel:not([hidden]) .c13-round').dataset.record",
                           timeout=PYODIDE_TIMEOUT_MS)


@pytest.mark.slow("Pyodide started in Chromium against a server that breaks its files")
@pytest.mark.parametrize("name,broken", CASES, ids=[f"{n}-{b}" for n, b in CASES])
def test_a_missing_or_broken_runtime_file_fails_within_seconds_and_retry_recovers(browser, served, name, broken):
    served_at = []

    def answer(route):
        served_at.append(time.perf_counter())
        if broken == 404:
            route.fulfill(status=404, body="missing")
        else:
            kind, body = CORRUPT[name]
            route.fulfill(status=200, body=body, headers={"content-type": kind})

    with opened(browser, served + "index.html", allow_errors=[EXPECTED_ERRORS], viewport=WIDE,
                routes=[(url_pattern(name), answer)]) as (page, log):
        start_e2(page, stall_ms=LONG_STALL_MS)
        page.wait_for_function("['failed', 'ready'].includes(document.querySelector('#e2').dataset.pyodide)",
                               timeout=PYODIDE_TIMEOUT_MS)
        failed_at = time.perf_counter()
        assert page.get_attribute("#e2", "data-pyodide") == "failed", page.inner_text("#e2 .c13-py")
        assert served_at, f"{name} was never requested"
        assert failed_at - served_at[0] < FAIL_BOUND_S, f"the failure took {failed_at - served_at[0]:.1f} s to show"
        assert_failed_and_usable(page, name)
        page.context.unroute(url_pattern(name))
        retry_succeeds(page)


@pytest.mark.slow("Pyodide started in Chromium against a server that breaks its files")
def test_a_start_that_makes_no_progress_fails_after_the_watchdog(browser, served):
    held = []
    with opened(browser, served + "index.html", allow_errors=[EXPECTED_ERRORS], viewport=WIDE,
                routes=[(url_pattern("pyodide.asm.wasm"), lambda route: held.append(route))]) as (page, log):
        start_e2(page)
        page.wait_for_function("document.querySelector('#e2').dataset.pyodide === 'failed'",
                               timeout=STALL_MS + 20_000)
        assert held, "the wasm was never requested"
        message = page.inner_text("#e2 .c13-py")
        assert "停滞" in message and f"{STALL_MS // 1000} 秒" in message, message
        assert_failed_and_usable(page, "pyodide.asm.wasm")
        page.context.unroute(url_pattern("pyodide.asm.wasm"))
        retry_succeeds(page)


@pytest.mark.slow("Pyodide started in Chromium against a server that breaks its files")
def test_cancel_while_pyodide_loads_settles_the_run_and_the_next_press_works(browser, served):
    held = []
    with opened(browser, served + "index.html", viewport=WIDE,
                routes=[(url_pattern("pyodide.asm.wasm"), lambda route: held.append(route))]) as (page, log):
        start_e2(page, stall_ms=120_000)
        page.check("#e2 .c13-predict input[value=correct]")
        page.click("#e2 button[data-n='10000']")
        progress = "#e2 .c13-run:has([data-run=main]) .c13-progress"
        assert "等待 Python 抽样器载入" in page.inner_text(progress)
        page.wait_for_function("document.querySelector('#e2').dataset.pyodide === 'loading'")
        page.click(f"{progress} button:has-text('取消')")
        page.wait_for_function("document.querySelector('#e2 [data-run=main]').dataset.state === 'cancelled'",
                               timeout=2_000)
        # nothing is stuck: the buttons are usable again while Pyodide goes on loading
        assert page.get_attribute("#e2", "data-running") == "false"
        assert page.get_attribute("#e2 button[data-n='10000']", "aria-disabled") == "false"
        assert page.get_attribute("#e2", "data-pyodide") == "loading"
        for route in held:
            route.continue_()
        page.wait_for_function("document.querySelector('#e2').dataset.pyodide === 'ready'", timeout=PYODIDE_TIMEOUT_MS)
        text = page.inner_text("#e2 .c13-py")
        assert "已就绪" in text and "正在载入" not in text and "已用" not in text, text
        page.fill("#e2 input.c13-seed", "99")
        page.click("#e2 button[data-n='10000']")
        page.wait_for_function("document.querySelector('#e2 [data-run=main]').dataset.state === 'done'",
                               timeout=PYODIDE_TIMEOUT_MS)
        assert dataset(page, "#e2 [data-run=main]")["seed"] == "99"
        time.sleep(0.5)  # the status line stays what it is (no ticker left counting)
        assert page.inner_text("#e2 .c13-py") == text
