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
# A ratio of two timings (c: a draft's forward over the target's, v(k): verifying k + 1 positions over one, the
# speedup: target-only over speculative time per token) far outside (0, RATIO_MAX) is no measurement of these
# models but a broken file: it is refused rather than drawn as measured.
RATIO_MAX = 100


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


def check_stat(stat, path, field, n=None, ratio=False):
    """A median with its spread: positive finite numbers (a ratio also below RATIO_MAX), min ≤ q1 ≤ median ≤ q3
    ≤ max, n samples."""
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
    bound = [key for key in STAT_KEYS[:-1] if stat[key] >= RATIO_MAX] if ratio else []
    if bound:
        _fail(path, f"{field}.{bound[0]}", f"is {stat[bound[0]]!r}: a ratio of two timings of these models lies "
                                           f"between 0 and {RATIO_MAX}, so this is no measurement")


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
    if not drafts:
        _fail(path, "drafts", "is empty: name the draft models that were timed")
    for i, name in enumerate(drafts):
        if not isinstance(name, str) or not name or name == target or drafts.index(name) != i:
            _fail(path, f"drafts[{i}]", f"must be the name of a draft model (a string, once, not the target), got "
                                        f"{name!r}")
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


def rows_by_k(rows, path, field, ks):
    """A list of rows, one per k of ks: {k: row}; a row that is not an object, or whose k is not one of ks or
    repeats, is refused."""
    out = {}
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            _fail(path, f"{field}[{i}]", f"must be an object with its k, got {row!r}")
        k = row.get("k")
        if isinstance(k, bool) or k not in ks or k in out:
            _fail(path, f"{field}[{i}].k", f"is {k!r}: each row is one k of ks {ks}, once")
        out[k] = row
    return out


def check_forward(data, path, drafts, ks, method):
    forward = _get(data, "forward", path, "")
    c = _get(forward, "c", path, "forward")
    for draft in drafts:
        check_stat(c.get(draft), path, f"forward.c.{draft}", method["forward_samples"], ratio=True)
    v = rows_by_k(_get(forward, "v", path, "forward", list), path, "forward.v", ks)
    for k in ks:
        if k not in v:
            _fail(path, "forward.v", f"no v(k) for k = {k}")
        check_stat(v[k], path, f"forward.v[k={k}]", method["forward_samples"], ratio=True)


def check_speedup(data, path, drafts, ks, method):
    speedup = _get(data, "speedup", path, "")
    for key in ("prompts", "seeds"):
        if not _get(speedup, key, path, "speedup", list):
            _fail(path, f"speedup.{key}", "empty")
    _get(speedup, "n_new", path, "speedup", int)
    table = _get(speedup, "drafts", path, "speedup")
    for draft in drafts:
        rows = rows_by_k(_get(table, draft, path, "speedup.drafts", list), path, f"speedup.drafts.{draft}", ks)
        for k in ks:
            where = f"speedup.drafts.{draft}[k={k}]"
            if k not in rows:
                _fail(path, where, "missing: every draft × k is measured")
            check_stat(rows[k].get("speedup"), path, f"{where}.speedup", method["repeats"], ratio=True)
            for key in ("target_only_ms_per_token", "speculative_ms_per_token"):
                check_stat(rows[k].get(key), path, f"{where}.{key}", method["repeats"])
            tokens, target, drafted = (_get(rows[k], key, path, where, int) for key in ROW_COUNTS)
            if not target <= tokens <= (k + 1) * target:
                _fail(path, f"{where}.tokens", f"is {tokens}: each of the {target} target forwards yields 1 to "
                                               f"k + 1 = {k + 1} tokens")
            if drafted > k * target:
                _fail(path, f"{where}.draft_forwards", f"is {drafted}, more than k × target_forwards ({k * target})")


def check_torch_overhead(data, path, drafts):
    """Optional: torch's ATen calls per cached step and the share of a step outside the matrix products, per model."""
    overhead = data.get("torch_overhead")
    if overhead is None:
        return
    for name in (data["target"], *drafts):
        entry = _get(overhead, name, path, "torch_overhead")
        calls = entry.get("aten_calls_per_step")
        if not isinstance(calls, (int, float)) or isinstance(calls, bool) or not 1 <= calls < 1e6:
            _fail(path, f"torch_overhead.{name}.aten_calls_per_step", f"must be a count of calls, got {calls!r}")
        share = entry.get("outside_matmul_share")
        if not isinstance(share, (int, float)) or isinstance(share, bool) or not 0 <= share <= 1:
            _fail(path, f"torch_overhead.{name}.outside_matmul_share", f"must be a share in [0, 1], got {share!r}")


def check_browser_forwards(data, path, drafts, ks):
    """Optional: E6's forwards timed in Node (generator/data/measure_browser.mjs), per kernel: ms per forward of
    every model, c per draft and v(k) per k, each a median with its spread; and the machine's roof (bandwidth and
    SIMD peak, medians with spread) by E6's probes."""
    browser = data.get("browser_forwards")
    if browser is None:
        return
    _get(browser, "node", path, "browser_forwards", str)
    engines = _get(browser, "engines", path, "browser_forwards")
    if not engines:
        _fail(path, "browser_forwards.engines", "is empty: name the forwards that were timed")
    roof = browser.get("roof")
    if roof is not None:
        _get(roof, "kernel", path, "browser_forwards.roof", str)
        for key in ("bandwidth_gbs", "peak_gflops"):
            check_stat(roof.get(key), path, f"browser_forwards.roof.{key}")
    for kernel, entry in engines.items():
        where = f"browser_forwards.engines.{kernel}"
        ms = _get(entry, "ms_per_forward", path, where)
        for name in (data["target"], *drafts):
            check_stat(ms.get(name), path, f"{where}.ms_per_forward.{name}")
        c = _get(entry, "c", path, where)
        for draft in drafts:
            check_stat(c.get(draft), path, f"{where}.c.{draft}", ratio=True)
        v = rows_by_k(_get(entry, "v", path, where, list), path, f"{where}.v", ks)
        for k in ks:
            if k not in v:
                _fail(path, f"{where}.v", f"no v(k) for k = {k}")
            check_stat(v[k], path, f"{where}.v[k={k}]", ratio=True)


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
    if not ks or any(not isinstance(k, int) or isinstance(k, bool) or k < 1 for k in ks) or ks != sorted(set(ks)):
        _fail(path, "ks", f"must be a non-empty list of positive integers, ascending, got {ks!r}")
    drafts = check_models(data, path, method)
    check_forward(data, path, drafts, ks, method)
    check_speedup(data, path, drafts, ks, method)
    check_torch_overhead(data, path, drafts)
    check_browser_forwards(data, path, drafts, ks)
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
