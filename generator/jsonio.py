"""Read a hand-written or generated JSON file; a missing or malformed one is an InputError naming the file.

Python's json reads NaN and Infinity (not JSON) and turns a number beyond double precision (1e400) into infinity;
such a number is refused here, named by its dotted field, so that no reader ever computes with one.
"""
import json
import math
from pathlib import Path

from .errors import InputError


def non_finite(data):
    """(dotted field, value) of the first number that is NaN or infinite, in file order; None when there is none."""
    stack = [(None, data)]
    while stack:
        field, node = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            return field, node
        if isinstance(node, dict):
            items = [(f"{field}.{key}" if field else str(key), value) for key, value in node.items()]
        elif isinstance(node, list):
            items = [(f"{field or ''}[{i}]", value) for i, value in enumerate(node)]
        else:
            continue
        stack.extend(reversed(items))
    return None


def read_json(path, what, fix=None):
    """The parsed JSON object at path; `what` says in the message what the file is for, `fix` what to do."""
    path = Path(path)
    advice = f"; {fix}" if fix else ""
    if path.is_dir():  # regenerating cannot help: the path names a folder
        raise InputError(path, None, f"{what} should be a file, but this is a folder: name the JSON file itself")
    if not path.is_file():
        raise InputError(path, None, f"{what} is missing{advice}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:  # not UTF-8, not JSON, or an integer of more digits than Python reads
        raise InputError(path, None, f"not valid JSON ({e}){advice}") from None
    except RecursionError:
        raise InputError(path, None, f"not valid JSON (nested too deeply to read){advice}") from None
    except OSError as e:
        raise InputError(path, None, f"cannot read ({e.strerror}){advice}") from None
    if not isinstance(data, dict):
        raise InputError(path, None, f"{what} must be a JSON object{advice}")
    found = non_finite(data)
    if found:
        field, value = found
        raise InputError(path, field, f"must be a finite number, got {value} (NaN and Infinity are not JSON, and a "
                                      f"number beyond double precision such as 1e400 reads as infinity)"
                                      f"{advice or '; write a finite number'}")
    return data
