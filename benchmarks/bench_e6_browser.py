"""
E6's costs in Chromium: ms per token of each model, c, v(1…8) and the speedup of speculative over target-only
sampling, then the JavaScript and WebAssembly SIMD forwards side by side, measured by benchmarks/bench_e6.mjs (the
very code `node benchmarks/bench_e6.mjs` runs) inside a page of the built site, with the site's own copies of the
E6 modules, forward.wasm, weights, Pyodide and sampler.py. Prints figures beside the build machine's torch figures
(precomputed/measured.json); asserts nothing.

    .venv/bin/python benchmarks/bench_e6_browser.py [--site DIR] [--quick] [--repeats N] [--drafts a,b] [--ks 1,2]

The site is built into a temporary folder (or --site names a built one) and served from 127.0.0.1 by the `serve`
command's handler; the benchmark script itself is served at /__bench__/ beside it (a blank page there is the
document the measurement runs in, on the page's main thread). When the site has no model files yet, the weights
come from precomputed/browser/ (float16, as the site's) or else from models/ (float32) through /__bench__/models/.
Debian's Chromium is driven by Playwright (/usr/bin/chromium, or $C13_CHROMIUM); no request leaves 127.0.0.1.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.pages.build import build  # noqa: E402
from generator.pages.serve import SiteHandler  # noqa: E402
from bench_browser import serve  # noqa: E402  (the same local server, with this benchmark's handler)

BENCH = "/__bench__/"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]
BLANK = b"<!doctype html><meta charset=utf-8><title>bench_e6</title><p>bench_e6</p>"


def weights_file(name):
    """The weights the browser bench falls back to: the data stage's float16 file, else the float32 checkpoint."""
    f16 = ROOT / "precomputed" / "browser" / name
    return f16 if f16.is_file() else ROOT / "models" / name.removesuffix(".safetensors") / "model.safetensors"


class BenchHandler(SiteHandler):
    """The site's handler, plus /__bench__/: a blank page, bench_e6.mjs with its tables and the fallback weights."""

    def translate_path(self, path):
        local = urlsplit(path).path
        if local in (BENCH + "bench_e6.mjs", BENCH + "bench_e6_table.mjs"):
            return str(ROOT / "benchmarks" / local.removeprefix(BENCH))
        name = local.removeprefix(BENCH + "models/")
        if name != local and name.endswith(".safetensors") and "/" not in name and not name.startswith("."):
            return str(weights_file(name))
        return super().translate_path(path)

    def do_GET(self):
        if urlsplit(self.path).path == BENCH:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(BLANK)))
            self.end_headers()
            self.wfile.write(BLANK)
        else:
            super().do_GET()

    def log_message(self, *args):
        pass


def c13_subset(path):
    """What the benchmark reads of c13.json: the prompts, the accounting's seeds, the models' names, the context."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return {"prompts": data["prompts"], "accounting": {k: data["accounting"][k] for k in ("prompts", "seeds")},
            "constants": data["constants"], "greedy": {"reference": data["greedy"]["reference"]}}


def run_in_chromium(url, payload, timeout_ms):
    from playwright.sync_api import sync_playwright
    chromium = os.environ.get("C13_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=ARGS)
        page = browser.new_page()
        page.set_default_timeout(timeout_ms)
        page.on("console", lambda msg: print(msg.text, file=sys.stderr, flush=True))
        page.on("pageerror", lambda err: print(f"page error: {err}", file=sys.stderr, flush=True))
        page.goto(url + BENCH[1:], wait_until="load")
        out = page.evaluate("""async (payload) => {
            const core = await import("/__bench__/bench_e6.mjs");
            return core.browserMain({ ...payload, site: location.origin + "/", fallback: "/__bench__/models/" });
        }""", payload)
        version = browser.version
        browser.close()
    return out, version


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].strip())
    ap.add_argument("--site", default=None, help="a built site folder (default: build one into a temporary folder)")
    ap.add_argument("--quick", action="store_true", help="few repeats and short runs (a smoke test)")
    ap.add_argument("--repeats", type=int, default=None, help="passes over the prompts × seeds (default 3)")
    ap.add_argument("--drafts", default=None, help="comma-separated drafts (default: both)")
    ap.add_argument("--ks", default=None, help="comma-separated k (default 1…8)")
    ap.add_argument("--json", default=None, help="also write the results as JSON to this file")
    args = ap.parse_args()
    argv = (["--quick"] if args.quick else []) + [x for flag in ("repeats", "drafts", "ks")
                                                   if getattr(args, flag) is not None
                                                   for x in (f"--{flag}", str(getattr(args, flag)))]
    data = ROOT / "precomputed" / "c13.json"
    measured = ROOT / "precomputed" / "measured.json"
    payload = {"c13": c13_subset(data), "argv": argv,
               "measured": json.loads(measured.read_text(encoding="utf-8")) if measured.is_file() else None}
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(args.site) if args.site else build(data, out=Path(tmp) / "site", log=lambda *a: None)["site"]
        server, url = serve(site, BenchHandler)
        print(f"site {site}, served at {url}; {os.cpu_count()} CPU cores", file=sys.stderr)
        try:
            out, version = run_in_chromium(url, payload, timeout_ms=3_600_000)
        finally:
            server.shutdown()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"Chromium {version} (page main thread), {os.cpu_count()} CPU cores, load average {load} (at the end)")
    print("\n".join(out["lines"]))
    if args.json:
        Path(args.json).write_text(json.dumps(out["results"], indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
