"""A Chromium held to a fraction of one CPU core, as on a slow phone: the whole browser (its renderer and its
workers too) runs in a CPU cgroup of its own. DevTools' CPU throttling slows only a page's main thread, never its
workers, so it cannot stand in for this.

Needs root and a writable cpu controller: cgroup v1 (/sys/fs/cgroup/cpu, cpu.cfs_quota_us) or v2 (cpu.max, at
/sys/fs/cgroup/unified or /sys/fs/cgroup). Without one the test fails, naming what is missing: it is never skipped.
"""
import os
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

PERIOD_US = 100_000
V1_ROOTS = ("/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpuacct,cpu")
V2_ROOTS = ("/sys/fs/cgroup/unified", "/sys/fs/cgroup")


def _write(path, text):
    Path(path).write_text(text)


class Group:
    """A cgroup of its own: limit(fraction) holds its processes to that share of one core, limit(None) frees them."""

    def __init__(self, path, root, v2):
        self.path, self.root, self.v2 = path, root, v2

    def limit(self, fraction):
        quota = "max" if self.v2 else "-1"
        if fraction is not None:
            quota = str(max(1000, round(PERIOD_US * fraction)))
        if self.v2:
            _write(self.path / "cpu.max", f"{quota} {PERIOD_US}")
        else:
            _write(self.path / "cpu.cfs_period_us", str(PERIOD_US))
            _write(self.path / "cpu.cfs_quota_us", quota)


def _limited(group, fraction, where):
    """(group, None) once its limit is written; (None, why) after removing it when the limit cannot be written."""
    try:
        group.limit(fraction)
    except OSError as e:
        _remove(group.path, group.root)
        return None, f"{where}: {e.strerror or e}"
    return group, None


def _v1(fraction, name):
    for root in map(Path, V1_ROOTS):
        if (root / "cpu.cfs_quota_us").is_file():
            group = Group(root / name, root, v2=False)
            try:
                group.path.mkdir()
            except OSError as e:
                return None, f"{root}: {e.strerror or e}"
            return _limited(group, fraction, root)
    return None, None


def _v2(fraction, name):
    for root in map(Path, V2_ROOTS):
        controllers = root / "cgroup.controllers"
        if not controllers.is_file() or "cpu" not in controllers.read_text().split():
            continue
        try:
            if "cpu" not in (root / "cgroup.subtree_control").read_text().split():
                _write(root / "cgroup.subtree_control", "+cpu")
            group = Group(root / name, root, v2=True)
            group.path.mkdir()
        except OSError as e:
            return None, f"{root}: cannot enable the cpu controller for a child group ({e.strerror or e})"
        return _limited(group, fraction, f"{group.path}/cpu.max")
    return None, None


def _remove(group, root, wait_s=10.0):
    """Remove the group once its processes have exited (those left, if any, go back to the root group first)."""
    if not group.is_dir():
        return
    procs = group / "cgroup.procs"
    deadline = time.monotonic() + wait_s
    while procs.is_file() and procs.read_text().split() and time.monotonic() < deadline:
        time.sleep(0.1)
    if procs.is_file():
        for pid in procs.read_text().split():
            try:
                _write(root / "cgroup.procs", pid)
            except OSError:
                pass  # it has just exited
    for _ in range(50):
        try:
            group.rmdir()
            return
        except OSError:
            time.sleep(0.1)


@contextmanager
def cpu_limited(fraction, tmp_path, executable):
    """Yields (the path of a wrapper of `executable` whose processes run in a cgroup of their own, that Group), the
    group's processes held to `fraction` of one core (None: not yet); the group is removed afterwards."""
    name = f"c13-slow-{os.getpid()}-{time.monotonic_ns()}"
    made, why_v1 = _v1(fraction, name)
    why_v2 = None
    if made is None:
        made, why_v2 = _v2(fraction, name)
    if made is None:
        reasons = "; ".join(r for r in (why_v1, why_v2) if r) or (
            f"no cpu controller at {', '.join(V1_ROOTS + V2_ROOTS)}")
        pytest.fail("this test slows Chromium with a CPU cgroup and needs root and a writable cpu controller "
                    f"(cgroup v1 cpu.cfs_quota_us or v2 cpu.max): {reasons}. Run the browser tests as root on a "
                    "machine whose cgroup file system is mounted read-write")
    wrapper = tmp_path / "chromium-slow"
    wrapper.write_text(f"#!/bin/sh\necho $$ > '{made.path}/cgroup.procs' || "
                       f"{{ echo 'cannot enter the CPU cgroup {made.path}' >&2; exit 70; }}\n"
                       f"exec '{executable}' \"$@\"\n")
    wrapper.chmod(0o755)
    try:
        yield wrapper, made
    finally:
        _remove(made.path, made.root)
