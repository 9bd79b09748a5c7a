"""Build the lesson site from one c13.json (stage 3: c13.json → site/).

build: check the browser packages in node_modules (npm ci when missing), validate the c13.json it is given
(the data contract: schema version, digest, keys), run `mkdocs build --strict` into a temporary folder next to
the target and swap it into place, so a failed build leaves the previous site as it was. Any MkDocs warning
fails the build (MkDocs' own strict mode misses some). The hook generator/pages/hooks.py copies KaTeX,
iframe-worker and Pyodide from node_modules into the site and renders every page from the data.

This stage reads c13.json only: whether that file is fresh, and regenerating it, is the command line's job
(generator/cli.py `build`), which runs before this.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..contract import load
from ..errors import SettingError
from .experiments import SERVE_PLAIN

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "site"
CONFIG = ROOT / "mkdocs.yml"
NPM_PACKAGES = ("katex", "iframe-worker", "pyodide")
NOISE = ("Building prefix dict", "Loading model", "Prefix dict has been built", "Dumping model")  # jieba's
WARNING = re.compile(r"^\s*WARNING\b")


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


def mkdocs_build(data, out, config=CONFIG):
    """`mkdocs build --strict` with the data at `data`, into `out` (which must not exist yet).

    Run without --quiet, so that MkDocs counts its warnings, and refused on any WARNING line it prints too.
    Returns the lines it printed (progress noise removed)."""
    env = dict(os.environ, C13_DATA=str(Path(data).resolve()), NO_MKDOCS_2_WARNING="1")
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(out)]
    result = subprocess.run(cmd, cwd=Path(config).parent, env=env, capture_output=True, text=True)
    lines = [ln for ln in (result.stdout + result.stderr).splitlines() if ln.strip() and not ln.startswith(NOISE)]
    warnings = [ln for ln in lines if WARNING.match(ln)]
    if result.returncode != 0 or warnings:
        shown = [ln for ln in lines if not ln.startswith("INFO")]
        raise SettingError("mkdocs build --strict failed; the previous site is left as it was:\n  "
                           + "\n  ".join(shown[-30:]))
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


def build(data, out=SITE, log=print, config=CONFIG):
    """Build the pages from the c13.json at `data` with the MkDocs config `config`.

    Returns a dict with the site path, the data and the seconds taken."""
    started = time.perf_counter()
    data, out = Path(data), Path(out).resolve()
    load(data)  # the contract: a bad file stops here, named with its field, before MkDocs starts
    ensure_node_modules(log=log)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    try:
        built = tmp / "site"
        mkdocs_build(data, built, config)
        swap_into_place(built, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"site": out, "data": data, "seconds": time.perf_counter() - started}


def report(result, log=print):
    site = result["site"]
    log(f"built the site in {result['seconds']:.1f} s: {site}")
    log("read it offline:")
    log("  make serve                         then open http://127.0.0.1:8000/ (experiments run live)")
    log(f"  (with only the built folder: cd {site} && {SERVE_PLAIN}, then open http://127.0.0.1:8000/)")
    log(f"  or open {site / 'index.html'} straight from disk (pages and search work; experiments show "
        "their static versions)")
