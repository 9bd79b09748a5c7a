"""Save and load model folders (config.json + model.safetensors), refusing anything that does not fit.

Every refusal is an InputError naming the file and the field. The config is read from the checkpoint
itself, so an author's own checkpoints of this family load without code changes.
"""
import dataclasses
import hashlib
from pathlib import Path

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import save as safetensors_bytes

from .. import atomic
from ..errors import InputError
from ..jsonio import read_json
from .family import CONFIG, DRAFTS, FINGERPRINT, TARGET, WEIGHTS  # noqa: F401  (re-exported)
from .model import GPT, GPTConfig
from .tokenizer import load_tokenizer, token_bytes



def tokenizer_fingerprint(tok):
    """sha256 over every token's bytes in id order: what each id means, independent of JSON layout."""
    h = hashlib.sha256()
    for raw in token_bytes(tok):
        h.update(raw.hex().encode() + b"\n")
    return h.hexdigest()


def sha256_file(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def save_model(model, folder, fingerprint):
    folder = Path(folder)
    config = dict(model.cfg.to_dict(), **{FINGERPRINT: fingerprint})
    tensors = {k: v.detach().contiguous() for k, v in model.state_dict().items()}
    atomic.write_bytes(folder / WEIGHTS, safetensors_bytes(tensors))
    atomic.write_json(folder / CONFIG, config)


def _read_config(path):
    raw = read_json(path, "the model's config")
    known = {f.name for f in dataclasses.fields(GPTConfig)} | {FINGERPRINT}
    for name in sorted(set(raw) - known):
        raise InputError(path, name, f"unknown field for this model family (it knows {', '.join(sorted(known))}); "
                                     "remove it, or train a model of another family with its own loader")
    fields = {}
    for f in dataclasses.fields(GPTConfig):
        if f.name not in raw:
            raise InputError(path, f.name, "field is missing")
        value = raw[f.name]
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise InputError(path, f.name, f"must be a positive integer, got {value!r}")
        fields[f.name] = value
    if fields["n_embd"] % fields["n_head"]:
        raise InputError(path, "n_head", f"{fields['n_head']} heads do not divide n_embd={fields['n_embd']}")
    fingerprint = raw.get(FINGERPRINT)
    if not isinstance(fingerprint, str):
        raise InputError(path, FINGERPRINT, "field is missing: which tokenizer was this model trained with?")
    return GPTConfig(**fields), fingerprint


def _read_tensors(path):
    if not path.is_file():
        raise InputError(path, None, "file is missing")
    try:
        with safe_open(str(path), framework="pt") as f:
            return {name: f.get_tensor(name) for name in f.keys()}
    except (SafetensorError, OSError, ValueError, RuntimeError) as e:
        raise InputError(path, None, f"corrupt or truncated safetensors ({e})") from None


def load_model(folder, tok, fingerprint=None):
    """Load one model folder and check it against its config and the tokenizer. Returns GPT in eval mode."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(folder, None, "model folder is missing")
    cfg_path, w_path = folder / CONFIG, folder / WEIGHTS
    cfg, model_fp = _read_config(cfg_path)
    vocab = tok.get_vocab_size()
    if cfg.vocab_size != vocab:
        raise InputError(cfg_path, "vocab_size", f"{cfg.vocab_size}, but the tokenizer has {vocab} tokens")
    if model_fp != (fingerprint or tokenizer_fingerprint(tok)):
        raise InputError(cfg_path, FINGERPRINT, "this model was trained with another tokenizer than models/tokenizer.json")
    tensors = _read_tensors(w_path)
    model = GPT(cfg)
    expected = model.state_dict()
    for name in sorted(set(tensors) - set(expected)):
        raise InputError(w_path, name, "unexpected tensor for this model family")
    for name, ref in expected.items():
        if name not in tensors:
            raise InputError(w_path, name, "tensor is missing")
        t = tensors[name]
        if tuple(t.shape) != tuple(ref.shape):
            raise InputError(w_path, name, f"shape {tuple(t.shape)} disagrees with {CONFIG} "
                             f"(n_embd={cfg.n_embd}, vocab_size={cfg.vocab_size}, block_size={cfg.block_size}), "
                             f"which needs {tuple(ref.shape)}")
        if t.dtype != torch.float32:
            raise InputError(w_path, name, f"dtype {t.dtype}, expected torch.float32")
        if not torch.isfinite(t).all():
            raise InputError(w_path, name, "holds NaN or infinite values")
    model.load_state_dict(tensors)
    return model.eval()


def load_family(models_dir):
    """The tokenizer and the three models.

    Each model is checked against the one tokenizer (size and fingerprint), so the drafts' vocabulary
    is the target's; their context must agree too, since one prompt runs through all of them.
    """
    models_dir = Path(models_dir)
    tok = load_tokenizer(models_dir / "tokenizer.json")
    fp = tokenizer_fingerprint(tok)
    models = {name: load_model(models_dir / name, tok, fp) for name in (TARGET, *DRAFTS)}
    block = models[TARGET].cfg.block_size
    for name in DRAFTS:
        if models[name].cfg.block_size != block:
            raise InputError(models_dir / name / CONFIG, "block_size",
                             f"{models[name].cfg.block_size}, but the target {TARGET} has {block}")
    return tok, models


CARD = "card.json"
CARD_FIX = "it is written by `make train`: restore it from git (git restore models/card.json) or retrain"
CARD_SECTIONS = ("recipe", "corpus", "tokenizer", "models")
CARD_NUMBERS = ("train_loss", "heldout_loss", "wall_seconds")  # per model; the page shows a dash for a missing one


def _number_or_absent(value):
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def load_card(models_dir):
    """models/card.json, checked before any stage works with it: {} when absent (the page then shows dashes).

    The sections the data stage reads must be objects, and each model's entry an object whose losses and time,
    when given, are numbers; anything else is an InputError naming the file and the field."""
    path = Path(models_dir) / CARD
    if not path.exists():
        return {}
    card = read_json(path, "the model card", CARD_FIX)
    for section in CARD_SECTIONS:
        if section in card and not isinstance(card[section], dict):
            raise InputError(path, section, f"must be an object, got {card[section]!r}; {CARD_FIX}")
    for name, entry in card.get("models", {}).items():
        if not isinstance(entry, dict):
            raise InputError(path, f"models.{name}", f"must be an object of the model's figures, got {entry!r}; "
                                                     f"{CARD_FIX}")
        for key in CARD_NUMBERS:
            if not _number_or_absent(entry.get(key)):
                raise InputError(path, f"models.{name}.{key}", f"must be a number, got {entry[key]!r}; {CARD_FIX}")
    return card
