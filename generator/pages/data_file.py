"""Which c13.json the pages read ($C13_DATA, else precomputed/c13.json), read through the one data contract.

A problem stops the build with a MkDocs PluginError naming the file and the key, never a template traceback.
"""
import os
from pathlib import Path

from mkdocs.exceptions import PluginError

from ..contract import load
from ..errors import InputError

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA = ROOT / "precomputed" / "c13.json"


class DataError(PluginError):
    def __init__(self, path, key, problem):
        super().__init__(f"{path}: {key}: {problem}" if key else f"{path}: {problem}")


def data_path():
    return Path(os.environ.get("C13_DATA") or DEFAULT_DATA).resolve()


def load_data(path):
    """The validated data at path (schema version, digest, every key the templates read)."""
    try:
        return load(path)
    except InputError as e:
        raise DataError(e.path, e.field, e.problem) from None
