"""Pyodide's start on a slow device. The whole browser (page, worker, network service) is held to a fraction of one
CPU core by a cgroup (cpulimit.py: DevTools' CPU throttling never reaches a worker). Compiling the WebAssembly and
starting Python then go on for longer than the watchdog's bound without a step or a byte, the worker's thread too
busy at times even for its heartbeat: the start must still end ready, with no stall reported, while a download that
receives nothing still fails within the bound (test_runtime.py)."""
import time

import pytest
from browserlib import CHROMIUM_ARGS, WIDE, chromium_path, opened
from cpulimit import cpu_limited

FRACTION = 0.25     # of one core, from the press on E2's live tab to Python's "ready"
STALL_MS = 10_000   # the watchdog's bound (data-c13-stall-ms); at FRACTION Python's start is silent for about 30 s
READY_TIMEOUT_MS = 150_000
HOST = "new URL('assets/c13/python-host.js', document.baseURI).href"


@pytest.fixture
def slow_browser(browser, tmp_path):
    """A second Chromium, in a CPU cgroup of its own (not yet limited), and that group."""
    with cpu_limited(None, tmp_path, chromium_path()) as (wrapper, group):
        launched = browser.browser_type.launch(executable_path=str(wrapper), args=CHROMIUM_ARGS)
        try:
            yield launched, group
        finally:
            launched.close()


@pytest.mark.slow("Pyodide started in Chromium under a slowed renderer or network")
def test_a_slow_device_starts_python_without_a_stall(slow_browser, served):
    browser, group = slow_browser
    with opened(browser, served + "index.html", viewport=WIDE) as (page, log):
        # the moments the start made progress (a step, bytes), as the status line hears of them
        page.evaluate(f"""async (ms) => {{
            document.documentElement.dataset.c13StallMs = String(ms);
            document.documentElement.dataset.c13WarmupRounds = '0';
            const {{ python }} = await import({HOST});
            window.c13Progress = [];
            python.subscribe((s) => {{ if (s.state !== 'idle') window.c13Progress.push(performance.now()); }});
        }}""", STALL_MS)
        group.limit(FRACTION)
        started = time.perf_counter()
        try:
            page.click("#e2 [role=tab] >> nth=2", timeout=30_000)
            page.wait_for_function("['failed', 'ready'].includes(document.querySelector('#e2').dataset.pyodide)",
                                   timeout=READY_TIMEOUT_MS, polling=500)
        finally:
            group.limit(None)
        took = time.perf_counter() - started
        message = page.inner_text("#e2 .c13-py")
        assert page.get_attribute("#e2", "data-pyodide") == "ready", f"after {took:.0f} s: {message}"
        assert "停滞" not in message and "已就绪" in message, message
        times = page.evaluate("window.c13Progress")
        silent = max(b - a for a, b in zip(times, times[1:]))
        assert silent > STALL_MS, (
            f"the start was never silent for longer than the watchdog's {STALL_MS} ms (at most {silent:.0f} ms, "
            f"{took:.0f} s in all): {FRACTION} of a core did not slow it enough to test anything; lower FRACTION")


# A download that stops still fails within the bound (3 s here), naming the file the worker waits on: one that stops
# halfway (the faulty server sends part of it and then nothing), and the module loadPyodide imports first, which
# never answers (held).
QUICK_STALL_MS = 3_000
ERRORS = r"(?i)pyodide|python|wasm|stdlib|zip|abort|fail|import|module"


def start_with_quick_watchdog(page):
    page.evaluate("ms => { document.documentElement.dataset.c13StallMs = String(ms); }", QUICK_STALL_MS)
    page.click("#e2 [role=tab] >> nth=2")


def assert_stalled_on(page, name, since):
    page.wait_for_function("document.querySelector('#e2').dataset.pyodide === 'failed'",
                           timeout=QUICK_STALL_MS + 20_000)
    waited = time.perf_counter() - since
    message = page.inner_text("#e2 .c13-py")
    assert "停滞" in message and f"{QUICK_STALL_MS // 1000} 秒" in message and name in message, message
    assert waited < QUICK_STALL_MS / 1000 + 4, f"the stall took {waited:.1f} s to show: {message}"


@pytest.mark.slow("Pyodide started in Chromium under a slowed renderer or network")
def test_a_download_that_stops_halfway_fails_within_the_bound_naming_the_file(browser, faulty):
    faults, url = faulty
    name = "python_stdlib.zip"
    with opened(browser, url + "index.html", allow_errors=[ERRORS], viewport=WIDE) as (page, log):
        faults.set(name, ("stall", 100_000))
        start_with_quick_watchdog(page)
        deadline = time.perf_counter() + 30
        while faults.sent.get(name) is None and time.perf_counter() < deadline:
            page.wait_for_timeout(50)
        assert faults.sent.get(name), f"{name} was never requested"
        assert_stalled_on(page, name, time.perf_counter())
        faults.clear()


@pytest.mark.slow("Pyodide started in Chromium under a slowed renderer or network")
def test_a_module_that_never_arrives_fails_within_the_bound_naming_it(browser, served):
    held = []
    with opened(browser, served + "index.html", allow_errors=[ERRORS], viewport=WIDE,
                routes=[("**/assets/vendor/pyodide/pyodide.asm.mjs", lambda route: held.append(time.perf_counter()))]) \
            as (page, log):
        start_with_quick_watchdog(page)
        page.wait_for_function("document.querySelector('#e2').dataset.pyodide !== 'idle'")
        deadline = time.perf_counter() + 30
        while not held and time.perf_counter() < deadline:
            page.wait_for_timeout(50)
        assert held, "pyodide.asm.mjs was never requested"
        assert_stalled_on(page, "pyodide.asm.mjs", held[0])
