"""The measured.json contract: what `make measure` writes (generator/data/measure.py) and what a reader may rely on.

Timings of this machine, not figures of the lesson: kept apart from c13.json (and from its code hash), never needed
by `make site`. Torch-free, standard library only; every problem is an InputError(path, field, problem).
generator/contract.py re-exports load_measured and validate_measured.
"""
import datetime
import hashlib
import math
import re
from pathlib import Path

from .errors import InputError
from .jsonio import read_json

MEASURED_KIND, MEASURED_VERSION = "c13-measured", 1
REMEASURE = "measure again with `make measure` (python -m generator measure)"
STAT_KEYS = ("median", "min", "max", "q1", "q3", "n")
MACHINE_TEXT = ("cpu", "torch_version", "python_version", "os", "date_utc")
METHOD_INTS = ("repeats", "forward_samples", "context", "calls_per_sample", "n_new", "baseline_every")
MODEL_KEYS = ("role", "parameters", "sha256", "config_sha256", "ms_per_forward")
ROW_COUNTS = ("tokens", "target_forwards", "draft_forwards")
SHA256 = re.compile(r"[0-9a-f]{64}")


def _fail(path, field, problem):
    raise InputError(path, field, f"{problem}; {REMEASURE}")


def _get(mapping, key, path, where, kind=dict):
    field = f"{where}.{key}" if where else key
    if not isinstance(mapping, dict) or key not in mapping:
        _fail(path, field, "missing")
    value = mapping[key]
    if kind is int and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
        _fail(path, field, f"must be a positive integer, got {value!r}")
    if kind is str and (not isinstance(value, str) or not value):
        _fail(path, field, f"must be a non-empty string, got {value!r}")
    if kind in (dict, list, bool) and not isinstance(value, kind):
        _fail(path, field, f"must be a {kind.__name__}, got {type(value).__name__}")
    return value


def check_stat(stat, path, field, n=None):
    """A median with its spread: positive finite numbers, min ≤ q1 ≤ median ≤ q3 ≤ max, n samples."""
    if not isinstance(stat, dict):
        _fail(path, field, "missing or not an object")
    for key in STAT_KEYS[:-1]:
        value = stat.get(key)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value <= 0:
            _fail(path, f"{field}.{key}", f"must be a positive finite number, got {value!r}")
    count = _get(stat, "n", path, field, int)
    if n is not None and count != n:
        _fail(path, f"{field}.n", f"{count} samples, but the method records {n}")
    order = [stat[key] for key in ("min", "q1", "median", "q3", "max")]
    if any(a > b * (1 + 1e-12) for a, b in zip(order, order[1:])):
        _fail(path, field, f"min ≤ q1 ≤ median ≤ q3 ≤ max does not hold: {order}")


def check_machine(data, path):
    m = _get(data, "machine", path, "")
    for key in MACHINE_TEXT:
        _get(m, key, path, "machine", str)
    _get(m, "cores", path, "machine", int)
    _get(m, "threads", path, "machine", int)
    try:
        datetime.datetime.strptime(m["date_utc"], "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        _fail(path, "machine.date_utc", f"not a UTC date like 2025-01-31T12:00:00Z: {m['date_utc']!r}")


def check_models(data, path, method):
    target = _get(data, "target", path, "", str)
    drafts = _get(data, "drafts", path, "", list)
    models = _get(data, "models", path, "")
    for name in (target, *drafts):
        entry = _get(models, name, path, "models")
        for key in MODEL_KEYS:
            _get(entry, key, path, f"models.{name}", object)
        for key in ("sha256", "config_sha256"):
            if not isinstance(entry[key], str) or not SHA256.fullmatch(entry[key]):
                _fail(path, f"models.{name}.{key}", "must be a sha256 (64 lowercase hex digits)")
        check_stat(entry["ms_per_forward"], path, f"models.{name}.ms_per_forward", method["forward_samples"])
    if not isinstance(data.get("tokenizer_sha256"), str) or not SHA256.fullmatch(data["tokenizer_sha256"]):
        _fail(path, "tokenizer_sha256", "must be a sha256 (64 lowercase hex digits)")
    return drafts


def check_forward(data, path, drafts, ks, method):
    forward = _get(data, "forward", path, "")
    c = _get(forward, "c", path, "forward")
    for draft in drafts:
        check_stat(c.get(draft), path, f"forward.c.{draft}", method["forward_samples"])
    v = {row.get("k"): row for row in _get(forward, "v", path, "forward", list) if isinstance(row, dict)}
    for k in ks:
        if k not in v:
            _fail(path, "forward.v", f"no v(k) for k = {k}")
        check_stat(v[k], path, f"forward.v[k={k}]", method["forward_samples"])


def check_speedup(data, path, drafts, ks, method):
    speedup = _get(data, "speedup", path, "")
    for key in ("prompts", "seeds"):
        if not _get(speedup, key, path, "speedup", list):
            _fail(path, f"speedup.{key}", "empty")
    _get(speedup, "n_new", path, "speedup", int)
    table = _get(speedup, "drafts", path, "speedup")
    for draft in drafts:
        rows = {row.get("k"): row for row in _get(table, draft, path, "speedup.drafts", list)
                if isinstance(row, dict)}
        for k in ks:
            where = f"speedup.drafts.{draft}[k={k}]"
            if k not in rows:
                _fail(path, where, "missing: every draft × k is measured")
            for key in ("speedup", "target_only_ms_per_token", "speculative_ms_per_token"):
                check_stat(rows[k].get(key), path, f"{where}.{key}", method["repeats"])
            for key in ROW_COUNTS:
                _get(rows[k], key, path, where, int)


def validate_measured(data, path):
    """Check one measured.json as read (or before it is written). Returns the data."""
    if not isinstance(data, dict):
        _fail(path, None, "measured.json must be a JSON object")
    if data.get("kind") != MEASURED_KIND or data.get("version") != MEASURED_VERSION:
        _fail(path, "kind", f"expected kind {MEASURED_KIND!r} version {MEASURED_VERSION}, got "
                            f"{data.get('kind')!r} version {data.get('version')!r}")
    check_machine(data, path)
    method = _get(data, "method", path, "")
    for key in METHOD_INTS:
        _get(method, key, path, "method", int)
    _get(method, "quick", path, "method", bool)
    ks = _get(data, "ks", path, "", list)
    if not ks or any(not isinstance(k, int) or isinstance(k, bool) or k < 1 for k in ks):
        _fail(path, "ks", f"must be a non-empty list of positive integers, got {ks!r}")
    drafts = check_models(data, path, method)
    check_forward(data, path, drafts, ks, method)
    check_speedup(data, path, drafts, ks, method)
    return data


def load_measured(path):
    """Read and validate one measured.json."""
    return validate_measured(read_json(path, "the measured timings", REMEASURE), path)


def changed_models(data, models_dir):
    """The model files whose sha256 no longer matches the measured one (a stale measurement when not empty)."""
    changed = []
    for name, entry in data["models"].items():
        for key, file in (("sha256", "model.safetensors"), ("config_sha256", "config.json")):
            path = Path(models_dir) / name / file
            try:
                now = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError:
                now = None
            if now != entry[key]:
                changed.append(f"models/{name}/{file}")
    return changed
