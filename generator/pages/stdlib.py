"""Python's standard library as the browser gets it: the site's python_stdlib.zip keeps only the members of Pyodide's
archive that Pyodide's start-up and the live experiments import (the kept list, stdlib_modules.txt, recorded by
tests/widgets/node/record_stdlib.mjs). It is rebuilt from the pinned package at every build, with the same bytes every
time (sorted members, fixed timestamps and attributes). The full archive stays in the site, under full/, as the worker's
fallback when an import is missing from the trimmed one.

Pyodide also reads its lock file at every start, though the site loads no package: the site's pyodide-lock.json
keeps the lock's `info` and no package (trimmed_lock)."""
import io
import json
import zipfile
from functools import lru_cache
from pathlib import Path

KEPT = Path(__file__).resolve().with_name("stdlib_modules.txt")
STDLIB = "python_stdlib.zip"
TRIMMED_DEST = f"assets/vendor/pyodide/{STDLIB}"      # what loadPyodide fetches by default (indexURL + name)
FULL_DEST = f"assets/vendor/pyodide/full/{STDLIB}"    # the fallback, fetched only when an import is missing
LOCK = "pyodide-lock.json"
LOCK_DEST = f"assets/vendor/pyodide/{LOCK}"
STAMP = (1980, 1, 1, 0, 0, 0)                         # the earliest time a zip can say: no build time in the bytes
FILE_MODE = 0o100644 << 16
DIR_MODE = (0o040755 << 16) | 0x10                    # a folder, also by MS-DOS's directory flag


def kept_members(path=KEPT):
    """The kept list: one member of the archive a line ('json/decoder.py', folders end with '/'); '#' comments."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return sorted({line.strip() for line in lines if line.strip() and not line.startswith("#")})


def trim(full_zip, kept):
    """The bytes of a zip holding only the `kept` members of full_zip, deflated at level 9, in sorted order."""
    out = io.BytesIO()
    with zipfile.ZipFile(full_zip) as src, zipfile.ZipFile(out, "w") as dst:
        missing = sorted(set(kept) - set(src.namelist()))
        if missing:
            raise ValueError(f"{full_zip} has no member {', '.join(missing)} (kept in {KEPT.name}); record the list "
                             "again with `node tests/widgets/node/record_stdlib.mjs --write`")
        for name in sorted(set(kept)):
            info = zipfile.ZipInfo(name, STAMP)
            info.create_system = 3  # Unix, wherever the build runs
            if name.endswith("/"):
                info.external_attr = DIR_MODE
                dst.writestr(info, b"")
            else:
                info.external_attr = FILE_MODE
                dst.writestr(info, src.read(name), compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
    return out.getvalue()


@lru_cache(maxsize=4)
def _trimmed(full_zip, stamp, kept_path, kept_stamp):
    return trim(full_zip, kept_members(kept_path))


def trimmed_stdlib(full_zip, kept_path=KEPT):
    """trim() of the pinned archive with the kept list, computed once per build (both files unchanged)."""
    full_zip, kept_path = Path(full_zip), Path(kept_path)
    return _trimmed(str(full_zip), full_zip.stat().st_mtime_ns, str(kept_path), kept_path.stat().st_mtime_ns)


def trimmed_lock(lock_file):
    """The bytes of Pyodide's lock file without its packages (none is ever loaded): {"info": …, "packages": {}}."""
    lock = json.loads(Path(lock_file).read_text(encoding="utf-8"))
    return json.dumps({"info": lock["info"], "packages": {}}, sort_keys=True, separators=(",", ":")).encode()
