"""Build the lesson site from one c13.json (stage 3: c13.json → site/).

build: check the browser packages in node_modules (npm ci when missing), validate the c13.json it is given
(the data contract: schema version, digest, keys), run `mkdocs build --strict` into a temporary folder next to
the target and swap it into place, so a failed build leaves the previous site as it was. Any MkDocs warning
fails the build (MkDocs' own strict mode misses some), and so do a page of docs/ left out of the nav and a page
that loads anything from another origin. A build replaces only a folder it built (MARKER inside), an empty one or
none, and removes the temporary folders that killed builds left. The hook generator/pages/hooks.py copies KaTeX,
iframe-worker and Pyodide from node_modules into the site and renders every page from the data.

This stage reads c13.json only: whether that file is fresh, and regenerating it, is the command line's job
(generator/cli.py `build`), which runs before this.
"""
import fcntl
import glob
import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

from ..atomic import foreign_output, remove_unheld
from ..contract import load
from ..errors import SettingError
from .experiments import SERVE_PLAIN

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "site"
CONFIG = ROOT / "mkdocs.yml"
NPM_PACKAGES = ("katex", "iframe-worker", "pyodide", "wabt")  # wabt: assembles E6's forward.wasm (vendor.py)
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
        raise SettingError("npm ci failed (see its output above); the site needs katex, iframe-worker, pyodide "
                           "and wabt")
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


# What a page loads (not where it links to): these attributes of these tags, and url(…) / @import in CSS.
LOADS = {"img": ("src", "srcset"), "script": ("src",), "link": ("href", "imagesrcset"), "iframe": ("src",),
         "frame": ("src",), "embed": ("src",), "object": ("data",), "source": ("src", "srcset"),
         "video": ("src", "poster"), "audio": ("src",), "track": ("src",), "input": ("src",),
         "image": ("href", "xlink:href"), "use": ("href", "xlink:href")}
LINKS_NOT_LOADED = {"canonical", "alternate", "author", "license", "help", "me", "search", "next", "prev"}
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)|@import\s+['"]([^'"]+)""")
OMITTED = 'The following pages exist in the docs directory, but are not included in the "nav" configuration:'
# In inline script (a <script> without src, an on… attribute): every quoted absolute address, as in
# fetch("https://…"), import("//…"), new WebSocket("wss://…"); the XML namespaces of createElementNS are names.
SCRIPT_URL = re.compile(r"""(['"`])\s*((?:[a-z][a-z0-9+.-]*:)?//[^'"`\s]+)\s*\1""", re.I)
NAMESPACES = ("http://www.w3.org/2000/svg", "http://www.w3.org/1999/xhtml", "http://www.w3.org/1999/xlink",
              "http://www.w3.org/1998/Math/MathML", "http://www.w3.org/XML/1998/namespace")
SCRIPT_TYPES = ("", "module", "text/javascript", "application/javascript", "text/ecmascript")
# <meta http-equiv=refresh content="0;url=…"> (or "0; …", the url= left out): where the page goes next
REFRESH_URL = re.compile(r"""^\s*[\d.]*\s*[;,]?\s*(?:url\s*=\s*)?['"]?([^'"]*)""", re.I)


def script_urls(code):
    """The absolute addresses quoted in a piece of inline script, XML namespaces left out."""
    return [url for _, url in SCRIPT_URL.findall(code) if url not in NAMESPACES]


def from_elsewhere(url):
    """True for an address on another origin (http://…, https://…, //…): one with a host, or a scheme but data:."""
    parts = urlsplit(url.strip())
    return bool(parts.netloc) or parts.scheme.lower() not in ("", "data", "blob")


class Loaded(HTMLParser):
    """The addresses a page loads, each as (what, url): `<img src>`, a stylesheet's `<link href>`, CSS url(…), …"""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found, self._style, self._script = [], False, False

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        rels = set(a.get("rel", "").lower().split())
        if tag in LOADS and not (tag == "link" and rels and rels <= LINKS_NOT_LOADED):
            for key in LOADS[tag]:
                value = a.get(key, "")
                urls = [c.split()[0] for c in value.split(",") if c.strip()] if key.endswith("srcset") else [value]
                self.found += [(f"<{tag} {key}>", u) for u in urls if u]
        self.found += [(f"<{tag} style>", u or v) for u, v in CSS_URL.findall(a.get("style", ""))]
        self.found += [(f"<{tag} {key}>", u) for key, value in a.items() if key.startswith("on")
                       for u in script_urls(value)]
        if tag == "meta" and a.get("http-equiv", "").strip().lower() == "refresh":
            self.found += [("<meta http-equiv=refresh>", u.strip()) for u in REFRESH_URL.findall(a.get("content", ""))
                           if u.strip()]
        self._style = tag == "style"
        self._script = tag == "script" and not a.get("src") and a.get("type", "").strip().lower() in SCRIPT_TYPES

    def handle_data(self, data):
        if self._style:
            self.found += [("<style>", u or v) for u, v in CSS_URL.findall(data)]
        if self._script:
            self.found += [("<script>", u) for u in script_urls(data)]

    def handle_endtag(self, tag):
        self._style = self._script = False


def docs_dir(config):
    """The docs folder the MkDocs config `config` names (read as MkDocs reads it)."""
    from mkdocs.utils.yaml import yaml_load
    with open(config, "rb") as f:
        return Path(config).parent / (yaml_load(f).get("docs_dir") or "docs")


def built_page(built, rel):
    """The HTML that MkDocs made of docs/`rel` (with or without directory URLs), or None where it left it out."""
    names = [rel.with_suffix(".html"), rel.with_suffix("") / "index.html"]
    if rel.stem.lower() in ("index", "readme"):
        names.append(rel.parent / "index.html")
    return next((built / name for name in names if (built / name).is_file()), None)


def check_docs(config, lines, built):
    """Refuse what MkDocs lets through: a page of docs/ left out of the nav (MkDocs builds it as a page no menu
    reaches, and says so only at INFO), and a page that loads anything from another origin (the site must read
    offline; a plain link, <a href> to a paper, is fine)."""
    docs = docs_dir(config)
    start = next((i + 1 for i, line in enumerate(lines) if OMITTED in line), None)
    if start is not None:
        listed = itertools.takewhile(lambda ln: ln.lstrip().startswith("- "), lines[start:])
        omitted = [ln.strip()[2:] for ln in listed]
        also = f" (and {', '.join(omitted[1:])})" if omitted[1:] else ""
        raise SettingError(f"{docs / (omitted[0] if omitted else '')}{also}: a page left out of the nav of "
                           f"{config}: add it to nav, list it under not_in_nav (an orphan on purpose), or leave it "
                           "out with exclude_docs")
    for page in sorted(docs.rglob("*.md")):
        html = built_page(built, page.relative_to(docs))
        if html is None:
            continue  # excluded from the site (exclude_docs)
        parser = Loaded()
        parser.feed(html.read_text(encoding="utf-8"))
        bad = [(what, url) for what, url in parser.found if from_elsewhere(url)]
        if bad:
            more = f" ({len(bad) - 1} more like it)" if bad[1:] else ""
            raise SettingError(f"{page}: loads {bad[0][0]} {bad[0][1]} from another origin{more}; the site must "
                               "load nothing from elsewhere, to read offline: copy the file into docs/ and give its "
                               "relative path (a plain link, <a href> or [text](https://…), is fine)")


# Every site a build makes, and every temporary folder it works in, holds this file: a build replaces only a folder
# that holds it (or an empty one, or an older build's site recognised by its files), and removes only the
# temporary folders of killed builds that hold it. A dot-file: MkDocs never writes one, and no page links it.
MARKER = ".c13-build"
MARKER_TEXT = ("Made by `python -m generator build` (the C13 lesson site). The next build into this folder replaces "
               "it as a whole: keep nothing of your own here.\n")
OLD_BUILD_FILES = ("index.html", "search/search_index.json", "assets/c13/sampler.py")  # before the marker existed


def unwritable(out, error):
    """The one-line message of an OSError met while writing the site (a read-only folder, a file in the way, …)."""
    reason = getattr(error, "strerror", None) or str(error)
    if getattr(error, "filename", None) and Path(error.filename) != out:
        reason += f": {error.filename}"
    return SettingError(f"{out}: cannot write the site there ({reason}); nothing was changed: choose a writable "
                        "--out (or fix that folder's permissions) and build again")


def is_own_site(folder):
    """A folder a build made: it holds the marker, or it is an older build's site (made before the marker was)."""
    return (folder / MARKER).is_file() or all((folder / name).is_file() for name in OLD_BUILD_FILES)


def check_replaceable(out):
    """Refuse an `out` that a build may not replace: anything but a missing or empty folder or a site a build made.

    Checked before anything is written, so that `--out .` or `--out ~` deletes nothing."""
    problem = foreign_output(out, is_own_site, MARKER, "a build replaces its output folder as a whole")
    if problem:
        raise SettingError(f"{out}: {problem}; a build replaces only a site it built or an empty folder, and nothing "
                           "was changed: choose a new or empty folder for --out (or remove this one yourself)")


def remove_leftovers(out):
    """Remove the temporary folders that killed builds into `out` left next to it (`.NAME.building-*` holding the
    marker, which no running build holds locked); nothing else. Should `out` be missing because a build died
    between its two renames, the previous site it had moved aside is put back first."""
    def put_back(folder):
        if not out.exists() and (folder / "old").is_dir():
            os.rename(folder / "old", out)
    remove_unheld(out.parent.glob(f".{glob.escape(out.name)}.building-*"), MARKER, put_back)


def workspace(out):
    """A new temporary folder next to `out`, marked as a build's own and locked while this build runs (the lock
    goes with the process, so a later build can tell a killed build's folder from a running one's).

    Returns the folder and the open marker file, which holds the lock until it is closed."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        remove_leftovers(out)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
        lock = open(tmp / MARKER, "w", encoding="utf-8")
        fcntl.flock(lock, fcntl.LOCK_EX)
        lock.write(MARKER_TEXT)
        lock.flush()
    except OSError as e:
        raise unwritable(out, e) from None
    return tmp, lock


def swap_into_place(built, out, aside):
    """Replace `out` by `built` with two renames: the old site is moved `aside` (into the build's temporary folder)
    and moved back should the second rename fail, so that `out` is never left missing."""
    had_old = out.exists()
    try:
        if had_old:
            os.replace(out, aside)
        os.replace(built, out)
    except OSError as e:
        if had_old and aside.exists():
            try:
                os.replace(aside, out)
            except OSError:
                raise SettingError(f"{out}: cannot put the new site in place ({e.strerror or e}) nor the previous "
                                   f"one back: the previous site is in {aside}; move it back by hand") from None
        raise unwritable(out, e) from None


def build(data, out=SITE, log=print, config=CONFIG):
    """Build the pages from the c13.json at `data` with the MkDocs config `config`.

    Returns a dict with the site path, the data and the seconds taken."""
    started = time.perf_counter()
    data, out = Path(data), Path(out).resolve()
    load(data)  # the contract: a bad file stops here, named with its field, before MkDocs starts
    check_replaceable(out)
    ensure_node_modules(log=log)
    tmp, lock = workspace(out)
    try:
        built = tmp / "site"
        lines = mkdocs_build(data, built, config)
        check_docs(config, lines, built)
        try:
            (built / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
        except OSError as e:
            raise unwritable(out, e) from None
        swap_into_place(built, out, tmp / "old")
    finally:
        if out.exists() or not (tmp / "old").exists():  # else the previous site is still in there
            shutil.rmtree(tmp, ignore_errors=True)
        lock.close()
    return {"site": out, "data": data, "seconds": time.perf_counter() - started}


def report(result, log=print):
    site = result["site"]
    log(f"built the site in {result['seconds']:.1f} s: {site}")
    log("read it offline:")
    log("  make serve                         then open http://127.0.0.1:8000/ (experiments run live)")
    log(f"  (with only the built folder: cd {site} && {SERVE_PLAIN}, then open http://127.0.0.1:8000/)")
    log(f"  or open {site / 'index.html'} straight from disk (pages and search work; experiments show "
        "their static versions)")
