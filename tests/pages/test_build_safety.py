"""A build never loses anything: it replaces only a folder it built (or an empty one), puts the old site back when
the swap fails, removes what killed builds left (only that), and says in one line why it cannot write `--out`."""
import errno
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from generator import cli
from generator.errors import SettingError
from generator.pages import build as page_build
from generator.pages.build import MARKER, Loaded, build, check_replaceable, from_elsewhere, remove_leftovers
from tests.sitelib import ROOT, data_file, quiet, read


def a_site(folder, text="the previous site"):
    """A folder standing for a site a build made: its marker and one page."""
    folder.mkdir(parents=True)
    (folder / "index.html").write_text(text, encoding="utf-8")
    (folder / MARKER).write_text("made by a build", encoding="utf-8")
    return folder


def run_build(out, capsys):
    code = cli.main(["build", "--data", str(data_file()), "--out", str(out)])
    return code, capsys.readouterr().err.strip()


# what a build may replace


def test_a_folder_the_build_did_not_make_is_refused_and_kept(tmp_path, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me", encoding="utf-8")
    code, err = run_build(mine, capsys)
    assert code == 2 and str(mine) in err and "\n" not in err and "--out" in err
    assert read(mine / "notes.txt") == "keep me" and sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


def test_build_out_dot_refuses_the_checkout(tmp_path, capsys, monkeypatch):
    checkout = tmp_path / "checkout"
    (checkout / ".git").mkdir(parents=True)
    (checkout / "README.md").write_text("a project", encoding="utf-8")
    monkeypatch.chdir(checkout)
    code, err = run_build(".", capsys)
    assert code == 2 and str(checkout) in err and ".git" in err and "\n" not in err
    assert (checkout / ".git").is_dir() and read(checkout / "README.md") == "a project"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkout"]


def test_a_built_site_holding_a_repository_is_refused(tmp_path):
    site = a_site(tmp_path / "site")
    (site / ".git").mkdir()
    with pytest.raises(SettingError, match=r"\.git"):
        check_replaceable(site)


def test_a_file_is_refused(tmp_path):
    (tmp_path / "page.html").write_text("x", encoding="utf-8")
    with pytest.raises(SettingError, match="is a file"):
        check_replaceable(tmp_path / "page.html")


def test_what_a_build_may_replace(tmp_path, site):
    """Nothing, an empty folder, a marked site, and an older build's site made before the marker (by its files)."""
    (tmp_path / "empty").mkdir()
    old = tmp_path / "old-build"
    shutil.copytree(site, old)
    (old / MARKER).unlink()
    for out in (tmp_path / "missing", tmp_path / "empty", a_site(tmp_path / "marked"), old):
        check_replaceable(out)
    assert (site / MARKER).is_file(), "a built site holds the marker"


@pytest.mark.slow("a site built, killed or failed and built again")
def test_an_older_build_without_the_marker_is_replaced_once_and_then_marked(tmp_path, site):
    out = tmp_path / "site"
    shutil.copytree(site, out)
    (out / MARKER).unlink()
    (out / "stale.html").write_text("from the older build", encoding="utf-8")
    build(data_file(), out=out, log=quiet)
    assert (out / MARKER).is_file() and (out / "index.html").is_file() and not (out / "stale.html").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


# the swap


@pytest.mark.slow("a site built, killed or failed and built again")
def test_a_failed_second_rename_puts_the_old_site_back(tmp_path, monkeypatch):
    out = a_site(tmp_path / "out")
    real, calls = os.replace, []

    def replace(src, dst):
        calls.append((src, dst))
        if len(calls) == 2:  # the new site into place
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(SettingError) as e:
        build(data_file(), out=out, log=quiet)
    assert len(calls) == 3, "the old site was not moved back"
    assert str(out) in str(e.value) and "\n" not in str(e.value)
    assert read(out / "index.html") == "the previous site" and (out / MARKER).is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"], "a temporary folder was left"


# what killed builds leave


def test_leftovers_of_killed_builds_are_removed_and_nothing_else(tmp_path):
    out = a_site(tmp_path / "site")
    dead = a_site(tmp_path / ".site.building-dead")
    unmarked = tmp_path / ".site.building-notours"
    unmarked.mkdir()
    (unmarked / "keep.txt").write_text("not a build's", encoding="utf-8")
    other = a_site(tmp_path / ".other.building-x")        # a leftover of builds into another folder
    running = a_site(tmp_path / ".site.building-running")
    with open(running / MARKER, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as a running build holds it
        remove_leftovers(out)
    assert not dead.exists()
    assert (unmarked / "keep.txt").is_file() and other.is_dir() and running.is_dir() and out.is_dir()


def test_the_site_a_build_died_with_aside_is_put_back(tmp_path):
    out = tmp_path / "site"
    leftover = tmp_path / ".site.building-dead"
    a_site(leftover)
    a_site(leftover / "old", "the site before the killed build")
    remove_leftovers(out)
    assert read(out / "index.html") == "the site before the killed build" and not leftover.exists()


@pytest.mark.slow("a site built, killed or failed and built again")
def test_a_build_killed_with_sigkill_leaves_nothing_the_next_build_keeps(tmp_path):
    out = tmp_path / "site"
    cmd = [sys.executable, "-m", "generator", "build", "--data", str(data_file()), "--out", str(out)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".site.building-*/site")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)  # the build and its mkdocs
    proc.wait()
    assert list(tmp_path.glob(".site.building-*")), "the build ended before it was killed"
    build(data_file(), out=out, log=quiet)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"] and (out / MARKER).is_file()


# a folder that cannot be written


def test_an_out_under_a_file_is_a_one_line_error(tmp_path, capsys):
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    out = tmp_path / "a-file" / "site"
    code, err = run_build(out, capsys)
    assert code == 2 and str(out) in err and "\n" not in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_an_out_under_proc_is_a_one_line_error(capsys):
    code, err = run_build("/proc/c13-site", capsys)
    assert code == 2 and "/proc/c13-site" in err and "\n" not in err


def test_a_read_only_parent_is_a_one_line_error_and_the_site_is_kept(tmp_path, monkeypatch, capsys):
    """Root writes anywhere, so the refusal of a read-only folder is played by mkdtemp."""
    out = a_site(tmp_path / "site")

    def refuse(*args, dir=None, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", str(dir))

    monkeypatch.setattr(page_build.tempfile, "mkdtemp", refuse)
    code, err = run_build(out, capsys)
    assert code == 2 and str(out) in err and "Permission denied" in err and "\n" not in err
    assert read(out / "index.html") == "the previous site"


# what a page loads


def test_what_counts_as_loaded_from_another_origin():
    page = Loaded()
    page.feed('<img src="a.png"><img srcset="b.png 1x, https://e.org/c.png 2x"><a href="https://arxiv.org/x">p</a>'
              '<link rel="canonical" href="https://e.org/"><link rel="stylesheet" href="//e.org/s.css">'
              '<div style="background: url(https://e.org/bg.png)"></div><style>@import "https://e.org/i.css";</style>'
              '<img src="data:image/png;base64,AAAA">')
    foreign = [(what, url) for what, url in page.found if from_elsewhere(url)]
    assert foreign == [("<img srcset>", "https://e.org/c.png"), ("<link href>", "//e.org/s.css"),
                       ("<div style>", "https://e.org/bg.png"), ("<style>", "https://e.org/i.css")]
