"""The trimmed standard library in Chromium: every experiment runs on it without falling back (E2's
rounds and a ×10,000 run, E6 with a tiny run), and the bytes fetched from E2's first interaction to its first result
stay within the goal; on the full archive Chromium imports nothing the kept list lacks; an import missing from the
trimmed archive makes the worker start again on the full one, once, with an info line and no error. E2 runs on the
lesson page (index.html), E6 on the measurement lab's (lab.html), each page with its own worker."""
import re

import pytest
from browserlib import WIDE, dataset, one_round_matches_sampler_py, opened, run_main, wait_ready
from test_e6 import configure, run

from generator.pages.stdlib import kept_members

GOAL_BYTES = 4_500_000  # the goal: bytes as served (gzip where the server gzips) before E2's first result
FALLBACK = re.compile(r"full/python_stdlib\.zip")


def pyodide_worker(page):
    workers = [w for w in page.workers if w.url.endswith("/pyodide-worker.mjs")]
    assert len(workers) == 1, [w.url for w in page.workers]
    return workers[0]


def record_console(page):
    """Every console line of the page's workers (info included: the fallback says so only as info)."""
    lines = []
    page.on("worker", lambda w: w.on("console", lambda m: lines.append(f"{m.type}: {m.text}")))
    return lines


def run_e2(page, data):
    page.click("#e2 [role=tab] >> nth=2")
    wait_ready(page)
    one_round_matches_sampler_py(page, data, 2, "跑一轮", 777, "correct")
    assert run_main(page, "correct", 10_000, 5)["state"] == "done"


def run_e6(page, data):
    configure(page, k=2, temperature=0, n_new=16)
    assert run(page, seed=3)["state"] == "done", page.inner_text("#e6")


RUN_EVERY_EXPERIMENT = {"index.html": run_e2, "lab.html": run_e6}  # each page's experiments that use Pyodide


@pytest.mark.slow("every experiment run in Chromium on the trimmed and the full stdlib")
def test_every_experiment_runs_on_the_trimmed_stdlib_within_the_bytes_goal(browser, served, site, data):
    trimmed = site / "assets" / "vendor" / "pyodide" / "python_stdlib.zip"
    full = site / "assets" / "vendor" / "pyodide" / "full" / "python_stdlib.zip"
    assert trimmed.stat().st_size < full.stat().st_size / 3
    with opened(browser, served + "index.html", viewport=WIDE) as (page, log):
        lines = record_console(page)
        finished = []
        page.context.on("requestfinished", lambda r: finished.append(r))
        page.wait_for_load_state("networkidle")
        before = {r.url for r in finished}
        page.click("#e2 [role=tab] >> nth=2")
        wait_ready(page)
        one_round_matches_sampler_py(page, data, 2, "跑一轮", 777, "correct")
        sent = {}  # a worker's request may be reported twice: each URL once
        for r in finished:
            if r.url not in before and r.url not in sent:
                sent[r.url] = r.sizes()["responseBodySize"]
        first = sum(sent.values())
        stdlib = [n for url, n in sent.items() if url.endswith("/pyodide/python_stdlib.zip")]
        assert stdlib == [trimmed.stat().st_size], stdlib
        assert first <= GOAL_BYTES, f"{first:,} bytes before E2's first result (goal {GOAL_BYTES:,})"
        assert run_main(page, "correct", 10_000, 5)["state"] == "done"
        assert pyodide_worker(page).evaluate("self.c13Stdlib") == "trimmed"
        assert not [u for u in log.requests if FALLBACK.search(u)], "the full archive was fetched"
        assert not [line for line in lines if FALLBACK.search(line)], lines
    with opened(browser, served + "lab.html", viewport=WIDE) as (page, log):  # E6, in the lab page's own worker
        lines = record_console(page)
        run_e6(page, data)
        assert pyodide_worker(page).evaluate("self.c13Stdlib") == "trimmed"
        assert not [u for u in log.requests if FALLBACK.search(u)], "the full archive was fetched"
        assert not [line for line in lines if FALLBACK.search(line)], lines


@pytest.mark.slow("every experiment run in Chromium on the trimmed and the full stdlib")
def test_on_the_full_archive_chromium_imports_only_kept_modules(browser, served, site, data):
    full = (site / "assets" / "vendor" / "pyodide" / "full" / "python_stdlib.zip").read_bytes()
    serve_full = ("**/assets/vendor/pyodide/python_stdlib.zip",
                  lambda route: route.fulfill(status=200, body=full, headers={"content-type": "application/zip"}))
    imported = set()
    for name, run_them in RUN_EVERY_EXPERIMENT.items():
        with opened(browser, served + name, viewport=WIDE, routes=[serve_full]) as (page, _):
            run_them(page, data)
            imported |= set(pyodide_worker(page).evaluate("self.c13StdlibMembers()"))
    assert len(imported) > 50, imported
    missing = sorted(set(imported) - set(kept_members()))
    assert not missing, ("imported in Chromium but not kept (record again: node tests/widgets/node/record_stdlib.mjs "
                         f"--write): {missing}")


# sampler.py as served, with an import of a module the trimmed archive drops ('statistics'): at import time, or
# inside a call (the first round), the two places the worker watches
DROPPED = {
    "at-import": "\nimport statistics\n",
    "in-a-call": "\n_one_round = one_round\n\n\ndef one_round(pair, rng, scheme):\n    import statistics\n"
                 "    return _one_round(pair, rng, scheme)\n",
}


@pytest.mark.slow("every experiment run in Chromium on the trimmed and the full stdlib")
@pytest.mark.parametrize("where", sorted(DROPPED))
def test_an_import_missing_from_the_trimmed_stdlib_falls_back_to_the_full_one(browser, served, site, data, where):
    assert "statistics.py" not in kept_members()
    source = (site / "assets" / "c13" / "sampler.py").read_text(encoding="utf-8") + DROPPED[where]
    patched = ("**/assets/c13/sampler.py",
               lambda route: route.fulfill(status=200, body=source, headers={"content-type": "text/x-python"}))
    with opened(browser, served + "index.html", viewport=WIDE, routes=[patched]) as (page, log):
        lines = record_console(page)
        page.click("#e2 [role=tab] >> nth=2")
        wait_ready(page)
        one_round_matches_sampler_py(page, data, 2, "跑一轮", 777, "correct")
        assert pyodide_worker(page).evaluate("self.c13Stdlib") == "full"
        assert dataset(page, "#e2")["pyodide"] == "ready"
        fetched = [u for u in log.requests if FALLBACK.search(u)]
        assert len(fetched) == 1, fetched
        said = [line for line in lines if FALLBACK.search(line)]
        assert len(said) == 1 and said[0].startswith("info: ") and "statistics" in said[0], lines
