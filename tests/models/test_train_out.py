"""`make train` writes only into a folder it made (its marker inside, or nothing but its own files), an empty folder or
none: a checkout, a home folder or a file given as --out is refused before any training, exit 2, naming
the path, and left as it was. The committed models/ stays the default --out."""
import subprocess
import sys

import pytest

from generator.errors import SettingError
from generator.models.family import CONFIG, DRAFTS, TARGET, WEIGHTS
from generator.models.output import MARKER, check_out
from generator.models.train import Recipe, train_all
from tests.conftest import ROOT
from tests.models.test_train import synthetic_text
from tests.models.test_train_inputs import TINY


def refusal(out):
    with pytest.raises(SettingError) as e:
        check_out(out)
    return str(e.value)


def test_a_file_a_repository_and_a_folder_of_other_files_are_refused_by_path(tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("mine", encoding="utf-8")
    assert refusal(a_file).startswith(f"{a_file}: is a file, not a folder; nothing was trained or written")
    checkout = tmp_path / "checkout"
    (checkout / ".git").mkdir(parents=True)
    (checkout / MARKER).write_text("", encoding="utf-8")  # even marked: a repository is never training's folder
    assert refusal(checkout).startswith(f"{checkout}: holds .git (a repository)")
    home = tmp_path / "home"
    home.mkdir()
    (home / "README.md").write_text("my notes", encoding="utf-8")
    (home / "notes.txt").write_text("mine", encoding="utf-8")
    message = refusal(home)
    assert message.startswith(f"{home}: holds files this command did not write (it holds no {MARKER})")
    assert "choose a new or empty folder for --out (make train OUT=dir)" in message
    stray = tmp_path / "stray"
    (stray / TARGET).mkdir(parents=True)
    (stray / TARGET / "notes.txt").write_text("mine", encoding="utf-8")  # inside a model's folder
    assert "did not write" in refusal(stray)


def test_a_new_an_empty_a_marked_or_an_older_training_folder_is_accepted(tmp_path):
    check_out(tmp_path / "new")
    check_out(tmp_path)
    older = tmp_path / "older"  # a folder training made before the marker existed: only its files
    for name in (TARGET, *DRAFTS):
        (older / name).mkdir(parents=True)
        (older / name / CONFIG).write_text("{}", encoding="utf-8")
        (older / name / WEIGHTS).write_bytes(b"")
    for name in ("tokenizer.json", "card.json", "README.md"):
        (older / name).write_text("{}", encoding="utf-8")
    check_out(older)
    (older / "notes.txt").write_text("mine", encoding="utf-8")
    assert "did not write" in refusal(older)
    (older / MARKER).write_text("", encoding="utf-8")  # marked: training's own, whatever else it holds
    check_out(older)


def test_the_committed_models_folder_is_trainings_own():
    assert (ROOT / "models" / MARKER).is_file(), f"models/{MARKER} is missing: commit it with the models"
    check_out(ROOT / "models")


def test_train_all_refuses_a_file_before_training_and_marks_what_it_writes(tmp_path, capsys):
    corpus = tmp_path / "tiny.txt"
    corpus.write_text(synthetic_text(), encoding="utf-8")
    a_file = tmp_path / "out-file"
    a_file.write_text("mine", encoding="utf-8")
    with pytest.raises(SettingError) as e:
        train_all(corpus, a_file, Recipe(steps=10, **TINY))
    assert str(e.value).startswith(f"{a_file}: is a file, not a folder")
    assert "all models" not in capsys.readouterr().err, "it trained before refusing"
    assert a_file.read_text(encoding="utf-8") == "mine"
    out = tmp_path / "out"
    train_all(corpus, out, Recipe(steps=10, **TINY))
    assert (out / MARKER).is_file() and (out / "card.json").is_file()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    check_out(out)  # a folder training made may be trained into again


@pytest.mark.slow("the train command started with torch")
def test_the_command_refuses_a_checkout_before_training_and_leaves_its_readme(tmp_path):
    corpus = tmp_path / "tiny.txt"
    corpus.write_text(synthetic_text(), encoding="utf-8")
    checkout = tmp_path / "checkout"
    (checkout / ".git").mkdir(parents=True)
    (checkout / "README.md").write_text("the project's README", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "generator", "train", "--corpus", str(corpus), "--out", str(checkout),
                          "--steps", "5"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 2, run.stderr[-2000:]
    assert run.stderr.strip().splitlines()[-1].startswith(f"error: {checkout}: holds .git (a repository)")
    assert "Traceback" not in run.stderr and "all models" not in run.stderr
    assert "replaces:" not in run.stdout, "it announced replacing the checkout's files before refusing"
    assert (checkout / "README.md").read_text(encoding="utf-8") == "the project's README"
