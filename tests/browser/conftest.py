"""The experiments in a real browser (E1–E5 on the lesson page, index.html; E6 on the measurement lab's, lab.html):
Debian's Chromium driven by Playwright for Python.

The site is built once per session (the root conftest's `site`) and served by generator.pages.serve.make_server
(the `serve` command's server, gzip included) under a sub-path, /course/c13/, on a free port. Every request
each page makes is recorded (workers included) and every console message kept; when a page closes, nothing
may have left the local origin and no error may have been logged.

Needs: /usr/bin/chromium (Debian's package `chromium`; another path with $C13_CHROMIUM) and the Python
packages playwright and axe-playwright-python (pyproject's `test` extra). Playwright never downloads a
browser here.
"""
import threading

import pytest
from browserlib import CHROMIUM_ARGS, PHONE, PREFIX, WIDE, chromium_path, opened
from faultlib import serve_with_faults

from generator.pages.serve import make_server


@pytest.fixture(scope="session")
def served(site):
    server, url = make_server(site, port=0, prefix=PREFIX, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("playwright is not installed: pip install -e '.[test]' (it installs the pinned playwright)")
    executable = chromium_path()
    playwright = sync_playwright().start()
    try:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()
    finally:
        playwright.stop()


@pytest.fixture(scope="module")
def lesson(browser, served):
    """The lesson page at 1280 × 900, shared by the tests of one module (in their order)."""
    with opened(browser, served + "index.html", viewport=WIDE) as page_and_log:
        yield page_and_log


@pytest.fixture(scope="module")
def lab(browser, served):
    """The measurement lab's page (lab.html: the build machine's costs, the roofline, E6) at 1280 × 900, shared by the
    tests of one module (in their order)."""
    with opened(browser, served + "lab.html", viewport=WIDE) as page_and_log:
        yield page_and_log


@pytest.fixture(scope="module")
def phone(browser, served):
    with opened(browser, served + "index.html", **PHONE) as page_and_log:
        yield page_and_log


@pytest.fixture(scope="module", params=["light", "dark"])
def phone_page(request, browser, served):
    """The lesson page on a phone, once in each colour scheme."""
    with opened(browser, served + "index.html", color_scheme=request.param, **PHONE) as (page, _):
        yield page


@pytest.fixture(scope="module")
def faulty(site):
    """The site served by a server that slows, stalls or drops some files on demand (faultlib.py)."""
    with serve_with_faults(site) as faults_and_url:
        yield faults_and_url
