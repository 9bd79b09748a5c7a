"""
Time the site build against a plain `mkdocs build` of the same rendered pages, and weigh what a first visit
to the lesson page loads (Pyodide aside).

    .venv/bin/python benchmarks/bench_site.py [--rounds N] [--precomputed DIR | --data PATH] [--weight] [--cold]

Ratio: `python -m generator build` (the whole command: node_modules check, freshness check, rendering,
KaTeX, browser files) and a plain `mkdocs build` of the pages already rendered from the same c13.json, with
the same theme, plugins and Markdown extensions but no hooks, are run in alternation as subprocesses,
N rounds each; medians and ranges are printed, and the ratio of the medians.

--precomputed  the folder whose c13.json the build checks for freshness (default: precomputed/); a stale one
               is regenerated once by the warm-up build, which is not timed
--data    build from this c13.json as it is, without the freshness check
--weight  also build once more and weigh a first visit
--cold    remove jieba's dictionary cache first, as on a machine that never built the site

Weight: when Chromium is installed, the page is opened headless against a local server that records
every request, so the figure is what a browser really fetched; otherwise the page's own <link>/<script>
references, the search worker and its index are summed (fonts and images not counted).
"""
import argparse
import functools
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.pages.serve import SiteHandler  # noqa: E402

ENV = dict(os.environ, NO_MKDOCS_2_WARNING="1")


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


def rendered_docs(data_path, docs_out):
    """The lesson's templates rendered with the data exactly as the hooks render them, as plain Markdown."""
    import yaml
    from generator.pages.context import build_context
    from generator.pages.templates import make_env, render_page
    data = json.loads(Path(data_path).read_text(encoding="utf-8"))
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    ctx = build_context(data)
    ctx["qa_contact"] = config["extra"]["c13"]["qa_contact"]
    env = make_env()
    for src in sorted((ROOT / "docs").glob("*.md")):
        text = render_page(env, ctx, src.read_text(encoding="utf-8"), src.name)
        (docs_out / src.name).write_text(text, encoding="utf-8")


def plain_config(docs_dir, path):
    """mkdocs.yml as it is (theme, plugins, extensions, nav) without the hooks, reading docs_dir."""
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    text = re.sub(r"^hooks:\n(?:  - .*\n)+", "", text, flags=re.M)
    text = re.sub(r"^docs_dir: .*$", f"docs_dir: {docs_dir}", text, flags=re.M)
    text = re.sub(r"^strict: true$", "strict: false", text, flags=re.M)
    path.write_text(text, encoding="utf-8")


def timed(cmd):
    """Seconds the command took, and whether it had to regenerate the data first."""
    started = time.perf_counter()
    result = subprocess.run(cmd, cwd=ROOT, env=ENV, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{(result.stdout + result.stderr)[-3000:]}")
    return seconds, "must be regenerated" in result.stdout


def spread(values):
    return f"median {statistics.median(values):.2f} s (range {min(values):.2f}–{max(values):.2f} s)"


def build_ratio(rounds, data, precomputed, tmp):
    """Our build and a plain mkdocs build of the same rendered pages, alternated; returns the two lists of times."""
    ours = [sys.executable, "-m", "generator", "build", "--quiet", "--out", str(tmp / "ours")]
    if data:
        ours += ["--data", str(data)]
    else:
        ours += ["--precomputed", str(precomputed)]
        data = Path(precomputed) / "c13.json"
    timed(ours)  # warm-up: page cache, jieba's dictionary cache; regenerates the data when it is stale
    docs = tmp / "plain-docs"
    docs.mkdir()
    rendered_docs(data, docs)
    config = tmp / "plain-mkdocs.yml"
    plain_config(docs, config)
    plain = [sys.executable, "-m", "mkdocs", "build", "--quiet", "-f", str(config), "-d", str(tmp / "plain")]
    timed(plain)
    times = {"ours": [], "plain": []}
    for i in range(rounds):
        seconds, regenerated = timed(ours)
        if regenerated:  # an input changed while the benchmark ran: that round measures the data stage
            print(f"round {i + 1}: the build regenerated c13.json first (an input changed); not counted")
            continue
        times["ours"].append(seconds)
        times["plain"].append(timed(plain)[0])
    if not times["ours"]:
        sys.exit("every round regenerated the data: run the benchmark on a tree that is not changing")
    return times


def print_weight(site):
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--data", default=None)
    ap.add_argument("--precomputed", default=str(ROOT / "precomputed"))
    ap.add_argument("--weight", action="store_true")
    ap.add_argument("--cold", action="store_true")
    args = ap.parse_args()
    if args.cold:
        (Path(tempfile.gettempdir()) / "jieba.cache").unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        times = build_ratio(args.rounds, args.data, args.precomputed, tmp)
        print(f"python -m generator build:            {spread(times['ours'])}")
        print(f"plain mkdocs build, same pages:       {spread(times['plain'])}")
        ratio = statistics.median(times["ours"]) / statistics.median(times["plain"])
        pairs = [a / b for a, b in zip(times["ours"], times["plain"])]
        print(f"ratio (medians): {ratio:.2f}x  (per round {min(pairs):.2f}–{max(pairs):.2f}x, {len(pairs)} rounds "
              "in alternation after one warm-up each)")
        if args.weight:
            print_weight(tmp / "ours")


if __name__ == "__main__":
    main()
