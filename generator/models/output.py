"""Where training may write: a folder that training made, an empty folder or none. Importable without torch.

Training replaces the tokenizer, the three checkpoints, the card and README.md in its --out, file by file. So an --out
that holds a repository or anything training did not write (`--out .`, a home folder) is refused before the long run
starts, and nothing is changed. A folder training made holds MARKER, written with the models; the committed models/
holds it too. A folder of exactly training's files (one made before the marker existed) may be replaced as well.
"""
from pathlib import Path

from ..atomic import foreign_output, write_bytes
from ..errors import SettingError
from .family import CONFIG, DRAFTS, TARGET, WEIGHTS

MARKER = ".c13-train"
MARKER_TEXT = ("Made by `python -m generator train` (the C13 lesson's models). The next run of `make train` with this "
               "folder as OUT= replaces the tokenizer, the checkpoints, card.json and README.md in it.\n")
FILES = {"tokenizer.json", "card.json", "README.md", MARKER}      # what training writes at the top of its folder
MODEL_FILES = {CONFIG, WEIGHTS}                                    # and in each model's folder


def only_training_files(folder):
    """True when everything in `folder` is a file or model folder that training writes (and nothing else)."""
    for entry in folder.iterdir():
        if entry.name in (TARGET, *DRAFTS) and entry.is_dir() and not entry.is_symlink():
            if any(f.name not in MODEL_FILES or not f.is_file() for f in entry.iterdir()):
                return False
        elif entry.name not in FILES or not entry.is_file():
            return False
    return True


def check_out(out):
    """Refuse an `out` that training may not write into: a file, a repository, or a folder of files training did not
    write. Called before any training, so that a refused run changes nothing and costs nothing."""
    out = Path(out)
    problem = foreign_output(out, lambda folder: (folder / MARKER).is_file() or only_training_files(folder), MARKER,
                             "training would replace its README.md, tokenizer.json and card.json")
    if not problem:
        return
    raise SettingError(f"{out}: {problem}; nothing was trained or written: choose a new or empty folder for --out "
                       "(make train OUT=dir), or the models/ folder that training made")


def mark(out):
    """Write the marker that tells a later run this folder is training's own (before the models, so that a run
    killed while writing them leaves a folder the next run may replace)."""
    write_bytes(Path(out) / MARKER, MARKER_TEXT.encode("utf-8"))
