"""Read a hand-written or generated JSON file; a missing or malformed one is an InputError naming the file."""
import json
from pathlib import Path

from .errors import InputError


def read_json(path, what, fix=None):
    """The parsed JSON object at path; `what` says in the message what the file is for, `fix` what to do."""
    path = Path(path)
    advice = f"; {fix}" if fix else ""
    if not path.is_file():
        raise InputError(path, None, f"{what} is missing{advice}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(path, None, f"not valid JSON ({e}){advice}") from None
    except OSError as e:
        raise InputError(path, None, f"cannot read ({e.strerror}){advice}") from None
    if not isinstance(data, dict):
        raise InputError(path, None, f"{what} must be a JSON object{advice}")
    return data
