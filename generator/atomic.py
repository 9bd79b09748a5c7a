"""Write files so that a failed run never leaves a half-written one behind, and never into what a command did not
make."""
import fcntl
import json
import os
import shutil
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


def write_together(files):
    """Write several files that belong together ({path: bytes}, in order; put the one that records the others
    last): every new file is written in full next to its target first, then each is renamed into place. If any
    step fails, the files already replaced get their old content back and the new ones are removed, so the set
    changes as a whole or not at all (an OutputError names the file that failed). Only a crash between two of
    the renames, microseconds apart, can leave them out of step; `make check` then says which file differs."""
    files = {Path(path): data for path, data in files.items()}
    staged, kept, placed, failing = {}, {}, [], None
    try:
        for path, data in files.items():
            failing = path
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            staged[path] = tmp
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(tmp, 0o644)
            if path.exists():  # the old content, kept under a second name until the new set is in place
                kept[path] = f"{tmp}.old"
                try:
                    os.link(path, kept[path])
                except OSError:  # a file system without hard links
                    shutil.copy2(path, kept[path])
        for path, tmp in staged.items():
            failing = path
            os.replace(tmp, path)
            placed.append(path)
    except BaseException as e:
        for path in reversed(placed):  # put back what was there before
            if path in kept:
                os.replace(kept.pop(path), path)
            else:
                os.unlink(path)
        for leftover in [*staged.values(), *kept.values()]:
            if os.path.exists(leftover):
                os.unlink(leftover)
        if isinstance(e, OSError):
            raise OutputError(failing, e) from None
        raise
    for old in kept.values():
        os.unlink(old)


def foreign_output(out, ours, marker, loses):
    """Why a command must not write into the folder `out` (None when it may): it is a file, a repository, or a folder
    that is neither empty nor one the command made (ours(out) says: it holds the command's marker file, for one).
    loses: what the folder would lose."""
    try:
        if not out.exists():
            return None
        if not out.is_dir():
            return "is a file, not a folder"
        if (out / ".git").exists():
            return f"holds .git (a repository), and {loses}"
        if ours(out) or not any(out.iterdir()):
            return None
        return f"holds files this command did not write (it holds no {marker}), and {loses}"
    except OSError as e:
        return f"cannot be read ({e.strerror or e})"


def remove_unheld(folders, marker, before_removal=None):
    """Remove those of `folders` that a killed run left: each holding the file `marker`, which no running process
    holds locked (a running one keeps it locked with flock); nothing else. before_removal(folder) runs under the lock
    first (the build puts back a site it had moved aside)."""
    for folder in folders:
        lock = folder / marker
        if folder.is_symlink() or not lock.is_file():
            continue
        try:
            with open(lock, "rb") as f:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)  # BlockingIOError: a running process holds it
                if before_removal is not None:
                    before_removal(folder)
                shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            continue  # held by a running process, or it cannot be removed: left as it is
