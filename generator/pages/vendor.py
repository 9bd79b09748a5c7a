"""Browser files added to the build: the widgets, and the pinned packages from node_modules (no copies in docs/)."""
import hashlib
import shutil
import subprocess
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from .data_file import DataError, data_path, load_data
from .stdlib import FULL_DEST, LOCK, LOCK_DEST, STDLIB, TRIMMED_DEST, trimmed_lock, trimmed_stdlib

ROOT = Path(__file__).resolve().parents[2]

# Browser files copied from node_modules into the site: (package, file in the package, path in the site).
VENDOR = [("katex", "dist/katex.min.css", "assets/vendor/katex/katex.min.css"),
          ("katex", "LICENSE", "assets/vendor/katex/LICENSE"),
          ("iframe-worker", "shim/index.js", "assets/vendor/iframe-worker/shim.js"),
          ("iframe-worker", "LICENSE", "assets/vendor/iframe-worker/LICENSE")]
VENDOR_DIRS = [("katex", "dist/fonts", "assets/vendor/katex/fonts")]
# Pyodide 314 in a browser needs its loader, the emscripten module, the wasm, the standard library and the
# lock file (read at start even when no package is loaded). The widgets load it from assets/vendor/pyodide/.
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json",
                 "package.json")
# python_stdlib.zip: the site serves a trimmed copy in its place (stdlib.py) and keeps the full one under full/.
for _name in PYODIDE_FILES:
    if _name != LOCK:  # the site's lock file lists no package (stdlib.trimmed_lock)
        VENDOR.append(("pyodide", _name, FULL_DEST if _name == STDLIB else f"assets/vendor/pyodide/{_name}"))
WIDGET_SUFFIXES = (".css", ".js", ".mjs", ".py")
# E6's WebAssembly forward: widgets/e6/forward.wat assembled at build time by the pinned wabt (no .wasm is committed),
# in standard SIMD and in relaxed SIMD (fused multiply-adds); widgets/e6/forwards.mjs fetches the one the engine runs
ASSEMBLE_WASM = ROOT / "generator" / "pages" / "assemble_wasm.mjs"
FORWARD_WASM = {"standard": "assets/c13/e6/forward.wasm", "relaxed": "assets/c13/e6/forward-relaxed.wasm"}


def forward_wasm(variant="standard"):
    """The bytes of one variant of forward.wasm, assembled now with node and wabt (the same bytes every time)."""
    node = shutil.which("node")
    if node is None:
        raise PluginError("node is needed to assemble widgets/e6/forward.wat into forward.wasm (install Node 20)")
    if not (ROOT / "node_modules" / "wabt" / "package.json").is_file():
        raise PluginError(f"wabt is missing from node_modules (run: npm ci): it assembles widgets/e6/forward.wat "
                          f"into {FORWARD_WASM[variant]}")
    run = subprocess.run([node, str(ASSEMBLE_WASM), "-", variant], capture_output=True, cwd=ROOT)
    if run.returncode != 0 or not run.stdout:
        raise PluginError(run.stderr.decode("utf-8", "replace").strip() or "assemble_wasm.mjs wrote nothing")
    return run.stdout

# E6's probes of the reader's machine for its roofline (widgets/e6/roof.mjs): widgets/e6/roof.wat, assembled the same way
ROOF_WAT = ROOT / "widgets" / "e6" / "roof.wat"
ROOF_WASM = "assets/c13/e6/roof.wasm"


def roof_wasm():
    """The bytes of roof.wasm, assembled now with node and wabt as forward.wasm is (the same bytes every time)."""
    node = shutil.which("node")
    if node is None:
        raise PluginError("node is needed to assemble widgets/e6/roof.wat into roof.wasm (install Node 20)")
    run = subprocess.run([node, str(ASSEMBLE_WASM), "-", str(ROOF_WAT)], capture_output=True, cwd=ROOT)
    if run.returncode != 0 or not run.stdout:
        raise PluginError(run.stderr.decode("utf-8", "replace").strip() or "assemble_wasm.mjs wrote nothing")
    return run.stdout


def add_browser_files(files, config):
    node = ROOT / "node_modules"
    missing = []
    wanted = [(node / pkg / rel, dest) for pkg, rel, dest in VENDOR]
    for pkg, rel, dest in VENDOR_DIRS:
        src = node / pkg / rel
        if not src.is_dir():
            missing.append(str(src))
            continue
        wanted += [(p, f"{dest}/{p.name}") for p in sorted(src.iterdir()) if p.is_file()]
    for src, dest in wanted:
        if not src.is_file():
            missing.append(str(src))
            continue
        files.append(File.generated(config, dest, abs_src_path=str(src)))
    if missing:
        raise PluginError("browser packages are missing from node_modules (run: npm ci):\n  " + "\n  ".join(missing))
    try:
        files.append(File.generated(config, TRIMMED_DEST, content=trimmed_stdlib(node / "pyodide" / STDLIB)))
        files.append(File.generated(config, LOCK_DEST, content=trimmed_lock(node / "pyodide" / LOCK)))
    except (ValueError, OSError) as err:  # a kept member the archive lacks, an unreadable file
        raise PluginError(str(err)) from err
    widgets = ROOT / "widgets"
    for src in sorted(widgets.rglob("*")):  # subfolders (widgets/figures/, widgets/e1/ …) keep their place
        if src.is_file() and src.suffix in WIDGET_SUFFIXES:
            files.append(File.generated(config, f"assets/c13/{src.relative_to(widgets).as_posix()}",
                                        abs_src_path=str(src)))
    for variant, dest in FORWARD_WASM.items():
        files.append(File.generated(config, dest, content=forward_wasm(variant)))
    files.append(File.generated(config, ROOF_WASM, content=roof_wasm()))
    return files


def add_model_files(files, config):
    """E6's files beside the c13.json being built (browser_models): kept apart, as they come from the data."""
    for name, (src, _) in browser_models(load_data(data_path())).items():
        files.append(File.generated(config, f"{MODELS_DEST}/{name}", abs_src_path=str(src)))
    return files


# E6's files (the float16 weights and the tokenizer), written by the data stage next to c13.json; never models/.
MODELS_DEST = "assets/c13/models"


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def browser_models(data, json_dir=None):
    """E6's files, name → (source path, bytes): browser.dir beside the c13.json (json_dir, default the one being
    built), each checked against browser.files (sha256 and size); a missing or different file fails the build,
    naming the file and the field."""
    browser = data["browser"]
    folder = Path(json_dir or data_path().parent) / browser["dir"]
    out = {}
    for name, want in sorted(browser["files"].items()):
        src = folder / name
        field = f"c13.json: browser.files.{name}"
        if not src.is_file():
            raise DataError(src, None, f"missing ({field}); regenerate it with `make data`")
        size = src.stat().st_size
        if size != want["bytes"]:
            raise DataError(src, None, f"{size} bytes, but {field}.bytes says {want['bytes']}; "
                                       "regenerate with `make data`")
        if _sha256(src) != want["sha256"]:
            raise DataError(src, None, f"its sha256 differs from {field}.sha256; regenerate it with `make data`")
        out[name] = (src, size)
    return out
