"""Helpers of the browser tests: the Chromium to drive, pages opened with a record of their requests and errors,
and the steps that the E2 tests share."""
import json
import os
import random
import re
import shutil
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from generator.shared_sampler import sampler
from tests.sitelib import drafts_by_size

PREFIX = "/course/c13/"
EXPERIMENTS = ("e1", "e2", "tv", "pair", "e3", "e4", "e5")  # the lesson page's (index.html)
LAB_EXPERIMENTS = ("e6",)  # the measurement lab's (lab.html)
EXPERIMENT_PAGES = {"index.html": EXPERIMENTS, "lab.html": LAB_EXPERIMENTS}
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 # belt and braces: no host name resolves, so nothing could leave even if something tried
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]
PYODIDE_TIMEOUT_MS = 60_000
WIDE = {"width": 1280, "height": 900}
# a phone: the context arguments of every 375 px test
PHONE = {"viewport": {"width": 375, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


def chromium_path():
    path = os.environ.get("C13_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).is_file():
        pytest.fail(f"Chromium is not installed at {path}: install Debian's package (apt-get install -y chromium), "
                    "or point $C13_CHROMIUM at a Chromium binary")
    return path


class Log:
    """Everything a page did: requests (its workers' too), console errors, uncaught exceptions."""

    def __init__(self, origin, allow_errors=()):
        self.origin = origin
        self.requests, self.errors = [], []
        # patterns of the errors a test provokes on purpose (a Pyodide file made missing): only those are let pass
        self.allowed = [re.compile(p) for p in allow_errors]

    def attach(self, context, page):
        context.on("request", lambda r: self.requests.append(r.url))
        page.on("console", lambda m: self.errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        page.on("worker", lambda w: w.on("console", lambda m: self.errors.append(f"worker console.{m.type}: {m.text}")
                                         if m.type == "error" else None))

    def foreign(self):
        return [u for u in self.requests if not u.startswith(self.origin) and not u.startswith(("data:", "blob:"))]

    def unexpected(self):
        return [e for e in self.errors if not any(p.search(e) for p in self.allowed)]

    def check(self):
        """Nothing left the local origin, nothing was logged as an error (but the allowed ones), and the recorder
        saw requests."""
        assert self.requests, "a page made no request at all: the recorder is broken"
        assert not self.foreign(), f"requests to another origin: {self.foreign()}"
        assert not self.unexpected(), "\n".join(self.unexpected())


@contextmanager
def opened(browser, url, allow_errors=(), routes=(), **context_args):
    """A page in a fresh context, its log checked when it closes. allow_errors: regular expressions of console
    errors the test provokes on purpose; routes: (pattern, handler) pairs set on the context before the page opens."""
    context = browser.new_context(**context_args)
    for pattern, handler in routes:
        context.route(pattern, handler)
    page = context.new_page()
    log = Log("{0.scheme}://{0.netloc}/".format(urlsplit(url)), allow_errors)
    log.attach(context, page)
    try:
        page.goto(url)
        if context_args.get("java_script_enabled", True):  # a page without experiments (provenance) has none to wait for
            page.wait_for_function("!document.querySelector('section.c13-exp')"
                                   " || document.documentElement.dataset.c13Widgets === 'ready'", timeout=15_000)
        yield page, log
    finally:
        context.close()
    log.check()


@contextmanager
def from_disk(browser, site, settle_ms, name="index.html"):
    """The built page `name` opened from disk (file://), as a reader who double-clicks it (index.html, lab.html):
    yields the page, the URLs it requested and the errors it threw or logged to the console (a module script refused
    from file:// is one), once it has loaded and settle_ms more have passed."""
    context = browser.new_context()
    page = context.new_page()
    requests, errors = [], []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(f"console: {m.text}"))
    context.on("request", lambda r: requests.append(r.url))
    try:
        page.goto((site / name).as_uri())
        page.wait_for_load_state("load")
        page.wait_for_timeout(settle_ms)
        yield page, requests, errors
    finally:
        context.close()


def dataset(page, selector):
    return page.evaluate("s => Object.assign({}, document.querySelector(s).dataset)", selector)


def wait_ready(page):
    """E2's Python ready: E2 brought into view (Python starts when the reader reaches it), then its state awaited."""
    page.locator("#e2 [role=tablist]").scroll_into_view_if_needed()
    page.wait_for_function("document.querySelector('#e2').dataset.pyodide === 'ready'", timeout=PYODIDE_TIMEOUT_MS)


def cancel_e2_run(page, timeout=10_000):
    """Tab ③, the correct scheme: ×100,000 pressed and its 取消 right after; returns once the run reads cancelled."""
    page.click("#e2 [role=tab] >> nth=2")
    page.check("#e2 .c13-predict input[value=correct]")
    page.evaluate("""() => {
        document.querySelector("#e2 button[data-n='100000']").click();
        [...document.querySelectorAll('#e2 .c13-run button')].find(b => b.textContent === '取消' && !b.hidden).click();
    }""")
    page.wait_for_function("document.querySelector('#e2 [data-run=main]').dataset.state === 'cancelled'",
                           timeout=timeout)


def run_main(page, prediction, n, seed):
    """Tab ③: answer the prediction, set the seed, press the run button for n rounds; the summary's dataset."""
    page.click("#e2 [role=tab] >> nth=2")
    page.check(f"#e2 .c13-predict input[value={prediction}]")
    page.fill("#e2 input.c13-seed", str(seed))
    page.click(f"#e2 button[data-n='{n}']")
    page.wait_for_function("['done', 'failed'].includes(document.querySelector('#e2 [data-run=main]').dataset.state)",
                           timeout=PYODIDE_TIMEOUT_MS)
    return dataset(page, "#e2 [data-run=main]")


def choose(page, prefix, draft):
    page.check(f"#e2 .c13-controls input[value='{prefix}']")
    page.check(f"#e2 .c13-controls input[value='{draft}']")


def names(data):
    """The prefixes (the replay's first) and the drafts as the page orders them: small, large (by parameters)."""
    main = data["replay"]["prompt"]
    prefixes = [main] + [p for p in data["distributions"] if p != main]
    return prefixes, drafts_by_size(data)


def one_round_matches_sampler_py(page, data, tab, button, seed, scheme):
    """Run one round in E2's tab with a given seed; the page's record must be CPython's one_round, exactly."""
    prefixes, drafts = names(data)
    choose(page, prefixes[0], drafts[0])
    page.click(f"#e2 [role=tab] >> nth={tab}")
    page.fill("#e2 input.c13-seed", str(seed))
    page.click(f"#e2 [role=tabpanel] >> nth={tab} >> text={button}")
    page.wait_for_function("document.querySelector('#e2 .c13-panel:not([hidden]) .c13-round').dataset.record")
    record = json.loads(page.get_attribute("#e2 .c13-panel:not([hidden]) .c13-round", "data-record"))
    entry = data["distributions"][prefixes[0]]
    expected = sampler.one_round(sampler.Pair(entry["p"], entry["q"][drafts[0]]), random.Random(seed), scheme)
    assert record == expected
    return expected


def focused(page):
    """What has the keyboard focus: tag, role, text, id, type, value, which experiment, its outline."""
    return page.evaluate("""() => { const a = document.activeElement;
        return { tag: a.tagName, role: a.getAttribute('role'), text: (a.textContent || '').trim().slice(0, 40),
                 id: a.id, type: a.getAttribute('type'), value: a.value, inE2: !!a.closest('#e2'),
                 inE4: !!a.closest('#e4'), outline: getComputedStyle(a).outlineStyle,
                 outlineWidth: parseFloat(getComputedStyle(a).outlineWidth) }; }""")


def tab_until(page, test, limit=60, key="Tab"):
    """Press `key` until the focused element passes `test`; fail after `limit` presses."""
    for _ in range(limit):
        page.keyboard.press(key)
        now = focused(page)
        if test(now):
            return now
    pytest.fail(f"{key} never reached the wanted control; last focus: {focused(page)}")


# every "×" figure printed in a subtree whose text node has no [data-kind] ancestor ("1×" alone is the line of not
# speculating, not a figure); the built page's own check is tests/pages/test_site_speed_kinds.py
UNMARKED_SPEEDS = """root => {
  const out = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const m of node.data.matchAll(/(?<![\\d.])\\d[\\d.,]*(?:–[\\d.,]+)?×/g)) {
      if (m[0] !== "1×" && !node.parentElement.closest("[data-kind]")) out.push(node.data);
    }
  }
  return out;
}"""
