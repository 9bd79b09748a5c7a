"""The files the reader's browser loads for E6: each model's weights in float16, and the tokenizer.

browser_file_bytes() makes them for precomputed/browser/ (next to c13.json; the page build copies them from
there and never reads models/). Each safetensors file holds the float32 checkpoint's tensors, same names and
shapes, rounded to float16, with its config and the float32 file's sha256 in __metadata__. The header is written
here, not by safetensors.torch.save, because that one orders __metadata__'s keys differently from run to run:
the same models must give the same bytes.

float16_error() says what the rounding costs (max |Δp| over real sequences, whether the top token stays), and
write_logits_fixture() records torch's float32 logits of the rounded weights for the JS forward's tests.
"""
import base64
import copy
import hashlib
import json
from pathlib import Path

import torch
from safetensors import SafetensorError, safe_open

from .. import atomic
from ..errors import InputError
from ..models.checkpoint import DRAFTS, TARGET, WEIGHTS, load_family
from ..models.model import GPT, GPTConfig, KVCache
from .settings import rounded

MODELS = (TARGET, *DRAFTS)
TOKENIZER = "tokenizer.json"
DTYPE = "float16"
CONFIG_KEYS = ("vocab_size", "block_size", "n_layer", "n_head", "n_embd")


def browser_name(model):
    return f"{model}.safetensors"


def config_text(cfg):
    """The config as __metadata__ carries it: compact JSON, the keys in the dataclass's order."""
    return json.dumps({key: getattr(cfg, key) for key in CONFIG_KEYS}, separators=(",", ":"))


def safetensors_f16(tensors, metadata):
    """safetensors bytes of the given tensors rounded to float16: a little-endian u64 header length, the JSON header
    (metadata first with sorted keys, then the tensors by name, padded with spaces to 8 bytes), then the data."""
    header, chunks, offset = {"__metadata__": dict(sorted(metadata.items()))}, [], 0
    for name in sorted(tensors):
        raw = tensors[name].detach().to(torch.float16).contiguous().numpy().astype("<f2").tobytes()
        header[name] = {"dtype": "F16", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return len(text).to_bytes(8, "little") + text + b"".join(chunks)


def browser_file_bytes(models_dir):
    """The bytes of <model>.safetensors (float16) for the three models and of the tokenizer, by file name; nothing
    is written (the data stage writes them together with c13.json, atomic.write_together).

    The models are read and checked as every stage reads them (load_family: InputError naming the file and the
    field)."""
    models_dir = Path(models_dir)
    _, models = load_family(models_dir)
    files = {}
    for name in MODELS:
        source = models_dir / name / WEIGHTS
        meta = {"config": config_text(models[name].cfg),
                "source_sha256": hashlib.sha256(source.read_bytes()).hexdigest()}
        files[browser_name(name)] = safetensors_f16(models[name].state_dict(), meta)
    files[TOKENIZER] = (models_dir / TOKENIZER).read_bytes()
    return dict(sorted(files.items()))


def describe(files):
    """What c13.json records of the browser files: {"dtype": "float16", "files": {name: {"sha256", "bytes"}}}."""
    return {"dtype": DTYPE, "files": {file: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
                                      for file, data in sorted(files.items())}}


def write_browser_files(models_dir, out_dir):
    """Write the browser files (browser_file_bytes) into out_dir, each atomically; returns describe() of them."""
    files = browser_file_bytes(models_dir)
    for file, data in files.items():
        atomic.write_bytes(Path(out_dir) / file, data)
    return describe(files)


def _float64_copy(model, half):
    """A float64 copy of model's float32 weights (model may have been converted to float64 already: its values are
    float32 ones, exact in float64), rounded to float16 first when half, as the browser files round them (float32 to
    float16). Every upcast is exact, so the copies differ by the float16 rounding and nothing else."""
    twin = copy.deepcopy(model).float()
    if half:
        twin = twin.half()
    return twin.double().eval()


@torch.inference_mode()
def float16_error(models, sequences):
    """What rounding the weights to float16 changes: every model's float32 weights against their float16-rounded
    twin, both run in float64 (so that only the weights' rounding shows, not the order a CPU's float32 kernels sum
    in: in float32 this figure moved by 2e-7 between machines, its 4th digit with it), over every position of every
    token sequence.

    Returns {"max_abs_dp": the largest |p16 − p32| of any token at any position (4 significant digits),
    "positions": how many next-token distributions were compared, "argmax_agree": at how many of them the most
    likely token is the same}."""
    worst, positions, agree = 0.0, 0, 0
    for model in models.values():
        full, half = _float64_copy(model, False), _float64_copy(model, True)
        for tokens in sequences:
            idx = torch.tensor([list(tokens)])
            p32 = torch.softmax(full(idx)[0], dim=-1)
            p16 = torch.softmax(half(idx)[0], dim=-1)
            worst = max(worst, float((p16 - p32).abs().max()))
            positions += p32.shape[0]
            agree += int((p32.max(dim=-1).indices == p16.max(dim=-1).indices).sum())
    return {"max_abs_dp": rounded(worst), "positions": positions, "argmax_agree": agree}


def _read_config(path, metadata):
    field = "__metadata__.config"
    try:
        raw = json.loads((metadata or {})["config"])
    except KeyError:
        raise InputError(path, field, "is missing: which model shape do these tensors have?") from None
    except (TypeError, ValueError) as e:
        raise InputError(path, field, f"is not JSON ({e})") from None
    if not isinstance(raw, dict):
        raise InputError(path, field, f"must be a JSON object, got {raw!r}")
    for key in CONFIG_KEYS:
        value = raw.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise InputError(path, f"{field}.{key}", f"must be a positive integer, got {value!r}")
    if raw["n_embd"] % raw["n_head"]:
        raise InputError(path, f"{field}.n_head", f"{raw['n_head']} heads do not divide n_embd={raw['n_embd']}")
    return GPTConfig(**{key: raw[key] for key in CONFIG_KEYS})


def load_browser_model(path):
    """The GPT of one browser file: its float16 tensors upcast to float32, its config from __metadata__."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, None, "file is missing: write it with write_browser_files (python -m generator data)")
    try:
        with safe_open(str(path), framework="pt") as f:
            metadata, tensors = f.metadata(), {name: f.get_tensor(name) for name in f.keys()}
    except (SafetensorError, OSError, ValueError, RuntimeError) as e:
        raise InputError(path, None, f"corrupt or truncated safetensors ({e})") from None
    model = GPT(_read_config(path, metadata))
    expected = model.state_dict()
    for name, ref in expected.items():
        if name not in tensors:
            raise InputError(path, name, "tensor is missing")
        if tuple(tensors[name].shape) != tuple(ref.shape):
            raise InputError(path, name, f"shape {tuple(tensors[name].shape)} disagrees with __metadata__.config, "
                                         f"which needs {tuple(ref.shape)}")
    for name in sorted(set(tensors) - set(expected)):
        raise InputError(path, name, "unexpected tensor for this model family")
    model.load_state_dict({name: t.float() for name, t in tensors.items()})
    return model.eval()


def _feed_steps(tokens_of_sequence, feeds):
    """The feed plan resolved into explicit steps. Each feed is {"feed": n} (the sequence's next n tokens after
    what the cache holds), {"tokens": [ids]} (these tokens instead: what a replacement after a rejection looks
    like), either with an optional "last" (how many of the fed positions' logits to return, default all), or
    {"rollback": valid} (forget every cached position from valid on)."""
    cached, steps = 0, []
    for i, feed in enumerate(feeds):
        if "rollback" in feed:
            cached = min(cached, int(feed["rollback"]))
            steps.append({"rollback": cached})
            continue
        fed = list(feed["tokens"]) if "tokens" in feed else list(tokens_of_sequence[cached:cached + int(feed["feed"])])
        last = int(feed.get("last", len(fed)))
        if not fed or not 1 <= last <= len(fed):
            raise ValueError(f"feeds[{i}] = {feed}: feeds no tokens or asks for {last} of {len(fed)} rows")
        steps.append({"start": cached, "tokens": fed, "last": last})
        cached += len(fed)
    return steps


@torch.inference_mode()
def _fixture_for(model, sequence, feeds):
    cache, steps = KVCache(model.cfg.n_layer), _feed_steps(sequence, feeds)
    for step in steps:
        if "rollback" in step:
            cache.truncate(step["rollback"])
            continue
        logits = model(torch.tensor([step["tokens"]]), cache)[0, -step["last"]:].float().contiguous()
        step["logits"] = base64.b64encode(logits.numpy().astype("<f4").tobytes()).decode("ascii")
    return steps


def write_logits_fixture(browser_dir, sequences, out_path, feeds):
    """For each browser file in browser_dir: torch's float32 logits of its float16-rounded weights, fed as `feeds`
    says through GPT + KVCache, written to out_path (JSON) for the JS forward to compare with.

    sequences: one list of token ids for every model, or {model: ids}. The JSON holds, per model, the file name,
    the config, the sequence and the resolved steps: {"start", "tokens", "last", "logits": base64 of the last
    `last` rows, little-endian float32, row-major} or {"rollback": valid}."""
    browser_dir, out = Path(browser_dir), {}
    for name in MODELS:
        model = load_browser_model(browser_dir / browser_name(name))
        sequence = list(sequences[name] if isinstance(sequences, dict) else sequences)
        out[name] = {"file": browser_name(name), "config": {key: getattr(model.cfg, key) for key in CONFIG_KEYS},
                     "sequence": sequence, "steps": _fixture_for(model, sequence, feeds)}
    atomic.write_json(out_path, {"models": out})
    return out
