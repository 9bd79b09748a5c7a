"""The five experiments in a real browser: Debian's Chromium driven by Playwright for Python.

The site is built once into a temporary folder and served by generator.pages.build.make_server (the `serve`
command's server, gzip included) under a sub-path, /course/c13/, on a free port. Every request each page
makes is recorded (workers included) and every console message kept; the last tests check that nothing
left the local origin and that no error was logged.

Needs: /usr/bin/chromium (Debian's package `chromium`; another path with $C13_CHROMIUM) and the Python
packages playwright and axe-playwright-python (pyproject's `test` extra). Playwright never downloads a
browser here.
"""
import json
import math
import os
import random
import shutil
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
PREFIX = "/course/c13/"
EXPERIMENTS = ("e1", "e2", "e3", "e4", "e5")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 # belt and braces: no host name resolves, so nothing could leave even if something tried
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]
PYODIDE_TIMEOUT_MS = 60_000

from generator.data.shared_sampler import sampler  # noqa: E402
from generator.pages.build import build
from generator.pages.serve import make_server  # noqa: E402


def data_file():
    return Path(os.environ.get("C13_DATA") or ROOT / "precomputed" / "c13.json")


def chromium_path():
    path = os.environ.get("C13_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).is_file():
        pytest.fail(f"Chromium is not installed at {path}: install Debian's package (apt-get install -y chromium), "
                    "or point $C13_CHROMIUM at a Chromium binary")
    return path


@pytest.fixture(scope="module")
def data():
    return json.loads(data_file().read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("browser-site") / "site"
    return build(data=data_file(), out=out, log=lambda *a: None)["site"]


@pytest.fixture(scope="module")
def served(site):
    server, url = make_server(site, port=0, prefix=PREFIX, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("playwright is not installed: pip install -e '.[test]' (it installs the pinned playwright)")
    executable = chromium_path()
    pw = sync_playwright().start()
    try:
        b = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield b
        b.close()
    finally:
        pw.stop()


class Log:
    """Everything a page did: requests (its workers' too), console errors, uncaught exceptions."""

    def __init__(self, origin):
        self.origin = origin
        self.requests, self.errors = [], []

    def attach(self, context, page):
        context.on("request", lambda r: self.requests.append(r.url))
        page.on("console", lambda m: self.errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        page.on("worker", lambda w: w.on("console", lambda m: self.errors.append(f"worker console.{m.type}: {m.text}")
                                         if m.type == "error" else None))

    def foreign(self):
        return [u for u in self.requests if not u.startswith(self.origin) and not u.startswith(("data:", "blob:"))]


LOGS = []


def open_page(browser, url, **context_args):
    context = browser.new_context(**context_args)
    page = context.new_page()
    origin = "{0.scheme}://{0.netloc}/".format(urlsplit(url))
    log = Log(origin)
    log.attach(context, page)
    LOGS.append(log)
    page.goto(url)
    if context_args.get("java_script_enabled", True):
        page.wait_for_function("document.documentElement.dataset.c13Widgets === 'ready'", timeout=15_000)
    return context, page, log


@pytest.fixture(scope="module")
def lesson(browser, served):
    context, page, log = open_page(browser, served + "index.html", viewport={"width": 1280, "height": 900})
    yield page, log
    context.close()


@pytest.fixture(scope="module")
def phone(browser, served):
    context, page, log = open_page(browser, served + "index.html", viewport={"width": 375, "height": 740},
                                   device_scale_factor=2, is_mobile=True, has_touch=True)
    yield page, log
    context.close()


def dataset(page, selector):
    return page.evaluate("s => Object.assign({}, document.querySelector(s).dataset)", selector)


def wait_ready(page):
    page.wait_for_function("document.querySelector('#e2').dataset.pyodide === 'ready'", timeout=PYODIDE_TIMEOUT_MS)


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
    models = data["models"]
    drafts = sorted((n for n, m in models.items() if m["role"] == "draft"), key=lambda n: models[n]["parameters"])
    main = data["replay"]["prompt"]
    prefixes = [main] + [p for p in data["distributions"] if p != main]
    return prefixes, drafts


# ---------------------------------------------------------------------------------------------
# every widget renders
# ---------------------------------------------------------------------------------------------


def test_every_experiment_renders_once(lesson, data):
    page, log = lesson
    for e in EXPERIMENTS:
        assert page.get_attribute(f"#{e}", "data-c13-init") == "done", e
        assert page.locator(f"#{e} > .c13-live").count() == 1, f"{e} was initialised more than once"
        assert page.locator(f"#{e} .c13-live").first.is_visible()
    a = data["anchor"]
    # E1: a cell chosen by click shows the anchor's figure for it
    assert "15.30 ms" in page.inner_text("#e1 .c13-e1-panel") or f"{a['weight_read_ms_per_token']:.2f} ms" in \
        page.inner_text("#e1 .c13-e1-panel")
    page.click("#e1 g.c13-cell[data-cell=compute]")
    panel = page.inner_text("#e1 .c13-e1-panel")
    assert page.get_attribute("#e1 .c13-e1-panel", "data-cell") == "compute"
    assert f"{a['positions_verified']} 个位置" in panel and "GFLOP" in panel
    # E2: the stacked picture and the α of the chosen pair
    prefixes, drafts = names(data)
    assert page.locator("#e2 .c13-e2-picture svg .c13-col").count() >= 8
    assert f"{data['distributions'][prefixes[0]]['alpha'][drafts[0]] * 100:.1f}%" in page.inner_text("#e2 .c13-e2-stats")
    # E3: real scale, then small scale
    assert page.get_attribute("#e3 figure[data-v]", "data-v") == str(a["vocab_size"])
    page.check("#e3 input[value=small]")
    assert page.get_attribute("#e3 figure[data-v]", "data-v") == "8"
    # E4: one step
    page.click("#e4 .c13-e4-bar button >> nth=3")
    assert page.get_attribute("#e4", "data-step") == "1"
    assert page.get_attribute("#e4", "data-tokens") == str(data["replay"]["rounds"][0]["yield"])
    # E5: α = 0.8, c = 0, k = 1 (the preset, then the sliders set by hand) reads exactly 1.8
    for key, value in (("alpha", "0.8"), ("c", "0"), ("k", "1")):
        page.fill(f"#e5 input[type=range][id$='-{key}']", value)
    assert page.inner_text("#e5 output[id$='-yield']") == "1.8"
    assert page.inner_text("#e5 output[id$='-speedup']") == "1.80×"
    page.fill("#e5 input[type=range][id$='-k']", "4")
    assert page.inner_text("#e5 output[id$='-yield']") == f"{(1 - 0.8 ** 5) / 0.2:.3f}".rstrip("0").rstrip(".")


def test_a_page_change_initialises_the_new_page_once_and_keeps_the_one_worker(browser, served):
    """What the theme's instant navigation would do: new content in place, then document$ emits it."""
    context, page, log = open_page(browser, served + "index.html", viewport={"width": 1280, "height": 900})
    try:
        page.locator("#e2 [role=tablist]").scroll_into_view_if_needed()
        wait_ready(page)
        workers = [u for u in log.requests if u.endswith("pyodide-worker.mjs")]
        assert len(workers) == 1
        page.evaluate("""async () => {
            const doc = new DOMParser().parseFromString(await (await fetch(location.href)).text(), 'text/html');
            document.querySelector('article').replaceWith(document.importNode(doc.querySelector('article'), true));
            document.getElementById('c13-widget-data').replaceWith(
                document.importNode(doc.getElementById('c13-widget-data'), true));
            window.document$.next(document);
        }""")
        page.wait_for_function("[...document.querySelectorAll('section.c13-exp')].every(s => s.dataset.c13Init === 'done')",
                               timeout=15_000)
        for e in EXPERIMENTS:
            assert page.locator(f"#{e} > .c13-live").count() == 1, e
        # the new E2 finds the tab's worker ready: no second worker, no second Pyodide
        assert page.get_attribute("#e2", "data-pyodide") == "ready"
        r = run_main(page, "correct", 10_000, 9)
        assert r["state"] == "done"
        assert [u for u in log.requests if u.endswith("pyodide-worker.mjs")] == workers
        assert len([u for u in log.requests if u.endswith("pyodide.asm.wasm")]) == 1
    finally:
        context.close()


def test_token_labels_are_inserted_as_text(lesson, data):
    page, _ = lesson
    labels = data["tokenizer"]["labels"]
    shown = page.eval_on_selector_all("#e2 .c13-live .c13-tok, #e4 .c13-live .c13-tok", "els => els.map(e => e.textContent)")
    assert shown and all(s in labels for s in shown)
    # a label with markup characters would be text, never an element: no element inside a token box
    assert page.eval_on_selector_all(".c13-live .c13-tok", "els => els.filter(e => e.children.length).length") == 0


# ---------------------------------------------------------------------------------------------
# E2 in Pyodide
# ---------------------------------------------------------------------------------------------


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


def one_round_matches_sampler_py(page, data, tab, button, seed, scheme):
    """Run one round in E2's tab with a given seed; the page's record must be CPython's one_round, exactly."""
    prefixes, drafts = names(data)
    choose(page, prefixes[0], drafts[0])
    page.click(f"#e2 [role=tab] >> nth={tab}")
    page.fill("#e2 input.c13-seed", str(seed))
    page.click(f"#e2 [role=tabpanel] >> nth={tab} >> text={button}")
    page.wait_for_function("document.querySelector('#e2 .c13-panel:not([hidden]) .c13-round').dataset.record")
    rec = json.loads(page.get_attribute("#e2 .c13-panel:not([hidden]) .c13-round", "data-record"))
    d = data["distributions"][prefixes[0]]
    expected = sampler.one_round(sampler.Pair(d["p"], d["q"][drafts[0]]), random.Random(seed), scheme)
    assert rec == expected
    return expected


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
        text = page.inner_text("#e2 [data-run=repro]")
        assert repr(ref["tv"]) in text and "逐位相同" in text
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


def test_a_run_reports_progress_never_freezes_the_page_and_can_be_cancelled(lesson, data):
    page, _ = lesson
    wait_ready(page)
    # the button: pressed right after starting, the run ends as cancelled and the page says so
    page.click("#e2 [role=tab] >> nth=2")
    page.check("#e2 .c13-predict input[value=correct]")
    page.evaluate("""() => {
        document.querySelector("#e2 button[data-n='100000']").click();
        [...document.querySelectorAll('#e2 .c13-run button')].find(b => b.textContent === '取消' && !b.hidden).click();
    }""")
    page.wait_for_function("document.querySelector('#e2 [data-run=main]').dataset.state === 'cancelled'", timeout=10_000)
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
        assert page.locator("#e2 details.c13-static-box svg").first.is_visible()
        # a run asked for now says why it cannot happen instead of hanging
        page.check("#e2 .c13-predict input[value=correct]")
        page.click("#e2 button[data-n='10000']")
        page.wait_for_function("document.querySelector('#e2 [data-run=main]').dataset.state === 'failed'", timeout=10_000)
        assert "运行失败" in page.inner_text("#e2 .c13-run:has([data-run=main]) .c13-progress")
        assert not errors, errors
    finally:
        context.close()


# ---------------------------------------------------------------------------------------------
# quality of use
# ---------------------------------------------------------------------------------------------


def focused(page):
    return page.evaluate("""() => { const a = document.activeElement;
        return { tag: a.tagName, role: a.getAttribute('role'), text: (a.textContent || '').trim().slice(0, 40),
                 id: a.id, type: a.getAttribute('type'), value: a.value, inE2: !!a.closest('#e2'),
                 inE4: !!a.closest('#e4'), outline: getComputedStyle(a).outlineStyle,
                 outlineWidth: parseFloat(getComputedStyle(a).outlineWidth) }; }""")


def tab_until(page, test, limit=60, key="Tab"):
    for _ in range(limit):
        page.keyboard.press(key)
        f = focused(page)
        if test(f):
            return f
    pytest.fail(f"{key} never reached the wanted control; last focus: {focused(page)}")


def test_keyboard_alone_drives_e2_and_e4(phone):
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
    # E4: the control group takes the arrow keys, Home and End; its buttons take Enter
    page.focus("#exp-e4 a.headerlink")
    f = tab_until(page, lambda f: f["inE4"] and f["role"] == "group")
    assert f["outline"] != "none"
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert page.get_attribute("#e4", "data-step") == "3"
    page.keyboard.press("End")
    rounds = page.evaluate("JSON.parse(document.getElementById('c13-widget-data').textContent).replay.rounds.length")
    assert page.get_attribute("#e4", "data-step") == str(rounds)
    page.keyboard.press("Home")
    assert page.get_attribute("#e4", "data-step") == "0"
    tab_until(page, lambda f: f["tag"] == "BUTTON" and f["text"].startswith("下一轮"))
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    assert page.get_attribute("#e4", "data-step") == "2"
    assert "第 2 / " in page.inner_text("#e4 .c13-totals")


def test_no_horizontal_overflow_at_375px(phone):
    page, _ = phone
    wait_ready(page)
    for e in ("#e1", "#e3", "#e4", "#e5"):
        page.locator(e).scroll_into_view_if_needed()
    page.click("#e4 .c13-e4-bar button >> nth=4")  # the whole replayed text
    widths = page.evaluate("""() => ({ doc: document.documentElement.scrollWidth, view: document.documentElement.clientWidth,
        body: document.body.scrollWidth, inner: window.innerWidth })""")
    assert widths["view"] == 375
    assert widths["doc"] <= widths["view"] and widths["body"] <= widths["view"], widths
    # nothing sticks out of the screen, except inside a box that scrolls on its own (wide tables)
    wide = page.evaluate("""() => {
        const scrolls = (el) => { for (let a = el.parentElement; a; a = a.parentElement) {
            if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(a).overflowX)) return true; } return false; };
        return [...document.querySelectorAll('.c13-exp *')].filter(el => {
            const r = el.getBoundingClientRect();
            return r.width > 0 && (r.right > document.documentElement.clientWidth + 1 || r.left < -1)
                && !el.closest('details:not([open])') && !scrolls(el);
        }).map(el => `${el.tagName}.${typeof el.className === 'string' ? el.className : el.className.baseVal}`).slice(0, 5); }""")
    assert not wide, f"elements stick out of a 375 px screen: {wide}"


def axe_serious(page):
    """Everything on the page is checked, the theme's markup included (the hook names its search dialog)."""
    from axe_playwright_python.sync_playwright import Axe
    results = Axe().run(page)
    bad = [v for v in results.response["violations"] if v.get("impact") in ("serious", "critical")]
    return [f"{v['id']} ({v['impact']}): {v['help']} — " + "; ".join(n["target"][0] for n in v["nodes"][:4]) for v in bad]


def test_axe_finds_no_serious_or_critical_violation_light(lesson):
    page, _ = lesson
    page.click("#e2 [role=tab] >> nth=2")
    page.click("#e2 button.c13-term >> nth=0")  # an explanation open, a picture highlighted
    problems = axe_serious(page)
    assert not problems, "\n".join(problems)


def test_axe_finds_no_serious_or_critical_violation_dark(browser, served):
    context, page, log = open_page(browser, served + "index.html", viewport={"width": 1280, "height": 900},
                                   color_scheme="dark")
    try:
        assert page.get_attribute("body", "data-md-color-scheme") == "slate"
        page.click("#e1 g.c13-cell[data-cell=prefill]")
        page.click("#e4 .c13-e4-bar button >> nth=4")
        problems = axe_serious(page)
        assert not problems, "\n".join(problems)
    finally:
        context.close()


# ---------------------------------------------------------------------------------------------
# without JavaScript, and from disk
# ---------------------------------------------------------------------------------------------


def test_with_javascript_disabled_every_static_version_is_there(browser, served):
    context, page, log = open_page(browser, served + "index.html", java_script_enabled=False)
    try:
        for e in EXPERIMENTS:
            section = page.locator(f"#{e}")
            assert section.is_visible()
            assert page.locator(f"#{e} .c13-live").count() == 0
            assert page.locator(f"#{e} svg, #{e} table").count() >= 1, e
            assert page.locator(f"#{e} svg, #{e} table").first.is_visible(), e
        assert not [u for u in log.requests if "pyodide" in u or u.endswith(".mjs")]
    finally:
        context.close()


def test_from_disk_the_static_versions_and_the_notice_show_and_nothing_throws(browser, site):
    context = browser.new_context()
    page = context.new_page()
    errors, requests = [], []
    page.on("pageerror", lambda e: errors.append(str(e)))
    context.on("request", lambda r: requests.append(r.url))
    try:
        page.goto((site / "index.html").as_uri())
        page.wait_for_load_state("load")
        page.wait_for_timeout(500)
        assert page.locator("#e2 .c13-exp-notice").is_visible()
        assert "make serve" in page.inner_text("#e2 .c13-exp-notice") or "serve" in page.inner_text("#e2 .c13-exp-notice")
        for e in EXPERIMENTS:
            assert page.locator(f"#{e} svg, #{e} table").count() >= 1, e
        assert not errors, errors
        assert not [u for u in requests if "pyodide.asm" in u], "Pyodide must not start from file://"
    finally:
        context.close()


# ---------------------------------------------------------------------------------------------
# the record of every page above
# ---------------------------------------------------------------------------------------------


def test_no_request_left_the_local_origin_and_no_error_was_logged():
    assert LOGS, "no page was opened"
    for log in LOGS:
        assert log.requests, "a page made no request at all: the recorder is broken"
        assert not log.foreign(), f"requests to another origin: {log.foreign()}"
        assert not log.errors, "\n".join(log.errors)
