"""widgets/sampler.py — the one acceptance sampler — loaded by path: it is browser code, not a package.

The one way CPython loads it, for both stages (the data stage's runs and checks, the page stage's pair presets);
the browser's Pyodide loads the same file through widgets/py/load.mjs.
"""
import importlib.util
from pathlib import Path

PATH = Path(__file__).resolve().parents[1] / "widgets" / "sampler.py"


def _load():
    spec = importlib.util.spec_from_file_location("sampler", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sampler = _load()
