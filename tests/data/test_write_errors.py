"""A generated file that cannot be written (a full disk) is one line naming the file and what to do, exit 2,
and the previous file is left as it was."""
import errno
import os
import sys
import types

from generator import atomic, cli


class FullDisk:
    """A file object that fails like a full disk on the first write."""

    def __init__(self, fd):
        self.fd = fd

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        os.close(self.fd)
        return False


def test_data_on_a_full_disk_keeps_the_old_file_and_says_what_to_do(tmp_path, monkeypatch, capsys):
    out = tmp_path / "c13.json"
    out.write_text('{"old": true}\n', encoding="utf-8")

    def generate(models_dir, precomputed_dir, out_path=None, progress=True, pool=None):  # writes as the data stage does
        atomic.write_together({out_path: atomic.dumps_json({"schema_version": 0}).encode("utf-8")})
        raise AssertionError("the write should have failed")

    monkeypatch.setitem(sys.modules, "generator.data.precompute", types.SimpleNamespace(generate=generate))
    monkeypatch.setattr(atomic.os, "fdopen", lambda fd, mode: FullDisk(fd))
    code = cli.main(["data", "--quiet", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert str(out) in lines[0] and os.strerror(errno.ENOSPC) in lines[0] and "free some space" in lines[0]
    assert out.read_text(encoding="utf-8") == '{"old": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c13.json"], "a temporary file was left behind"
