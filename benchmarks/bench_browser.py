"""
The live experiments in a real browser, each figure as a ratio to its reference measured in alternation: what a
first visit transfers, how soon Pyodide is ready against a bare Pyodide boot, and how long E2's ×100,000 runs take
against the same calls in CPython. Medians and ranges; asserts nothing.

    .venv/bin/python benchmarks/bench_browser.py [--site DIR] [--visits 3] [--runs 3] [--read-ms 1500] [--quick]

The site is built into a temporary folder (or --site names a built one) and served from localhost by the
`serve` command's own handler, gzip included, with a recorder of every response: the bytes on the wire
(Content-Length, compressed when gzip was used) and the file's own size. Debian's Chromium is driven by
Playwright (/usr/bin/chromium, or $C13_CHROMIUM), a fresh profile per visit, 1280 × 900.

One cycle, repeated --visits times (--quick: once, one later run, no run pressed at "ready"):
1. bare boot: a blank page of the same origin starts a module worker that does `loadPyodide()` alone (the site's
   copy, its trimmed standard library, as the lesson loads it), timed from the worker's creation to the promise's settling;
2. the lesson: the reader's first interaction with E2 (a click on its third tab) to "ready" as the page measures
   it (the worker's creation included); the reader then reads for --read-ms, presses ×100,000 (the correct
   scheme, seed 1000) — the first run — and then --runs more (seeds 1001…): the sampler's time inside the worker
   (E2's data-ms) and click to result;
3. a run pressed at "ready" (a second lesson visit): the page presses ×100,000 the moment Pyodide is ready, while
   the worker warms up: click to result, and how long the request waited (click to result − time inside);
4. CPython: a fresh process runs the worker's own Python (widgets/py/c13_worker.py) on the very JSON texts the
   page sends, the same seeds (benchmarks/bench_sampler.py --worker-calls): the first run after building the pair,
   and the later ones.
Ratios pair the figures of one cycle: ready / bare boot; first run / CPython's first run; later runs / CPython's
later runs (medians within the cycle).
"""
import argparse
import functools
import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.pages.build import build  # noqa: E402
from generator.pages.serve import SiteHandler  # noqa: E402

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]
N, CHUNK, FIRST_SEED = 100_000, 10_000, 1000  # E2's large run: its size and chunk (e2/index.js), the bench's seeds
BARE = "__bare__/"
BARE_PAGE = """<!doctype html><meta charset=utf-8><title>bare Pyodide boot</title><script type=module>
const t0 = performance.now();
const worker = new Worker(new URL("worker.mjs", location.href), { type: "module" });
worker.onmessage = (e) => { document.documentElement.dataset.bootMs = String(performance.now() - t0);
  document.documentElement.dataset.version = e.data; };
</script>"""
BARE_WORKER = """const indexURL = new URL("../assets/vendor/pyodide/", self.location.href).href;
const { loadPyodide } = await import(indexURL + "pyodide.mjs");
const py = await loadPyodide({ indexURL, packageBaseUrl: indexURL, cdnUrl: indexURL, stdout: () => {}, stderr: () => {} });
self.postMessage(py.version);
"""
# the host module, for its snapshot (the warm-up's report) and E2's default pair as the page sends it
HOST = "new URL('assets/c13/python-host.js', document.baseURI).href"
UTIL = "new URL('assets/c13/c13-util.js', document.baseURI).href"


class Recorder(SiteHandler):
    log = []

    def send_header(self, keyword, value):
        if keyword.lower() == "content-length":
            self._c13_length = int(value)
        elif keyword.lower() == "content-encoding":
            self._c13_encoding = value
        super().send_header(keyword, value)

    def do_GET(self):
        path = urlsplit(self.path).path
        if path.startswith("/" + BARE):
            self.send_bare(path.removeprefix("/" + BARE))
            return
        self._c13_length, self._c13_encoding = 0, None
        super().do_GET()
        local = Path(self.translate_path(self.path))
        if local.is_dir():
            local = local / "index.html"
        size = local.stat().st_size if local.is_file() else 0
        Recorder.log.append((path, self._c13_length, self._c13_encoding, size))

    def send_bare(self, name):
        body, kind = {"": (BARE_PAGE, "text/html"), "worker.mjs": (BARE_WORKER, "text/javascript")}.get(name, ("", ""))
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", f"{kind or 'text/plain'}; charset=utf-8")
        self.send_header("Content-Length", str(len(body.encode())))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


def serve(site, handler_class=None):
    """Serve site at / on a free local port with handler_class (a SiteHandler; Recorder by default) in a thread."""
    handler = functools.partial(handler_class or Recorder, directory=str(site), prefix="/")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def kb(n):
    return f"{n / 1000:,.1f} KB"


def print_requests(title, requests):
    """A total line (bytes on the wire, gzip where the server compressed; the files' own size), then each."""
    wire = sum(n for _, n, _, _ in requests)
    raw = sum(size for _, _, _, size in requests)
    print(f"{title}: {len(requests)} requests, {kb(wire)} transferred (gzip where the server compresses), "
          f"{kb(raw)} uncompressed")
    for path, n, enc, size in sorted(requests, key=lambda r: -r[1]):
        print(f"  {n:>9,} B sent{' (gzip)' if enc else '       '}  of {size:>9,} B  {path}")


def bare_boot(browser, url):
    """ms from a module worker's creation to loadPyodide() settled, in a fresh context."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(url + BARE)
    page.wait_for_function("document.documentElement.dataset.bootMs", timeout=120_000)
    ms = float(page.evaluate("document.documentElement.dataset.bootMs"))
    context.close()
    return ms


def open_lesson(browser, url):
    """A fresh context on the lesson, everything loaded, the reader not yet at E2."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(url + "index.html", wait_until="load")
    page.wait_for_function("document.documentElement.dataset.c13Widgets === 'ready'", timeout=20_000)
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(800)  # the search worker fetches its index after load
    return context, page


def press(page, seed):
    """Press ×100,000 with a seed; (ms inside the worker, click to result in ms) once it is done."""
    page.fill("#e2 input.c13-seed", str(seed))
    page.click(f"#e2 button[data-n='{N}']")
    return finished(page)


def finished(page):
    page.wait_for_function("['done', 'failed'].includes(document.querySelector('#e2 [data-run=main]').dataset.state)",
                           timeout=300_000)
    if page.get_attribute("#e2 [data-run=main]", "data-state") != "done":
        raise RuntimeError("the run failed: " + page.inner_text("#e2 .c13-run"))
    inside = float(page.get_attribute("#e2 [data-run=main]", "data-ms"))
    text = page.inner_text("#e2 [data-run=main]")
    return inside, float(text.split("从点击到结果 ")[1].split(" ms")[0])


def warmup_report(page):
    return page.evaluate(f"async () => (await import({HOST})).python.snapshot().warmup || null")


def default_pair(page):
    """E2's default pair as the page sends it to the worker: its key and the two JSON texts."""
    return page.evaluate(f"""async () => {{ const {{ decodeProbs }} = await import({UTIL});
      const d = JSON.parse(document.getElementById('c13-widget-data').textContent);
      const [prefix, draft] = [d.prefixes[0], d.drafts[0]];
      return {{ key: prefix + '|' + draft, p: JSON.stringify(decodeProbs(d.distributions[prefix].p)),
               q: JSON.stringify(decodeProbs(d.distributions[prefix].q[draft])) }}; }}""")


def visit(browser, url, runs, read_ms):
    """The reader's visit: reach E2, wait for ready, read, then the first run and `runs` later ones."""
    Recorder.log = []
    context, page = open_lesson(browser, url)
    before = list(Recorder.log)
    assert not any("/pyodide/" in p for p, *_ in before), "Pyodide was requested before the reader reached E2"
    page.click("#e2 [role=tab] >> nth=2")
    page.wait_for_function("document.querySelector('#e2').dataset.pyodide === 'ready'", timeout=120_000)
    ready_ms = float(page.get_attribute("#e2", "data-pyodide-ready-ms"))
    page.check("#e2 .c13-predict input[value=correct]")
    page.wait_for_timeout(read_ms)
    warmup = warmup_report(page)
    first = press(page, FIRST_SEED)
    to_first = Recorder.log[len(before):]  # what the reader downloaded from reaching E2 to its first result
    later = [press(page, FIRST_SEED + 1 + i) for i in range(runs)]
    pair = default_pair(page)
    after = Recorder.log[len(before):]
    context.close()
    return {"ready_ms": ready_ms, "warmup": warmup, "first": first, "later": later, "pair": pair,
            "before": before, "after": after, "to_first": to_first}


def pressed_at_ready(browser, url):
    """A run pressed by the page the moment Pyodide is ready (during the warm-up): (inside, wall), the warm-up."""
    context, page = open_lesson(browser, url)
    page.click("#e2 [role=tab] >> nth=2")
    page.check("#e2 .c13-predict input[value=correct]")
    page.fill("#e2 input.c13-seed", str(FIRST_SEED))
    page.evaluate(f"""async () => {{ const {{ python }} = await import({HOST});
      const button = document.querySelector("#e2 button[data-n='{N}']");
      let pressed = false;
      python.subscribe((s) => {{ if (s.state === 'ready' && !pressed) {{ pressed = true; button.click(); }} }}); }}""")
    result = finished(page)
    warmup = warmup_report(page)
    context.close()
    return result, warmup


def cpython(pair, seeds):
    """The same calls in a fresh CPython process (bench_sampler.py --worker-calls)."""
    ask = dict(pair, n=N, chunk=CHUNK, seeds=seeds)
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_sampler.py"), "--worker-calls"],
                         input=json.dumps(ask), capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def spread(values, unit="", digits=0):
    """median (min–max, count)"""
    f = f"{{:.{digits}f}}"
    return (f"{f.format(statistics.median(values))}{unit} median (range {f.format(min(values))}–"
            f"{f.format(max(values))}{unit}, {len(values)})")


def cycle(browser, url, args):
    """One alternation: bare boot, the reader's visit, a run pressed at ready, CPython. Returns the figures."""
    bare = bare_boot(browser, url)
    seen = visit(browser, url, args.runs, args.read_ms)
    at_ready = None if args.quick else pressed_at_ready(browser, url)
    ref = cpython(seen["pair"], [FIRST_SEED + i for i in range(args.runs + 1)])
    return {"bare": bare, "seen": seen, "at_ready": at_ready, "ref": ref}


def print_first_result_bytes(requests):
    """Bytes as served (gzip where the server gzips) from the first interaction with E2 to its first result, beside
    what Pyodide's own python_stdlib.zip and lock file would have cost in place of the site's trimmed copies."""
    from generator.pages.serve import gzipped
    wire = sum(sent for _, sent, _, _ in requests)
    pyodide = ROOT / "node_modules" / "pyodide"
    full = wire + sum((pyodide / name).stat().st_size if name.endswith(".zip") else len(gzipped(pyodide / name)[0])
                      for name in ("python_stdlib.zip", "pyodide-lock.json"))
    full -= sum(sent for path, sent, _, _ in requests if path.endswith(("/python_stdlib.zip", "/pyodide-lock.json")))
    print(f"bytes before E2's first result: {wire / 1e6:.2f} MB as served (goal ≤ 4.5 MB → "
          f"{'met' if wire <= 4_500_000 else 'MISSED'}); with Pyodide's full python_stdlib.zip and lock file "
          f"{full / 1e6:.2f} MB")


def report(cycles, read_ms):
    """Every figure as a ratio to its reference within its cycle: medians and ranges over the cycles."""
    first_visit = cycles[0]["seen"]
    print_requests("\nfirst visit, before Pyodide is requested", first_visit["before"])
    print_requests("after the reader reaches E2 (Pyodide + sampler + runs)", first_visit["after"])
    print_first_result_bytes(first_visit["to_first"])
    seen = [c["seen"] for c in cycles]
    ready = [s["ready_ms"] for s in seen]
    bare = [c["bare"] for c in cycles]
    print(f"\nPyodide ready after the first interaction with E2: {spread(ready, ' ms')}; bare loadPyodide() "
          f"{spread(bare, ' ms')}; ratio {spread([r / b for r, b in zip(ready, bare)], '×', 2)}")
    warm = [s["warmup"] for s in seen]
    print("warm-up after ready: " + ("none reported" if not any(warm) else
          spread([w["ms"] for w in warm if w], " ms") + f", {warm[0]['rounds']:,} rounds"
          f"{' (stopped by a request)' if any(w and w['stopped'] for w in warm) else ''}"))
    first = [s["first"][0] for s in seen]
    ref_first = [c["ref"]["runs"][0] for c in cycles]
    later = [statistics.median(i for i, _ in s["later"]) for s in seen]
    ref_later = [statistics.median(c["ref"]["runs"][1:]) for c in cycles]
    print(f"CPython {cycles[0]['ref']['python']}, the same calls: pair built in "
          f"{spread([c['ref']['pair_ms'] for c in cycles], ' ms', 1)}; first run {spread(ref_first, ' ms')}; "
          f"later runs {spread(ref_later, ' ms')}")
    print(f"first ×100,000 run in the browser (after reading {read_ms} ms): sampler {spread(first, ' ms')}, "
          f"click to result {spread([s['first'][1] for s in seen], ' ms')}")
    first_ratio = [a / b for a, b in zip(first, ref_first)]
    later_ratio = [a / b for a, b in zip(later, ref_later)]
    print(f"  first run / CPython's first run: {spread(first_ratio, '×', 2)}")
    print(f"later ×100,000 runs in the browser: sampler {spread(later, ' ms')}")
    print(f"  later runs / CPython's later runs: {spread(later_ratio, '×', 2)}")
    print(f"  first run / the later runs of its own visit: {spread([a / b for a, b in zip(first, later)], '×', 2)}")
    at_ready = [c["at_ready"] for c in cycles if c["at_ready"]]
    if at_ready:
        waits = [wall - inside for (inside, wall), _ in at_ready]
        stopped = sum(1 for _, w in at_ready if w and w["stopped"])
        print(f"a run pressed at ready (during the warm-up in {stopped} of {len(at_ready)}): sampler "
              f"{spread([i for (i, _), _ in at_ready], ' ms')}, waited {spread(waits, ' ms')} (click to result − inside), "
              f"ratio to CPython's first {spread([i / r for ((i, _), _), r in zip(at_ready, ref_first)], '×', 2)}")
    wire_before = sum(sent for _, sent, _, _ in first_visit["before"])
    print(f"goals: ready ≤ 1.05× bare boot, first run ≤ 1.5× CPython, < 500 KB before Pyodide → "
          f"{'met' if statistics.median(ready) <= 1.05 * statistics.median(bare) else 'MISSED'}, "
          f"{'met' if statistics.median(first_ratio) <= 1.5 else 'MISSED'}, "
          f"{'met' if wire_before < 500_000 else 'MISSED'}")



def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--site", default=None, help="a built site folder (default: build one into a temporary folder)")
    ap.add_argument("--visits", type=int, default=3, help="alternation cycles (bare boot, visit, CPython)")
    ap.add_argument("--runs", type=int, default=3, help="later ×100,000 runs per visit, after the first")
    ap.add_argument("--read-ms", type=int, default=1500, help="how long the reader reads between ready and the first run")
    ap.add_argument("--quick", action="store_true", help="one cycle, one later run, no run pressed at ready")
    args = ap.parse_args()
    if args.quick:
        args.visits, args.runs = 1, 1
    from playwright.sync_api import sync_playwright
    chromium = os.environ.get("C13_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(args.site) if args.site else build(ROOT / "precomputed" / "c13.json", out=Path(tmp) / "site",
                                                       log=lambda *a: None)["site"]
        server, url = serve(site)
        print(f"site {site}, served with gzip at {url}; Chromium {chromium}; {os.cpu_count()} CPU cores; "
              f"load average {os.getloadavg()[0]:.1f}")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=ARGS)
            print(f"Chromium {browser.version}; {args.visits} cycles")
            cycles = [cycle(browser, url, args) for _ in range(args.visits)]
            browser.close()
        server.shutdown()
    report(cycles, args.read_ms)


if __name__ == "__main__":
    main()
