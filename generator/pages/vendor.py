"""Browser files added to the build: the widgets, and the pinned packages from node_modules (no copies in docs/)."""
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

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
for _name in PYODIDE_FILES:
    VENDOR.append(("pyodide", _name, f"assets/vendor/pyodide/{_name}"))
WIDGET_SUFFIXES = (".css", ".js", ".mjs", ".py")


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
    widgets = ROOT / "widgets"
    for src in sorted(widgets.rglob("*")):  # subfolders (widgets/figures/, widgets/e2/) keep their place
        if src.is_file() and src.suffix in WIDGET_SUFFIXES:
            files.append(File.generated(config, f"assets/c13/{src.relative_to(widgets).as_posix()}",
                                        abs_src_path=str(src)))
    return files
