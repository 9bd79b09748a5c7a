"""The preview's data watcher: c13.json kept fresh while `make preview` runs, each regeneration in a process of its
own (`python -m generator data`), so that it reads the settings and the code as they are on disk. Part of the command
line (generator/cli.py), the one place that chains the stages."""
import sys
import time
from pathlib import Path

from .errors import InputError, SettingError

ROOT = Path(__file__).resolve().parent.parent


def end_child(child):
    """Stop a child process and wait for it (terminate, then kill after 10 s); nothing when it has ended."""
    import subprocess
    if child.poll() is not None:
        return
    child.terminate()  # the data stage writes c13.json whole at the end or not at all; its worker exits with it
    try:
        child.wait(timeout=10)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def child_message(stderr, code):
    """A failed command's own message in one line: its last `error: …` line, or a crash's last line and the place it
    names (no traceback)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    said = [line.removeprefix("error: ") for line in lines if line.startswith("error: ")]
    if said:
        return said[-1]
    if not lines:
        return f"it ended by signal {-code}" if code < 0 else f"it exited with status {code} and said nothing"
    places = [line for line in lines if line.startswith('File "')]
    return f"{lines[-1]} ({places[-1]})" if places else lines[-1]


class DataWatcher:
    """For the preview: c13.json kept fresh while it runs. Every `every` seconds it asks what_is_stale, and when an
    input changed (a model, a hand-written input, the generator's code) it regenerates c13.json; the preview server
    sees the new file and rebuilds the pages. A failed regeneration is reported and leaves the last good file.
    Each regeneration runs in a fresh process (in_child): the settings are read once per process, when
    generator.data.settings is imported, so this long-lived one never imports them (nor torch)."""

    def __init__(self, models, precomputed, log=print, regenerate=None, every=2.0):
        self.models, self.precomputed, self.log, self.every = models, precomputed, log, every
        self.path = Path(precomputed) / "c13.json"
        self.regenerate = regenerate or self.in_child
        # what a regeneration failed on (what changed, every input's sha256), or why c13.json was refused: not tried
        # again, nor said again, until it changes
        self.failed = None
        self.child, self.stopped = None, False  # the running regeneration; stop() ends it

    def in_child(self, progress=False):
        """Stage 2 as `python -m generator data` in a process of its own, so that it reads the settings and the code
        as they are on disk now. Returns its seconds; a failure raises SettingError with the child's own message.
        progress: its bar passes through to this terminal (the first regeneration, before the server starts)."""
        import subprocess
        if self.stopped:
            raise SettingError("the preview stopped")
        command = [sys.executable, "-m", "generator", "data", "--models", str(Path(self.models).resolve()),
                   "--precomputed", str(Path(self.precomputed).resolve()), *([] if progress else ["--quiet"])]
        started, said = time.perf_counter(), b""
        self.child = child = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                              stderr=subprocess.PIPE)
        try:
            while chunk := child.stderr.read1(1 << 12):
                if progress:
                    sys.stderr.buffer.write(chunk)
                    sys.stderr.flush()
                said = (said + chunk)[-(1 << 14):]
            code = child.wait()
        finally:
            end_child(child)  # interrupted (Ctrl-C while it runs): the child ends with us
            child.stderr.close()
            self.child = None
        if code != 0:
            message = child_message(said.decode("utf-8", "replace"), code)
            raise SettingError(f"python -m generator data failed: {message}")
        return time.perf_counter() - started

    def stop(self):
        """End a running regeneration, quietly (the preview stopped): no child goes on computing for nobody."""
        self.stopped = True
        if self.child is not None:
            end_child(self.child)

    def check_once(self):
        """Regenerate when stale (must_regenerate, as `make site` decides); returns what changed (empty when fresh).
        A refused c13.json (edited by hand, a bad field) is reported once and left as it is."""
        from .cli import must_regenerate  # the command line's own check, as `make site` decides
        try:
            changed = must_regenerate(self.path, self.models, self.precomputed)
        except InputError as e:
            if [str(e)] != self.failed:
                self.failed = [str(e)]
                self.log(f"preview: {e}; the pages show this message until the file is regenerated")
            return [str(e)]
        if not changed:
            self.failed = None
            return changed
        from .data.provenance import input_hashes
        inputs = (changed, input_hashes(self.models, self.precomputed))  # their content: a second edit of one file
        if inputs == self.failed:
            return changed
        self.log(f"preview: {self.path.name} must be regenerated ({', '.join(changed)} changed); regenerating…")
        try:
            self.regenerate()
        except (InputError, SettingError) as e:
            self.failed = inputs
            if not self.stopped:
                self.log(f"preview: regeneration failed, the pages keep the last good data: {e}")
            return changed
        self.failed = None
        self.log(f"preview: regenerated {self.path.name}; the pages rebuild")
        return changed

    def start(self):
        import threading

        def loop():
            while True:
                time.sleep(self.every)
                try:
                    self.check_once()
                except InputError as e:  # an input went away while it was read: said, and looked at again
                    self.log(f"preview: {e}")
        threading.Thread(target=loop, name="c13-data-watcher", daemon=True).start()
