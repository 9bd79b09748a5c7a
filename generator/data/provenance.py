"""What c13.json was made from: the sha256 of every input, and the check that it is still fresh."""
import hashlib
from pathlib import Path

from ..models.family import CONFIG, DRAFTS, TARGET, WEIGHTS
from ..errors import InputError
from ..jsonio import read_json

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_VERSION = 1
GENERATOR_NAME = "gen_c13_precomputed"
GENERATOR_VERSION = "1.0"
# The code whose every change can change a figure; its hash is part of the generator's version.
GENERATOR_CODE = ("generator/models/model.py", "generator/models/tokenizer.py", "generator/models/checkpoint.py",
                  "generator/models/family.py", "generator/data/speculative.py", "generator/data/roofline.py",
                  "generator/data/precompute.py", "generator/data/provenance.py", "generator/data/shared_sampler.py",
                  "generator/jsonio.py")


def sha256(path):
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as e:
        raise InputError(path, None, f"cannot read ({e.strerror})") from None


def input_files(models_dir, precomputed_dir):
    """Every input by a stable name (paths relative to the project when they live in it)."""
    models_dir, precomputed_dir = Path(models_dir), Path(precomputed_dir)
    files = {"models/tokenizer.json": models_dir / "tokenizer.json"}
    for name in (TARGET, *DRAFTS):
        for f in (CONFIG, WEIGHTS):
            files[f"models/{name}/{f}"] = models_dir / name / f
    files["precomputed/anchor-model.json"] = precomputed_dir / "anchor-model.json"
    files["precomputed/papers.json"] = precomputed_dir / "papers.json"
    files["widgets/sampler.py"] = ROOT / "widgets" / "sampler.py"
    return files


def code_hash():
    h = hashlib.sha256()
    for rel in GENERATOR_CODE:
        h.update(rel.encode() + b"\0" + (ROOT / rel).read_bytes() + b"\0")
    return h.hexdigest()


def input_hashes(models_dir, precomputed_dir):
    hashes = {name: sha256(path) for name, path in input_files(models_dir, precomputed_dir).items()}
    hashes["generator"] = f"{GENERATOR_VERSION}+{code_hash()}"
    return hashes


def stale_inputs(json_path, models_dir, precomputed_dir):
    """The inputs whose hash no longer matches what c13.json records (empty when fresh)."""
    data = read_json(json_path, "the precomputed data")
    if data.get("schema_version") != SCHEMA_VERSION:
        return [f"schema_version (file has {data.get('schema_version')!r}, this generator writes {SCHEMA_VERSION})"]
    recorded = data.get("provenance", {}).get("inputs", {})
    now = input_hashes(models_dir, precomputed_dir)
    changed = [name for name in now if recorded.get(name) != now[name]]
    changed += [f"{name} (no longer an input)" for name in recorded if name not in now]
    return changed
