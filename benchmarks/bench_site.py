"""
Time the site build and weigh what a first visit to the lesson page loads (Pyodide aside).

    .venv/bin/python benchmarks/bench_site.py [--data PATH] [--cold]

--data   build from this c13.json as it is (default: the build command's own freshness check)
--cold   also remove jieba's dictionary cache first, as on a machine that never built the site

Weight: when Chromium is installed, the page is opened headless against a local server that records
every request, so the figure is what a browser really fetched; otherwise the page's own <link>/<script>
references, the search worker and its index are summed (fonts and images not counted).
"""
import argparse
import functools
import gzip
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.pages.build import build
from generator.pages.serve import SiteHandler  # noqa: E402


class Recorder(SiteHandler):
    seen = []

    def do_GET(self):
        Recorder.seen.append(self.path.split("?")[0])
        super().do_GET()

    def log_message(self, *args):
        pass


def browser_weight(site, chromium):
    import http.server
    Recorder.seen = []
    handler = functools.partial(Recorder, directory=str(site), prefix="/")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        f"--user-data-dir={profile}", "--virtual-time-budget=8000", "--dump-dom", url],
                       capture_output=True, timeout=120)
    server.shutdown()
    server.server_close()
    files = sorted(set(Recorder.seen))
    sizes = {f: (site / f.lstrip("/")).stat().st_size for f in files if (site / f.lstrip("/")).is_file()}
    return sizes


def static_weight(site):
    page = (site / "index.html").read_text(encoding="utf-8")
    refs = re.findall(r'<(?:link rel="stylesheet"|script) [^>]*?(?:href|src)="([^"]+)"', page)
    worker = re.search(r'"search": "([^"]+)"', page)
    refs += [worker.group(1)] if worker else []
    refs += ["search/search_index.json", "index.html"]
    return {r: (site / r).stat().st_size for r in refs if (site / r).is_file()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=None)
    ap.add_argument("--cold", action="store_true")
    args = ap.parse_args()
    if args.cold:
        cache = Path(tempfile.gettempdir()) / "jieba.cache"
        cache.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        result = build(data=args.data, out=Path(tmp) / "site", log=lambda *a: None)
        print(f"build: {time.perf_counter() - t0:.1f} s ({'cold' if args.cold else 'warm'} jieba cache; "
              f"data {'regenerated' if result['regenerated'] else 'as found'})")
        site = result["site"]
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        sizes = browser_weight(site, chromium) if chromium else static_weight(site)
        how = "requests a headless Chromium made" if chromium else "the page's own references (no browser)"
        pyodide = {f: s for f, s in sizes.items() if "/pyodide/" in f}
        rest = {f: s for f, s in sizes.items() if f not in pyodide}
        fonts = sum(s for f, s in rest.items() if f.endswith((".woff2", ".woff", ".ttf")))
        print(f"first visit of index.html, from {how}:")
        for f, s in sorted(rest.items(), key=lambda kv: -kv[1]):
            print(f"  {s:>9,} B  {f}")
        total = sum(rest.values())
        print(f"  {total:>9,} B  in all without Pyodide ({total - fonts:,} B without the {fonts:,} B of math fonts)")
        zipped = sum(len(gzip.compress((site / f.lstrip("/")).read_bytes(), 6)) for f in rest
                     if not f.endswith((".woff2", ".png")))
        print(f"  {zipped + fonts:>9,} B  the same with gzip (level 6) on text files, as a compressing host serves it")
        if pyodide:
            print(f"  Pyodide fetched on this visit: {sum(pyodide.values()):,} B")
        whole = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
        print(f"the whole built site: {whole:,} B")


if __name__ == "__main__":
    main()
