"""Write files so that a failed run never leaves a half-written one behind."""
import json
import os
import tempfile
from pathlib import Path


def write_bytes(path, data):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; these files are meant to be read by others
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def dumps_json(obj):
    """Stable JSON text: sorted keys, UTF-8, a trailing newline — the same input gives the same bytes."""
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, indent=1, allow_nan=False) + "\n"


def write_json(path, obj):
    write_bytes(path, dumps_json(obj).encode("utf-8"))
