"""The lesson page's experiments share one Pyodide worker and one experiment's 取消 stops its
own run only; E6 (on the measurement lab's page, lab.html) says truly what it kept when cancelled; E6's downloads are
abortable, with a no-progress timeout, 取消 settles within 1 s in every state (downloading, stalled, running), a retry
works after a stall, and the byte counter shows what arrived. Faults come through the tests' own servers (routes, and
faultlib's faulty server)."""
import time

import pytest

from browserlib import PYODIDE_TIMEOUT_MS, WIDE, cancel_e2_run, focused, opened, wait_ready
from faultlib import (CANCEL_BOUND_MS, MODEL_FILES, RUN_TIMEOUT_MS, STALL_MS, cancel_ms, configure, downloads,
                      e6_payload, long_run, progress, settle_e6, shown_bytes, start_e6, target_name)

# ------------------------------------------------------------------------------------------------------------
# 1. one experiment's 取消 stops its own run only, and E6 says truly what it kept
# ------------------------------------------------------------------------------------------------------------

@pytest.mark.slow("E6's and E2's runs in Chromium against a server that stalls or slows")
def test_cancelling_tv_and_e2_stops_their_own_runs_and_keeps_the_shared_worker(browser, served):
    """The lesson page's experiments share its one Pyodide worker: TV's 取消 and E2's stop their own runs and never
    restart the worker, and the others run again at once in it, Pyodide loaded once. E6 has the measurement lab's
    page to itself (lab.html; its 取消 is the next test's): nothing of it loads here."""
    with opened(browser, served + "index.html", viewport=WIDE) as (page, log):
        page.locator("#e2 [role=tablist]").scroll_into_view_if_needed()
        wait_ready(page)
        workers = [u for u in log.requests if u.endswith("pyodide-worker.mjs")]
        assert len(workers) == 1
        # the TV rerun: started and cancelled
        page.click("#tv .c13-tv-live button.md-button >> nth=0")
        page.wait_for_function("document.querySelector('#tv .c13-tv-summary').dataset.state === 'running'")
        page.click("#tv .c13-progress button:has-text('取消')")
        page.wait_for_function("document.querySelector('#tv .c13-tv-summary').dataset.state === 'cancelled'",
                               timeout=5_000)
        assert "重新启动" not in page.inner_text("#tv .c13-progress")
        # E2's large run: the same
        cancel_e2_run(page, timeout=5_000)
        assert "重新启动" not in page.inner_text("#e2 .c13-run:has([data-run=main]) .c13-progress")
        # the other experiments run again at once, in the same worker
        page.click("#e2 button[data-n='10000']")
        page.wait_for_function("document.querySelector('#e2 [data-run=main]').dataset.state === 'done'",
                               timeout=PYODIDE_TIMEOUT_MS)
        assert [u for u in log.requests if u.endswith("pyodide-worker.mjs")] == workers
        assert len([u for u in log.requests if u.endswith("pyodide.asm.wasm")]) == 1
        assert page.locator("#e6").count() == 0 and not downloads(log)


@pytest.mark.slow("E6's and E2's runs in Chromium against a server that stalls or slows")
def test_a_cancelled_e6_says_which_files_it_kept_and_they_are_not_downloaded_again(browser, served, data):
    with opened(browser, served + "lab.html", viewport=WIDE) as (page, log):
        e6 = e6_payload(page)
        small = e6["drafts"][0]
        configure(page, draft=small)
        start_e6(page)
        assert settle_e6(page)["state"] == "done", progress(page)
        long_run(page)
        page.click("#e6 button:text-is('取消')")
        state = settle_e6(page, timeout=5_000)
        assert state["state"] == "cancelled"
        text = progress(page)
        for name in ("tokenizer.json", f"{e6['target']}.safetensors", f"{small}.safetensors"):
            assert name in text, text
        assert "不用重新下载" in text, text
        before = len(log.requests)
        configure(page, k=2, temperature=0, n_new=16)
        start_e6(page)
        assert settle_e6(page)["state"] == "done", progress(page)
        # nor Pyodide: the lab page's worker kept it
        assert not [u for u in log.requests[before:] if any(p in u for p in MODEL_FILES + ("pyodide.asm",))]
        assert focused(page)["tag"] != "BODY"


# ------------------------------------------------------------------------------------------------------------
# 3. downloads are abortable, with a no-progress timeout; 取消 settles within 1 s in every state
# ------------------------------------------------------------------------------------------------------------

@pytest.mark.slow("E6's and E2's runs in Chromium against a server that stalls or slows")
def test_cancel_during_a_slow_download_settles_within_a_second_and_the_retry_downloads_again(browser, faulty):
    faults, url = faulty
    with opened(browser, url + "lab.html", viewport=WIDE) as (page, log):
        name = target_name(page)
        faults.set(name, ("slow", 300_000))
        configure(page)
        start_e6(page)
        page.wait_for_function("() => { const e = document.querySelector('#e6 .c13-e6-progress');"
                               " return e.dataset.phase === 'weights' && Number(e.dataset.bytes) > 0; }",
                               timeout=RUN_TIMEOUT_MS)
        page.wait_for_timeout(500)
        ms = cancel_ms(page)
        assert page.get_attribute("#e6", "data-state") == "cancelled" and ms < CANCEL_BOUND_MS, (ms, progress(page))
        assert name in progress(page) and "重新下载" in progress(page), progress(page)
        assert focused(page)["tag"] != "BODY"
        faults.clear()
        start_e6(page)
        assert settle_e6(page)["state"] == "done", progress(page)
        assert len([u for u in log.requests if u.endswith("/" + name)]) == 2


@pytest.mark.slow("E6's and E2's runs in Chromium against a server that stalls or slows")
def test_a_stalled_download_fails_naming_the_file_and_the_retry_works_at_once(browser, faulty):
    faults, url = faulty
    with opened(browser, url + "lab.html", viewport=WIDE) as (page, log):
        # Pyodide first (its start runs silent for seconds: a short watchdog is for the download only)
        page.evaluate("""async () => { const { python } = await import(new URL('assets/c13/c13-widgets.js',
            document.baseURI).href); await python.ensure(); }""")
        page.evaluate(f"document.documentElement.dataset.c13StallMs = '{STALL_MS}'")
        name = target_name(page)
        files = e6_payload(page)["files"]
        part = 2_900_000
        faults.set(name, ("stall", part))
        configure(page)
        start_e6(page)
        page.wait_for_function(f"() => {{ const e = document.querySelector('#e6 .c13-e6-progress');"
                               f" return Number(e.dataset.bytes) >= {part}; }}", timeout=RUN_TIMEOUT_MS)
        stalled_at = time.perf_counter()
        # the counter shows what arrived, not a throttled earlier count (the other two files are whole by now)
        page.wait_for_timeout(400)
        assert shown_bytes(page) == part + files["tokenizer.json"] + files[f"{e6_payload(page)['drafts'][0]}.safetensors"]
        assert f"{part / 1e6:.1f}" in progress(page) or "已收到" in progress(page)
        page.wait_for_function("document.querySelector('#e6').dataset.state === 'failed'", timeout=STALL_MS + 10_000)
        waited = time.perf_counter() - stalled_at
        text = progress(page)
        assert name in text and "停滞" in text and "重试" in text, text
        assert waited < STALL_MS / 1000 + 3, waited
        # the connection is still open (it never closes): the retry must not wait for it
        faults.rules.clear()
        start_e6(page)
        state = settle_e6(page)
        assert state["state"] == "done", progress(page)
        faults.clear()


@pytest.mark.slow("E6's and E2's runs in Chromium against a server that stalls or slows")
def test_cancel_during_a_stall_and_while_running_settles_within_a_second(browser, faulty):
    faults, url = faulty
    with opened(browser, url + "lab.html", viewport=WIDE) as (page, log):
        name = target_name(page)
        faults.set(name, ("stall", 1_000_000))
        configure(page)
        start_e6(page)
        page.wait_for_function("Number(document.querySelector('#e6 .c13-e6-progress').dataset.bytes) >= 1000000",
                               timeout=RUN_TIMEOUT_MS)
        page.wait_for_timeout(300)
        ms = cancel_ms(page)
        assert page.get_attribute("#e6", "data-state") == "cancelled" and ms < CANCEL_BOUND_MS, (ms, progress(page))
        faults.rules.clear()
        long_run(page)
        ms = cancel_ms(page)
        assert page.get_attribute("#e6", "data-state") == "cancelled" and ms < CANCEL_BOUND_MS, (ms, progress(page))
        assert "不用重新下载" in progress(page)
        faults.clear()
        configure(page)
        start_e6(page)
        assert settle_e6(page)["state"] == "done", progress(page)
