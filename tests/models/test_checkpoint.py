"""Every kind of bad model input is refused with a message naming the file and the field."""
import json
import subprocess
import sys

import pytest
import torch
from safetensors.torch import load_file, save_file

from generator.models.checkpoint import load_family
from generator.errors import InputError
from generator.models.family import DRAFTS, TARGET
from tests.conftest import CORPUS, ROOT



def refused(folder):
    with pytest.raises(InputError) as info:
        load_family(folder)
    return str(info.value)


def edit_config(folder, name, **changes):
    path = folder / name / "config.json"
    cfg = json.loads(path.read_text())
    cfg.update(changes)
    path.write_text(json.dumps(cfg))


def edit_tensors(folder, name, change):
    path = folder / name / "model.safetensors"
    tensors = load_file(path)
    change(tensors)
    save_file(tensors, path)


def test_a_valid_family_loads(tiny_family):
    tok, models = load_family(tiny_family)
    assert set(models) == {TARGET, *DRAFTS}


def test_missing_model_folder(tiny_family):
    import shutil
    shutil.rmtree(tiny_family / DRAFTS[0])
    msg = refused(tiny_family)
    assert DRAFTS[0] in msg and "model folder is missing" in msg


@pytest.mark.parametrize("file", ["config.json", "model.safetensors"])
def test_missing_file(tiny_family, file):
    (tiny_family / TARGET / file).unlink()
    msg = refused(tiny_family)
    assert f"{TARGET}/{file}" in msg and "missing" in msg


def test_missing_tokenizer(tiny_family):
    (tiny_family / "tokenizer.json").unlink()
    assert "tokenizer.json" in refused(tiny_family)


def test_corrupt_tokenizer(tiny_family):
    (tiny_family / "tokenizer.json").write_text('{"model": ')
    msg = refused(tiny_family)
    assert "tokenizer.json" in msg and "not a readable tokenizer" in msg


def test_truncated_safetensors(tiny_family):
    path = tiny_family / DRAFTS[1] / "model.safetensors"
    path.write_bytes(path.read_bytes()[:-100])
    msg = refused(tiny_family)
    assert f"{DRAFTS[1]}/model.safetensors" in msg and "corrupt or truncated" in msg


def test_garbage_safetensors_header(tiny_family):
    (tiny_family / TARGET / "model.safetensors").write_bytes(b"\xff" * 64)
    assert "corrupt or truncated" in refused(tiny_family)


def test_malformed_config_json(tiny_family):
    (tiny_family / TARGET / "config.json").write_text("{not json")
    msg = refused(tiny_family)
    assert f"{TARGET}/config.json" in msg and "not valid JSON" in msg


def test_config_field_missing_or_wrong_type(tiny_family):
    edit_config(tiny_family, TARGET, n_layer="four")
    msg = refused(tiny_family)
    assert "config.json: n_layer" in msg and "positive integer" in msg


def test_unknown_config_field_is_refused_by_name(tiny_family):
    edit_config(tiny_family, TARGET, bias=True)
    msg = refused(tiny_family)
    assert f"{TARGET}/config.json: bias" in msg and "unknown field" in msg


def test_shape_disagrees_with_config(tiny_family):
    edit_config(tiny_family, DRAFTS[0], n_embd=12, n_head=2)
    msg = refused(tiny_family)
    assert f"{DRAFTS[0]}/model.safetensors: tok_emb.weight" in msg and "disagrees with config.json" in msg


def test_vocab_of_2047(tiny_family):
    edit_config(tiny_family, DRAFTS[0], vocab_size=2047)
    edit_tensors(tiny_family, DRAFTS[0], lambda t: t.__setitem__("tok_emb.weight", t["tok_emb.weight"][:2047].clone()))
    msg = refused(tiny_family)
    assert f"{DRAFTS[0]}/config.json: vocab_size" in msg and "2047" in msg and "2048" in msg


def test_draft_with_another_context_than_the_target(tiny_family):
    edit_config(tiny_family, DRAFTS[1], block_size=16)
    edit_tensors(tiny_family, DRAFTS[1], lambda t: t.__setitem__("pos_emb.weight", t["pos_emb.weight"][:16].clone()))
    msg = refused(tiny_family)
    assert f"{DRAFTS[1]}/config.json: block_size" in msg and "target" in msg


def test_tokenizer_from_another_training(tiny_family):
    """Same size, other training: half the corpus gives other merges, so ids mean other bytes."""
    from generator.models.corpus import read_corpus
    from generator.models.tokenizer import train_tokenizer
    text, _ = read_corpus(CORPUS)
    other = train_tokenizer(text[: len(text) // 2])
    assert other.get_vocab_size() == 2048
    other.save(str(tiny_family / "tokenizer.json"))
    msg = refused(tiny_family)
    assert "config.json: tokenizer_fingerprint" in msg and "another tokenizer" in msg


def test_nan_weights(tiny_family):
    def poison(t):
        t["blocks.0.mlp.up.weight"][0, 0] = float("nan")
    edit_tensors(tiny_family, TARGET, poison)
    msg = refused(tiny_family)
    assert "blocks.0.mlp.up.weight" in msg and "NaN" in msg


def test_wrong_dtype(tiny_family):
    edit_tensors(tiny_family, TARGET, lambda t: t.__setitem__("ln_f.weight", t["ln_f.weight"].to(torch.float16)))
    msg = refused(tiny_family)
    assert "ln_f.weight" in msg and "float16" in msg


def test_missing_and_unexpected_tensors(tiny_family):
    edit_tensors(tiny_family, TARGET, lambda t: t.pop("ln_f.weight"))
    assert "ln_f.weight: tensor is missing" in refused(tiny_family)
    edit_tensors(tiny_family, TARGET, lambda t: t.update({"ln_f.weight": torch.ones(32), "lm_head.weight": torch.ones(2, 2)}))
    assert "lm_head.weight: unexpected tensor" in refused(tiny_family)


@pytest.mark.slow("the models command started with torch")
def test_command_line_exits_2_and_names_the_file(tiny_family):
    (tiny_family / DRAFTS[0] / "config.json").unlink()
    out = subprocess.run([sys.executable, "-m", "generator", "models", "--models", str(tiny_family)],
                         cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 2
    assert f"{DRAFTS[0]}/config.json" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.slow("the models command started with torch")
def test_command_line_names_a_malformed_model_card_in_one_line(tiny_family):
    (tiny_family / "card.json").write_text("{not json", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "generator", "models", "--models", str(tiny_family)],
                         cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert str(tiny_family / "card.json") in lines[0] and "not valid JSON" in lines[0]
    assert "make train" in lines[0] or "git restore" in lines[0]
