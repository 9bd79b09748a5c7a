"""The committed models, tokenizer and card agree with each other."""
import json

from generator.models.checkpoint import DRAFTS, TARGET, load_family, sha256_file, tokenizer_fingerprint
from tests.conftest import MODELS


def test_committed_family_loads_and_shares_one_vocabulary():
    tok, models = load_family(MODELS)
    assert set(models) == {TARGET, *DRAFTS}
    assert {m.cfg.vocab_size for m in models.values()} == {tok.get_vocab_size()} == {2048}
    assert [models[n].cfg.n_embd for n in (TARGET, *DRAFTS)] == [256, 64, 128]
    for m in models.values():
        assert (m.cfg.n_layer, m.cfg.n_head, m.cfg.block_size) == (4, 4, 128)


def test_card_matches_the_files_and_ranks_the_models():
    card = json.loads((MODELS / "card.json").read_text(encoding="utf-8"))
    tok, models = load_family(MODELS)
    assert card["tokenizer"]["sha256"] == sha256_file(MODELS / "tokenizer.json")
    assert card["tokenizer"]["fingerprint"] == tokenizer_fingerprint(tok)
    for name, model in models.items():
        entry = card["models"][name]
        assert entry["sha256"] == sha256_file(MODELS / name / "model.safetensors")
        assert entry["parameters"] == model.num_params()
    held = {name: card["models"][name]["heldout_loss"] for name in models}
    small, large = sorted(DRAFTS, key=lambda name: card["models"][name]["parameters"])
    assert held[TARGET] < held[large] < held[small]
    recipe = card["recipe"]
    assert card["tokens_seen_per_model"] == recipe["steps"] * recipe["batch_size"] * recipe["block_size"]
