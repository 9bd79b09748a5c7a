"""Which c13.json the pages read ($C13_DATA, else precomputed/c13.json), read through the one data contract.

A problem stops the build with a MkDocs PluginError naming the file and the key, never a template traceback.
"""
import os
from pathlib import Path

from mkdocs.exceptions import PluginError

from ..contract import REGENERATE, REMEASURE, load
from ..errors import InputError

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA = ROOT / "precomputed" / "c13.json"


class DataError(PluginError):
    def __init__(self, path, key, problem):
        self.path, self.field, self.problem = str(path), key, problem  # for the command line (cli.py cmd_context)
        super().__init__(f"{path}: {key}: {problem}" if key else f"{path}: {problem}")

    def for_command_line(self, data):
        """The same problem as an InputError (the command line prints one line and exits 2), for the c13.json at
        `data`: when that is not precomputed/c13.json, the advice names the command that writes this file (`make data`
        and `make measure` write precomputed/)."""
        problem = self.problem
        if Path(data).resolve() != DEFAULT_DATA.resolve():
            problem = (problem.replace(REGENERATE, f"regenerate it with `python -m generator data --out {data}`")
                       .replace(REMEASURE, f"measure again with `python -m generator measure --out {self.path}`"))
        return InputError(self.path, self.field, problem)


def data_path():
    return Path(os.environ.get("C13_DATA") or DEFAULT_DATA).resolve()


def load_data(path):
    """The validated data at path (schema version, digest, every key the templates read)."""
    try:
        return load(path)
    except InputError as e:
        raise DataError(e.path, e.field, e.problem) from None
