"""`python -m generator context` with a bad c13.json or a bad measured.json beside it: one line naming the file, the
field and what to do, exit 2, never a traceback. `make data` is advised only where regenerating fixes the file (not
for a folder; for a file edited by hand, saying that it discards the edit), `make measure` for measured.json, and for
a file outside precomputed/ the command that writes that file."""
import json
import shutil

import pytest

from generator import cli
from generator.pages import data_file
from tests.conftest import ROOT

COMMITTED = ROOT / "precomputed" / "c13.json"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A precomputed folder of its own, its c13.json taken for the default one (so `make data` is the right advice),
    with the committed c13.json and no measured.json."""
    shutil.copy(COMMITTED, tmp_path / "c13.json")
    monkeypatch.setattr(data_file, "DEFAULT_DATA", tmp_path / "c13.json")
    monkeypatch.setenv("C13_DATA", str(tmp_path / "c13.json"))  # cmd_context sets it; restored afterwards
    return tmp_path


def context(capsys, path):
    code = cli.main(["context", "--data", str(path)])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2, f"exit {code}: {err}"
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err and not out, err
    return lines[0]


def test_a_missing_file_says_to_regenerate_it(capsys, folder):
    (folder / "c13.json").unlink()
    line = context(capsys, folder / "c13.json")
    assert f"{folder / 'c13.json'}: " in line and "missing" in line and "make data" in line, line


def test_a_missing_file_elsewhere_names_the_command_that_writes_it(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("C13_DATA", str(COMMITTED))
    path = tmp_path / "other" / "c13.json"
    line = context(capsys, path)
    assert str(path) in line and "missing" in line and "make data" not in line, line
    assert f"python -m generator data --out {path}" in line, line


def test_a_truncated_file_says_not_json_and_to_regenerate_it(capsys, folder):
    path = folder / "c13.json"
    path.write_bytes(COMMITTED.read_bytes()[:5000])
    line = context(capsys, path)
    assert str(path) in line and "not valid JSON" in line and "line " in line and "make data" in line, line


def test_a_file_edited_by_hand_names_the_digest_and_says_regenerating_discards_the_edit(capsys, folder):
    path = folder / "c13.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["constants"]["top_n"] += 1
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    line = context(capsys, path)
    assert f"{path}: digest: " in line and "edited by hand" in line, line
    assert "make data" in line and "discards the edit" in line, line


def test_a_folder_in_place_of_the_file_says_so_without_advising_to_regenerate(capsys, folder):
    path = folder / "c13.json"
    path.unlink()
    path.mkdir()
    line = context(capsys, path)
    assert str(path) in line and "folder" in line and "missing" not in line, line
    assert "make data" not in line and "regenerate" not in line, line


@pytest.mark.parametrize("broken,field", [("truncated", None), ("wrong kind", "kind"), ("a folder", None)])
def test_a_broken_measured_json_beside_it_says_to_measure_again(capsys, folder, broken, field):
    measured = folder / "measured.json"
    if broken == "truncated":
        measured.write_text('{"kind": "c13-measured", "version": ', encoding="utf-8")
    elif broken == "wrong kind":
        measured.write_text('{"kind": "something else", "version": 1}', encoding="utf-8")
    else:
        measured.mkdir()
    line = context(capsys, folder / "c13.json")
    assert line.startswith(f"error: {measured}: "), line
    if field:
        assert f"{measured}: {field}: " in line, line
    if broken == "a folder":
        assert "folder" in line and "make measure" not in line, line
    else:
        assert "make measure" in line and "make data" not in line, line


def test_measured_json_beside_a_file_elsewhere_names_the_command_that_writes_it(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("C13_DATA", str(COMMITTED))
    shutil.copy(COMMITTED, tmp_path / "c13.json")
    (tmp_path / "measured.json").write_text("{", encoding="utf-8")
    line = context(capsys, tmp_path / "c13.json")
    assert f"python -m generator measure --out {tmp_path / 'measured.json'}" in line and "make measure" not in line
