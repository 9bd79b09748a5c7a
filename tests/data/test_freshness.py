"""What c13.json is checked against: every input by its sha256 (the model card included) and the generator's
code, found by glob so that a new file of the models or data stage counts without a list to keep."""
import shutil

from generator.data import provenance
from generator.data.provenance import code_files, input_hashes, stale_inputs
from tests.conftest import MODELS, ROOT


def test_the_model_card_is_a_recorded_input(fresh_precomputed, tmp_path):
    models = tmp_path / "models"
    shutil.copytree(MODELS, models)
    assert stale_inputs(fresh_precomputed / "c13.json", models, fresh_precomputed) == []
    card = models / "card.json"
    card.write_text(card.read_text(encoding="utf-8").replace('"heldout_loss": ', '"heldout_loss": 1', 1),
                    encoding="utf-8")
    assert stale_inputs(fresh_precomputed / "c13.json", models, fresh_precomputed) == ["models/card.json"]
    card.unlink()
    assert input_hashes(models, fresh_precomputed)["models/card.json"] == provenance.ABSENT


def test_the_code_hash_covers_the_stages_by_glob(tmp_path):
    names = [p.relative_to(ROOT).as_posix() for p in code_files()]
    assert names == sorted(names)
    for name in ("generator/contract.py", "generator/jsonio.py", "generator/errors.py", "generator/data/provenance.py",
                 "generator/models/checkpoint.py", "generator/shared_sampler.py"):
        assert name in names
    assert not [n for n in names if n.startswith(("generator/pages/", "generator/cli"))]
    for name in names:  # a copy of the project's code, then one new file in the data stage
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    before = provenance.code_hash(tmp_path)
    assert before == provenance.code_hash(ROOT)
    (tmp_path / "generator/data/new_stage_file.py").write_text("X = 1\n", encoding="utf-8")
    assert "generator/data/new_stage_file.py" in [p.relative_to(tmp_path).as_posix() for p in code_files(tmp_path)]
    assert provenance.code_hash(tmp_path) != before


def test_a_changed_code_file_is_named_by_its_path(fresh_precomputed, tmp_path):
    """`make check` after an edit to the generator's code names the file, not just "generator"."""
    for name in [p.relative_to(ROOT).as_posix() for p in code_files()]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    json_path = fresh_precomputed / "c13.json"
    assert stale_inputs(json_path, MODELS, fresh_precomputed, root=tmp_path) == []
    settings = tmp_path / "generator/data/settings.py"
    settings.write_text(settings.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    (tmp_path / "generator/data/new_stage_file.py").write_text("X = 1\n", encoding="utf-8")
    assert stale_inputs(json_path, MODELS, fresh_precomputed, root=tmp_path) == [
        "generator/data/new_stage_file.py", "generator/data/settings.py"]


def test_a_missing_or_edited_browser_file_makes_the_data_stale(fresh_precomputed):
    """E6's float16 weights and tokenizer are written beside c13.json, their sha256 in it: a file deleted or changed
    afterwards is reported by its path, so `make site` regenerates it rather than serving bytes nobody checked."""
    json_path = fresh_precomputed / "c13.json"
    assert stale_inputs(json_path, MODELS, fresh_precomputed) == []
    folder = fresh_precomputed / "browser"
    weights = sorted(folder.glob("*.safetensors"))[0]
    weights.write_bytes(weights.read_bytes()[:-2] + b"\0\0")
    (folder / "tokenizer.json").unlink()
    assert stale_inputs(json_path, MODELS, fresh_precomputed) == [
        f"browser/{weights.name} (changed since it was written)", "browser/tokenizer.json (missing)"]
