"""What c13.json was made from: the sha256 of every input, and the check that it is still fresh. Torch-free."""
import hashlib
from pathlib import Path

from ..contract import (REGENERATE, SCHEMA_VERSION, check_recorded,  # noqa: F401  (SCHEMA_VERSION re-exported)
                        verify_digest)
from ..errors import InputError
from ..jsonio import read_json
from ..models.family import CONFIG, DRAFTS, TARGET, WEIGHTS

ROOT = Path(__file__).resolve().parents[2]
GENERATOR_NAME = "gen_c13_precomputed"
GENERATOR_VERSION = "1.0"
# The code whose every change can change a figure, by glob so that a new file counts without a list to keep.
GENERATOR_CODE = ("generator/models/*.py", "generator/data/*.py", "generator/contract.py", "generator/jsonio.py",
                  "generator/errors.py", "generator/shared_sampler.py", "generator/speedup.py")
# ...except the measurement (make measure): it writes measured.json, never c13.json, so changing it cannot change a
# figure and must not make c13.json stale (timings are not reproducible; c13.json stays byte-identical)
NOT_GENERATOR_CODE = ("generator/data/measure.py", "generator/data/timing.py")
# Inputs the generator reads when present (no card: the page shows dashes); recorded as ABSENT when not.
OPTIONAL = ("models/card.json",)
ABSENT = "absent"
# E6's files (float16 weights, the tokenizer), written by the data stage into this folder beside c13.json
BROWSER_DIR = "browser"
EDITED_BY_HAND = "c13.json (edited by hand after it was generated: its digest does not match its content)"


def sha256(path):
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as e:
        raise InputError(path, None, f"cannot read ({e.strerror})") from None


def input_files(models_dir, precomputed_dir):
    """Every input by a stable name (paths relative to the project when they live in it)."""
    models_dir, precomputed_dir = Path(models_dir), Path(precomputed_dir)
    files = {"models/tokenizer.json": models_dir / "tokenizer.json", "models/card.json": models_dir / "card.json"}
    for name in (TARGET, *DRAFTS):
        for f in (CONFIG, WEIGHTS):
            files[f"models/{name}/{f}"] = models_dir / name / f
    files["precomputed/anchor-model.json"] = precomputed_dir / "anchor-model.json"
    files["precomputed/papers.json"] = precomputed_dir / "papers.json"
    files["precomputed/lesson.toml"] = precomputed_dir / "lesson.toml"
    files["widgets/sampler.py"] = ROOT / "widgets" / "sampler.py"
    return files


def code_files(root=ROOT):
    """The generator's code files, sorted by their path in the project."""
    found = {path for pattern in GENERATOR_CODE for path in root.glob(pattern)
             if path.is_file() and path.relative_to(root).as_posix() not in NOT_GENERATOR_CODE}
    return sorted(found, key=lambda path: path.relative_to(root).as_posix())


def code_hash(root=ROOT):
    h = hashlib.sha256()
    for path in code_files(root):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def input_hashes(models_dir, precomputed_dir, root=ROOT):
    """Every input's sha256 by name; the generator's code as a whole ("generator": version + hash of all its files,
    shown on the provenance page) and file by file, so that a freshness check names the file that changed."""
    hashes = {name: ABSENT if name in OPTIONAL and not path.exists() else sha256(path)
              for name, path in input_files(models_dir, precomputed_dir).items()}
    hashes["generator"] = f"{GENERATOR_VERSION}+{code_hash(root)}"
    hashes.update((path.relative_to(root).as_posix(), sha256(path)) for path in code_files(root))
    return hashes


def stale_inputs(json_path, models_dir, precomputed_dir, root=ROOT):
    """What no longer matches: a changed input by name (a code file by its path), a different schema, or a hand edit
    (empty when fresh). root: where the generator's code is (tests point it at a copy)."""
    data = read_json(json_path, "the precomputed data", REGENERATE)
    if data.get("schema_version") != SCHEMA_VERSION:
        return [f"schema_version (file has {data.get('schema_version')!r}, this generator writes {SCHEMA_VERSION})"]
    changed = []
    try:
        verify_digest(data, json_path)
    except InputError:
        changed.append(EDITED_BY_HAND)
    try:
        check_recorded(data, json_path)  # what is read below: the recorded inputs, E6's folder and files
    except InputError:
        if not changed:
            raise  # sealed, yet not what the generator writes: refused, named
        return changed  # edited by hand beyond comparing: the edit is what there is to report
    recorded = data["provenance"]["inputs"]
    now = input_hashes(models_dir, precomputed_dir, root)
    changed += [name for name in now if recorded.get(name) != now[name]]
    changed += [f"{name} (no longer an input)" for name in recorded if name not in now]
    if any(name.startswith("generator/") for name in recorded):  # the files name the change: not "generator" too
        changed = [name for name in changed if name != "generator"]
    return changed + changed_browser_files(data, Path(json_path).parent)


def changed_browser_files(data, json_dir):
    """The browser files c13.json lists that are missing or differ from their recorded sha256 (by relative path)."""
    browser = data.get("browser") if isinstance(data.get("browser"), dict) else {}
    folder = Path(json_dir) / browser.get("dir", BROWSER_DIR)
    out = []
    for name, entry in sorted((browser.get("files") or {}).items()):
        path = folder / name
        if not path.is_file():
            out.append(f"{path.relative_to(json_dir).as_posix()} (missing)")
        elif not isinstance(entry, dict) or sha256(path) != entry.get("sha256"):
            out.append(f"{path.relative_to(json_dir).as_posix()} (changed since it was written)")
    return out
