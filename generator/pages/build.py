"""Build the lesson site, and serve the built folder on localhost for offline reading.

build: check the browser packages in node_modules (npm ci when missing), check that precomputed/c13.json
still matches its inputs (regenerate it when stale, unless --data names another file), run
`mkdocs build --strict` into a temporary folder next to the target and swap it into place, so a failed
build leaves the previous site as it was. The hook generator/pages/hooks.py copies KaTeX, iframe-worker
and Pyodide from node_modules into the site and renders every page from the data.

serve: a small static server bound to 127.0.0.1 with the MIME types the site needs (.wasm, .mjs, .json),
optionally under a sub-path (--prefix /course/c13/) to check that the site works there too. Like a real host
it compresses text and WebAssembly with gzip for a client that accepts it (Content-Encoding: gzip, Vary:
Accept-Encoding), so what a browser transfers here is what it would transfer from a host.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..errors import InputError, SettingError

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"
PRECOMPUTED = ROOT / "precomputed"
SITE = ROOT / "site"
CONFIG = ROOT / "mkdocs.yml"
NPM_PACKAGES = ("katex", "iframe-worker", "pyodide")


def ensure_node_modules(root=ROOT, log=print):
    """The pinned browser packages must be in node_modules; install them from the lock file when not."""
    missing = [p for p in NPM_PACKAGES if not (root / "node_modules" / p / "package.json").is_file()]
    if not missing:
        return False
    npm = shutil.which("npm")
    if npm is None:
        raise SettingError(f"node_modules lacks {', '.join(missing)} and npm is not installed: "
                           "install Node 20 + npm, then run: npm ci")
    log(f"node_modules lacks {', '.join(missing)}: running npm ci (versions from package-lock.json)")
    if subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=root).returncode != 0:
        raise SettingError("npm ci failed (see its output above); the site needs katex, iframe-worker and pyodide")
    return True


def fresh_data(models=MODELS, precomputed=PRECOMPUTED, log=print, progress=True):
    """Return the path of an up-to-date c13.json, regenerating it when an input changed or it is missing."""
    from ..data.provenance import stale_inputs
    path = Path(precomputed) / "c13.json"
    try:
        changed = stale_inputs(path, models, precomputed) if path.is_file() else ["c13.json (missing)"]
    except InputError as e:  # unreadable JSON: regenerate it like a stale one
        changed = [str(e)]
    if not changed:
        log(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} is fresh")
        return path, False
    log(f"{path} must be regenerated; changed since it was made:")
    for name in changed:
        log(f"  - {name}")
    from ..data.precompute import generate
    started = time.perf_counter()
    generate(models, precomputed, path, progress=progress)
    log(f"regenerated {path} in {time.perf_counter() - started:.1f} s")
    return path, True


def mkdocs_build(data, out, config=CONFIG):
    """`mkdocs build --strict` with the data at `data`, into `out` (which must not exist yet)."""
    env = dict(os.environ, C13_DATA=str(Path(data).resolve()), NO_MKDOCS_2_WARNING="1")
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(config), "-d", str(out)]
    result = subprocess.run(cmd, cwd=Path(config).parent, env=env, capture_output=True, text=True)
    noise = ("Building prefix dict", "Loading model", "Prefix dict has been built", "Dumping model")
    lines = [ln for ln in (result.stdout + result.stderr).splitlines() if ln.strip() and not ln.startswith(noise)]
    if result.returncode != 0:
        raise SettingError("mkdocs build --strict failed; the previous site is left as it was:\n  "
                           + "\n  ".join(lines[-30:]))
    return lines


def swap_into_place(built, out):
    """Replace `out` by `built` with two renames; the old site is removed only once the new one is in place."""
    out = Path(out)
    old = None
    if out.exists():
        old = out.with_name(f".{out.name}.old-{os.getpid()}-{time.time_ns()}")
        os.replace(out, old)
    os.replace(built, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def build(data=None, out=SITE, models=MODELS, precomputed=PRECOMPUTED, log=print, progress=True):
    """The whole build. Returns a dict with the site path, the data used and the seconds taken."""
    started = time.perf_counter()
    out = Path(out).resolve()
    ensure_node_modules(log=log)
    if data is None:
        data, regenerated = fresh_data(models, precomputed, log=log, progress=progress)
    else:
        data, regenerated = Path(data), False
        if not data.is_file():
            raise InputError(data, None, "the data file given with --data is missing")
        log(f"using {data} as given (no freshness check)")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    try:
        built = tmp / "site"
        mkdocs_build(data, built)
        swap_into_place(built, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    seconds = time.perf_counter() - started
    return {"site": out, "data": Path(data), "regenerated": regenerated, "seconds": seconds}


def report(result, log=print):
    site = result["site"]
    log(f"built the site in {result['seconds']:.1f} s: {site}")
    log("read it offline:")
    log("  make serve                         then open http://127.0.0.1:8000/ (experiments run live)")
    log(f"  (with only the built folder: cd {site} && python3 -m http.server, then open http://127.0.0.1:8000/)")
    log(f"  or open {site / 'index.html'} straight from disk (pages and search work; experiments show "
        "their static versions)")
