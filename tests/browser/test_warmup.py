"""The worker's warm-up: right after "ready" it runs the calls of a ×100,000 run on E2's default pair,
results discarded, so that the reader's first run is not paid in the runtime's slow tier. It must say that it ran
(a "warmup" message, kept in the host's snapshot, with its ms), leave every seeded result as it was (the offline
reproduction still equals c13.json to the last bit), and give way at once to a run pressed while it is going."""
import pytest

from browserlib import PYODIDE_TIMEOUT_MS, WIDE, dataset, names, opened

HOST = "new URL('assets/c13/python-host.js', document.baseURI).href"
# a warm-up made long on purpose (<html data-c13-warmup-rounds>): many seconds of work if it did not give way
LONG_WARMUP = 20_000_000
# what a run pressed during the warm-up may wait beyond its own time (click to result − time inside Python): a
# piece of the warm-up, the page's drawing and a loaded machine's scheduling; the long warm-up is far beyond it
WAIT_BOUND_MS = 1_500
# Pyodide's start on a 2-core machine shared by several test runs can take over a minute: these tests wait longer
BOOT_TIMEOUT_MS = 3 * PYODIDE_TIMEOUT_MS


def warmup(page):
    """The warm-up's report ({ms, rounds, stopped}) once the worker has sent it."""
    page.evaluate(f"async () => {{ window.c13Host = (await import({HOST})).python; }}")
    page.wait_for_function("!!window.c13Host.snapshot().warmup", timeout=BOOT_TIMEOUT_MS, polling=100)
    return page.evaluate("window.c13Host.snapshot().warmup")


def reproduce(page, data, press=None):
    """Tab ③'s 按离线检验重跑 on the default pair (correct scheme); its dataset and the offline figure."""
    prefixes, drafts = names(data)
    page.click("#e2 [role=tab] >> nth=2")
    page.check(f"#e2 .c13-controls input[value='{prefixes[0]}']")
    page.check(f"#e2 .c13-controls input[value='{drafts[0]}']")
    page.select_option("#e2 .c13-repro-box select", "correct")
    (press or (lambda: page.click("#e2 .c13-repro-box button")))()
    page.wait_for_function("['done', 'failed'].includes(document.querySelector('#e2 [data-run=repro]').dataset.state)",
                           timeout=BOOT_TIMEOUT_MS)
    return dataset(page, "#e2 [data-run=repro]"), data["offline"]["results"][prefixes[0]][drafts[0]]["correct"]


@pytest.mark.slow("Pyodide's warm-up in Chromium")
def test_the_worker_warms_up_after_ready_and_seeded_results_stay_the_offline_ones(browser, served, data):
    with opened(browser, served + "index.html", viewport=WIDE) as (page, _):
        page.click("#e2 [role=tab] >> nth=2")
        report = warmup(page)  # after "ready"
        assert page.get_attribute("#e2", "data-pyodide") == "ready"
        assert report["stopped"] is False and report["rounds"] > 0 and report["ms"] > 0, report
        run, ref = reproduce(page, data)
        assert run["state"] == "done" and int(run["n"]) == ref["n"] and int(run["seed"]) == ref["seed"], run
        assert float(run["tv"]) == ref["tv"] and run["equal"] == "true", (run["tv"], ref["tv"])


@pytest.mark.slow("Pyodide's warm-up in Chromium")
def test_a_run_pressed_during_the_warm_up_gives_way_at_once_and_is_right(browser, served, data):
    with opened(browser, served + "index.html", viewport=WIDE) as (page, _):
        page.evaluate(f"document.documentElement.dataset.c13WarmupRounds = '{LONG_WARMUP}'")

        def press_at_ready():
            # the page itself presses the moment Pyodide is ready: the worker has just begun its warm-up
            page.evaluate(f"""async () => {{ const {{ python }} = await import({HOST});
              const button = document.querySelector('#e2 .c13-repro-box button');
              let pressed = false;
              python.subscribe((s) => {{ if (s.state === 'ready' && !pressed) {{ pressed = true; button.click(); }} }});
            }}""")

        run, ref = reproduce(page, data, press_at_ready)
        report = warmup(page)
        assert report["stopped"] is True and report["rounds"] < LONG_WARMUP, report
        assert run["state"] == "done" and float(run["tv"]) == ref["tv"] and run["equal"] == "true", run
        text = page.inner_text("#e2 [data-run=repro]")
        inside = float(text.split("用时 ")[1].split(" ms")[0])
        wall = float(text.split("从点击起 ")[1].split(" ms")[0])
        assert wall - inside < WAIT_BOUND_MS, (wall, inside, report)
