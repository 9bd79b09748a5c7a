"""widgets/sampler.py — the one acceptance sampler — loaded by path: it is browser code, not a package.

The generator's offline checks and the browser's live runs execute this very file.
"""
import importlib.util
from pathlib import Path

PATH = Path(__file__).resolve().parents[2] / "widgets" / "sampler.py"


def _load():
    spec = importlib.util.spec_from_file_location("sampler", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sampler = _load()
