"""What a reader downloads before starting anything: the lesson page (and the measurement lab's, E6's page) as served
(gzip), its styles, scripts and the embedded data, but nothing of Pyodide and nothing of E6 (its engine, model code,
tokenizer and weights load only when the reader presses 开始). The bound: 500 KB before Pyodide."""
import pytest
from browserlib import WIDE, opened

BEFORE_PYODIDE = 500_000  # bytes as transferred
LATER = ("/assets/vendor/pyodide/", "/assets/c13/models/", "/assets/c13/e6/engine.mjs", "/assets/c13/e6/model.mjs",
         "/assets/c13/e6/tokenizer.mjs", "/assets/c13/e6/speculate.mjs", "/assets/c13/sampler.py",
         "/assets/c13/py/")


@pytest.mark.slow("every request of the page counted in Chromium")
@pytest.mark.parametrize("name", ["index.html", "lab.html"])
def test_the_page_before_any_experiment_starts_stays_under_500_kb(browser, served, name):
    with opened(browser, served + name, viewport=WIDE) as (page, _):
        page.context.new_cdp_session(page).send("Network.setCacheDisabled", {"cacheDisabled": True})
        responses = []
        page.on("response", lambda response: responses.append(response))
        page.reload()  # from the network again, every byte counted
        page.wait_for_function("document.documentElement.dataset.c13Widgets === 'ready'", timeout=15_000)
        page.wait_for_load_state("networkidle")
        urls = [r.url for r in responses]
        sent = sum(r.request.sizes()["responseBodySize"] for r in responses)
    assert urls, "no response was recorded"
    assert not [u for u in urls if any(part in u for part in LATER)], urls
    assert sent <= BEFORE_PYODIDE, f"{name}: {sent:,} bytes before any experiment starts (bound {BEFORE_PYODIDE:,})"
