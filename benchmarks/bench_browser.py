"""
The live experiments in a real browser: what a first visit transfers, how soon Pyodide is ready, how long
100,000 rounds take. Prints figures; asserts nothing.

    .venv/bin/python benchmarks/bench_browser.py [--site DIR] [--runs 3]

The site is built into a temporary folder (or --site names a built one) and served from localhost by the
`serve` command's own handler, gzip included, with a recorder of every response: the bytes on the wire
(Content-Length, compressed when gzip was used) and the file's own size. Debian's Chromium is driven by
Playwright (/usr/bin/chromium, or $C13_CHROMIUM), a fresh profile per visit, 1280 × 900.

Figures:
- before Pyodide: everything the page fetched on load, until the reader reaches E2 (search index included)
- Pyodide ready: from the reader's first interaction with E2 (a click on its third tab) to "ready", as the
  page measures it; for a server whose gzip cache is cold (first request of the wasm) and warm
- 100,000 rounds: the sampler's time inside the worker, and click-to-result on the page
- after: what starting Pyodide and the runs transferred
"""
import argparse
import functools
import http.server
import os
import shutil
import statistics
import sys
import tempfile
import threading
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.pages.build import build
from generator.pages.serve import SiteHandler  # noqa: E402

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


class Recorder(SiteHandler):
    log = []

    def send_header(self, keyword, value):
        if keyword.lower() == "content-length":
            self._c13_length = int(value)
        elif keyword.lower() == "content-encoding":
            self._c13_encoding = value
        super().send_header(keyword, value)

    def do_GET(self):
        self._c13_length, self._c13_encoding = 0, None
        super().do_GET()
        path = urlsplit(self.path).path
        local = Path(self.translate_path(self.path))
        if local.is_dir():
            local = local / "index.html"
        size = local.stat().st_size if local.is_file() else 0
        Recorder.log.append((path, self._c13_length, self._c13_encoding, size))

    def log_message(self, *args):
        pass


def serve(site):
    handler = functools.partial(Recorder, directory=str(site), prefix="/")
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


def visit(browser, url, runs):
    """One first visit: load, reach E2, run 100,000 rounds `runs` times. Returns the figures and the log split."""
    Recorder.log = []
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(url + "index.html", wait_until="load")
    page.wait_for_function("document.documentElement.dataset.c13Widgets === 'ready'", timeout=20_000)
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(800)  # the search worker fetches its index after load
    before = list(Recorder.log)
    assert not any("/pyodide/" in p for p, *_ in before), "Pyodide was requested before the reader reached E2"
    page.click("#e2 [role=tab] >> nth=2")
    page.wait_for_function("document.querySelector('#e2').dataset.pyodide === 'ready'", timeout=120_000)
    ready_ms = float(page.get_attribute("#e2", "data-pyodide-ready-ms"))
    page.check("#e2 .c13-predict input[value=correct]")
    inside, wall = [], []
    for i in range(runs):
        page.fill("#e2 input.c13-seed", str(1000 + i))
        page.click("#e2 button[data-n='100000']")
        page.wait_for_function("document.querySelector('#e2 [data-run=main]').dataset.state === 'done'", timeout=60_000)
        inside.append(float(page.get_attribute("#e2 [data-run=main]", "data-ms")))
        text = page.inner_text("#e2 [data-run=main]")
        wall.append(float(text.split("从点击到结果 ")[1].split(" ms")[0]))
    after = Recorder.log[len(before):]
    context.close()
    return {"ready_ms": ready_ms, "inside": inside, "wall": wall, "before": before, "after": after}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--site", default=None, help="a built site folder (default: build one into a temporary folder)")
    ap.add_argument("--runs", type=int, default=3, help="100,000-round runs per visit")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright
    chromium = os.environ.get("C13_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(args.site) if args.site else build(ROOT / "precomputed" / "c13.json", out=Path(tmp) / "site",
                                                       log=lambda *a: None)["site"]
        server, url = serve(site)
        print(f"site {site}, served with gzip at {url}; Chromium {chromium}; {os.cpu_count()} CPU cores")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=ARGS)
            cold = visit(browser, url, args.runs)   # the server compresses the wasm on its first request
            warm = visit(browser, url, args.runs)   # a second reader: server cache warm, browser cache empty
            print(f"Chromium {browser.version}")
            browser.close()
        server.shutdown()

    print_requests("\nfirst visit, before Pyodide is requested", cold["before"])
    print_requests("after the reader reaches E2 (Pyodide + sampler + runs)", cold["after"])
    print(f"\nPyodide ready after the first interaction with E2: {cold['ready_ms'] / 1000:.2f} s "
          f"(server's gzip cache cold), {warm['ready_ms'] / 1000:.2f} s (warm)")
    allin = cold["inside"] + warm["inside"]
    allwall = cold["wall"] + warm["wall"]
    print(f"100,000 rounds in the browser (correct scheme, 2,048 tokens): sampler {statistics.median(allin):.0f} ms "
          f"median (min {min(allin):.0f}, max {max(allin):.0f}; {len(allin)} runs), click to result "
          f"{statistics.median(allwall):.0f} ms median")
    wire_before = sum(sent for _, sent, _, _ in cold["before"])  # bytes on the wire before Pyodide, first visit
    print(f"goals: ready < 3 s, 100,000 rounds < 1 s, < 500 KB before Pyodide → "
          f"{'met' if cold['ready_ms'] < 3000 else 'MISSED'}, "
          f"{'met' if max(allwall) < 1000 else 'MISSED'}, {'met' if wire_before < 500_000 else 'MISSED'}")


if __name__ == "__main__":
    main()
