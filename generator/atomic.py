"""Write files so that a failed run never leaves a half-written one behind."""
import json
import os
import tempfile
from pathlib import Path

from .errors import OutputError


def write_bytes(path, data):
    """Write to a temporary name next to path, then rename; a failed write is an OutputError naming path."""
    path = Path(path)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; these files are meant to be read by others
        os.replace(tmp, path)
    except BaseException as e:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise OutputError(path, e) from None
        raise


def dumps_json(obj):
    """Stable JSON text: sorted keys, UTF-8, a trailing newline — the same input gives the same bytes."""
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, indent=1, allow_nan=False) + "\n"


def write_json(path, obj):
    write_bytes(path, dumps_json(obj).encode("utf-8"))
