"""The c13.json contract, written once: its schema version, the keys the pages read, their checks, the content
digest, and the checks of the two hand-written inputs (precomputed/papers.json, precomputed/anchor-model.json).

The data stage validates and seals what it writes; every reader (`check`, the page build) validates what it
reads with the same functions. Torch-free and standard library only. Every problem is an
InputError(path, field, problem).
"""
import hashlib
import json

from .errors import InputError
from .jsonio import read_json
# measured.json (make measure): timings of this machine, kept out of c13.json; its contract lives apart
from .contract_measured import (MEASURED_KIND, MEASURED_VERSION, changed_models,  # noqa: F401  (re-exported)
                                load_measured, validate_measured)

SCHEMA_VERSION = 3
DIGEST = "digest"
REGENERATE = "regenerate it with `make data` (python -m generator data)"

# Every key the pages read, by dotted path: checked up front so a missing one is reported by name.
REQUIRED = [
    "schema_version", "provenance.generator", "provenance.generator_version", "provenance.command",
    "provenance.inputs", "provenance.torch_version",
    "models", "card", "tokenizer.vocab_size", "tokenizer.labels", "tokenizer.partial_tokens", "tokenizer.sha256",
    "prompts", "greedy.identical", "greedy.total", "greedy.n_new", "greedy.ks", "greedy.runs",
    "constants.target", "constants.drafts", "constants.ks", "constants.greedy_ks", "constants.top_n",
    "constants.small_vocab", "constants.schemes",
    "distributions", "offline.n", "offline.results",
    "replay.draft", "replay.k", "replay.n_new", "replay.prompt", "replay.prompt_tokens", "replay.rounds",
    "replay.tokens", "replay.target_forwards", "replay.draft_forwards",
    "accounting.prompts", "accounting.seeds", "accounting.n_new", "accounting.drafts",
    "accounting.alpha_definition", "accounting.interval",
    "alpha_spread.positions_per_prompt", "alpha_spread.drafts", "alpha_spread.prompts", "alpha_spread.tokens",
    "anchor.model", "anchor.hardware", "anchor.vocab_size", "anchor.compute_ms_per_token",
    "anchor.weight_read_ms_per_token", "anchor.positions_verified", "anchor.compute_ms_for_positions",
    "anchor.bytes_read_per_token", "anchor.params_read_per_token", "anchor.flops_per_position",
    "anchor.linear_attention_state_mib", "anchor.linear_attention_state_mb", "anchor.read_over_compute",
    "papers", "browser.dir", "browser.dtype", "browser.files", "browser.float16_error.max_abs_dp",
    "browser.float16_error.positions", "browser.float16_error.argmax_agree",
    "tv_curve.prefix", "tv_curve.draft", "tv_curve.ns", "tv_curve.seed", "tv_curve.schemes", "tv_curve.seeds",
    "tv_curve.tv", "tv_curve.closed_form_tv",
]

MODEL_KEYS = ("role", "parameters", "width", "layers", "heads", "context", "vocab_size", "ratio_to_target",
              "target_over_this", "heldout_loss", "train_loss", "sha256", "bytes_float32")
ROW_KEYS = ("k", "tokens_per_target_forward", "acceptance_rate", "alpha_low", "alpha_high", "formula", "speedup",
            "measured_speedup", "tokens", "target_forwards", "draft_forwards", "accepted", "positions_tested")
# per draft: c, one α for the formula (pooled over every k) with its interval, the range of the per-k rates, the
# best k by the formula with that α (the one the page names everywhere) and the highest measured row
DRAFT_KEYS = ("c", "alpha", "alpha_low", "alpha_high", "accepted", "positions_tested", "alpha_k_min", "alpha_k_max",
              "best_k", "best_speedup", "measured_best_k", "measured_best_speedup", "rows")
ROUND_KEYS = ("draft", "p", "q", "accept_prob", "u", "accepted", "kind", "token", "yield")
PER_DRAFT = ("q", "alpha", "sum_pq", "tv_resample_p_closed_form", "resample_p_deficit", "columns")
DEFICIT_KEYS = ("token", "p", "q", "output")
COLUMN_PARTS = ("p", "q", "overlap", "residual", "excess")
OFFLINE_SCHEMES = ("correct", "resample_p", "direct")
OFFLINE_KEYS = ("tv", "acceptance_rate", "seed", "n")
SPREAD_KEYS = ("min", "max", "mean", "positions", "values")
PAPER_KEYS = ("id", "work", "setting", "figures")
ANCHOR_NEEDED = {
    "model": ("name", "vocab_size", "params_read_per_token", "bytes_per_param",
              "linear_attention_state_bytes_per_request"),
    "hardware": ("name", "peak_bf16_dense_flops", "hbm_bandwidth_bytes_per_s"),
    "assumptions": ("flops_per_param_per_position", "positions_verified"),
}


# ---------------------------------------------------------------------------------------------
# the digest: a hand edit of a generated file is detected, not built into the page
# ---------------------------------------------------------------------------------------------


def content_digest(data):
    """sha256 of the canonical JSON of the data without its digest (sorted keys, no spaces, UTF-8)."""
    body = {key: value for key, value in data.items() if key != DIGEST}
    text = json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def seal(data):
    """The data with its digest set: what the data stage writes."""
    return dict(data, **{DIGEST: content_digest(data)})


def verify_digest(data, path):
    """Refuse data whose content no longer matches the digest it was written with."""
    recorded = data.get(DIGEST)
    if not isinstance(recorded, str):
        raise InputError(path, DIGEST, f"is missing: this file was not written by the generator; {REGENERATE}")
    if recorded != content_digest(data):
        raise InputError(path, DIGEST, f"does not match the content: the file was edited by hand after it was "
                                       f"generated; {REGENERATE}")


# ---------------------------------------------------------------------------------------------
# c13.json
# ---------------------------------------------------------------------------------------------


def lookup(data, dotted):
    """(value, True) at a dotted path, or (None, False) when a part is missing."""
    node = data
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None, False
        node = node[part]
    return node, True


def require(mapping, keys, path, where):
    if not isinstance(mapping, dict):
        raise InputError(path, where, "missing or not an object")
    for key in keys:
        if key not in mapping:
            raise InputError(path, f"{where}.{key}", "missing")


def check_schema(data, path):
    if data.get("schema_version") != SCHEMA_VERSION:
        raise InputError(path, "schema_version", f"is {data.get('schema_version')!r}; this generator and its pages "
                                                 f"read version {SCHEMA_VERSION}; {REGENERATE}")


def check_models(data, path):
    """One target and two drafts, and the constants name the same ones. Returns (target, drafts)."""
    roles = {name: m.get("role") if isinstance(m, dict) else None for name, m in data["models"].items()}
    targets = [n for n, r in roles.items() if r == "target"]
    drafts = [n for n, r in roles.items() if r == "draft"]
    if len(targets) != 1 or len(drafts) != 2:
        raise InputError(path, "models", f"needs one target and two drafts, found roles {roles}")
    for name in targets + drafts:
        require(data["models"][name], MODEL_KEYS, path, f"models.{name}")
    constants = data["constants"]
    if constants["target"] != targets[0]:
        raise InputError(path, "constants.target", f"is {constants['target']!r}; the target model is {targets[0]!r}")
    if not isinstance(constants["drafts"], list) or sorted(constants["drafts"]) != sorted(drafts):
        raise InputError(path, "constants.drafts", f"is {constants['drafts']!r}; the draft models are {drafts}")
    for key in ("recipe.steps", "corpus.sha256"):
        if not lookup(data["card"], key)[1]:
            raise InputError(path, f"card.{key}", "missing")
    return targets[0], constants["drafts"]


def check_distributions(data, path, drafts):
    vocab = data["tokenizer"]["vocab_size"]
    if len(data["tokenizer"]["labels"]) != vocab:
        raise InputError(path, "tokenizer.labels", f"has {len(data['tokenizer']['labels'])} labels for {vocab} tokens")
    if len(data["distributions"]) < 2:
        raise InputError(path, "distributions", "needs two prefixes")
    for prefix, entry in data["distributions"].items():
        where = f"distributions[{prefix}]"
        require(entry, ("p",) + PER_DRAFT + ("alpha",), path, where)
        if len(entry["p"]) != vocab:
            raise InputError(path, f"{where}.p", f"has {len(entry['p'])} entries, not {vocab}")
        for draft in drafts:
            for key in PER_DRAFT:
                if not isinstance(entry[key], dict) or draft not in entry[key]:
                    raise InputError(path, f"{where}.{key}.{draft}", "missing")
            if len(entry["q"][draft]) != vocab:
                raise InputError(path, f"{where}.q.{draft}", f"has {len(entry['q'][draft])} entries, not {vocab}")
            require(entry["resample_p_deficit"][draft], DEFICIT_KEYS, path, f"{where}.resample_p_deficit.{draft}")
            check_columns(entry["columns"][draft], data["constants"]["top_n"], path, f"{where}.columns.{draft}")
            for scheme in OFFLINE_SCHEMES:
                result = data["offline"]["results"].get(prefix, {}).get(draft, {}).get(scheme)
                require(result, OFFLINE_KEYS, path, f"offline.results[{prefix}].{draft}.{scheme}")


def check_columns(columns, top_n, path, where):
    """E2's stacked picture: top_n shown tokens with every part, and the rest summed."""
    require(columns, ("tokens", "rest") + COLUMN_PARTS, path, where)
    require(columns["rest"], ("count",) + COLUMN_PARTS, path, f"{where}.rest")
    for key in ("tokens",) + COLUMN_PARTS:
        if not isinstance(columns[key], list) or len(columns[key]) != top_n:
            raise InputError(path, f"{where}.{key}", f"must list the {top_n} shown tokens (constants.top_n)")


def check_runs(data, path, drafts):
    if data["replay"]["prompt"] not in data["distributions"]:
        raise InputError(path, "replay.prompt", "is not one of the prefixes in distributions")
    for i, rd in enumerate(data["replay"]["rounds"]):
        require(rd, ROUND_KEYS, path, f"replay.rounds[{i}]")
    if data["greedy"]["ks"] != data["constants"]["greedy_ks"]:
        raise InputError(path, "greedy.ks", f"is {data['greedy']['ks']}; constants.greedy_ks is "
                                            f"{data['constants']['greedy_ks']}")
    for draft in drafts:
        entry = data["accounting"]["drafts"].get(draft)
        require(entry, DRAFT_KEYS, path, f"accounting.drafts.{draft}")
        for j, row in enumerate(entry["rows"]):
            require(row, ROW_KEYS, path, f"accounting.drafts.{draft}.rows[{j}]")
        if [row["k"] for row in entry["rows"]] != data["constants"]["ks"]:
            raise InputError(path, f"accounting.drafts.{draft}.rows", f"has k = {[row['k'] for row in entry['rows']]}; "
                                                                      f"constants.ks is {data['constants']['ks']}")
        require(data["alpha_spread"]["drafts"].get(draft), SPREAD_KEYS, path, f"alpha_spread.drafts.{draft}")
    check_spread(data["alpha_spread"], path, drafts)


def check_spread(spread, path, drafts):
    """α per position: one token per position, positions_per_prompt of them after each prompt, for every draft."""
    expected = len(spread["prompts"]) * spread["positions_per_prompt"]
    if len(spread["tokens"]) != expected:
        raise InputError(path, "alpha_spread.tokens", f"has {len(spread['tokens'])} tokens; {len(spread['prompts'])} "
                                                      f"prompts × {spread['positions_per_prompt']} = {expected}")
    for draft in drafts:
        if len(spread["drafts"][draft]["values"]) != expected:
            raise InputError(path, f"alpha_spread.drafts.{draft}.values", f"must hold {expected} values, one per "
                                                                           "position of alpha_spread.tokens")


def validate(data, path):
    """Check one c13.json as read: schema version, digest, every key the pages read. Returns the data."""
    if not isinstance(data, dict):
        raise InputError(path, None, "the precomputed data must be a JSON object")
    check_schema(data, path)
    verify_digest(data, path)
    for key in REQUIRED:
        if not lookup(data, key)[1]:
            raise InputError(path, key, "missing")
    target, drafts = check_models(data, path)
    check_distributions(data, path, drafts)
    check_runs(data, path, drafts)
    check_paper_entries(data["papers"], path, "papers")
    check_browser(data, path)
    check_tv_curve(data, path, drafts)
    return data


def check_tv_curve(data, path, drafts):
    """TV against n: a prefix and draft of the data, n ascending, the three schemes of the offline checks, and per
    scheme one row of TVs (one per n, each in [0, 1]) for each of its seeds."""
    curve = data["tv_curve"]
    if curve["prefix"] not in data["distributions"]:
        raise InputError(path, "tv_curve.prefix", f"{curve['prefix']!r} is not one of the prefixes in distributions")
    if curve["draft"] not in drafts:
        raise InputError(path, "tv_curve.draft", f"{curve['draft']!r} is not one of the drafts {drafts}")
    ns = curve["ns"]
    if not ns or not all(isinstance(n, int) and n > 0 for n in ns) or ns != sorted(set(ns)):
        raise InputError(path, "tv_curve.ns", f"must be positive whole numbers, ascending; got {ns!r}")
    if sorted(curve["schemes"]) != sorted(OFFLINE_SCHEMES):
        raise InputError(path, "tv_curve.schemes", f"must be {list(OFFLINE_SCHEMES)} in some order; got {curve['schemes']!r}")
    for scheme in curve["schemes"]:
        seeds, rows = curve["seeds"].get(scheme), curve["tv"].get(scheme)
        if not isinstance(seeds, list) or not seeds or not all(isinstance(s, int) for s in seeds):
            raise InputError(path, f"tv_curve.seeds.{scheme}", "must list the seeds (whole numbers)")
        if not isinstance(rows, list) or len(rows) != len(seeds):
            raise InputError(path, f"tv_curve.tv.{scheme}", f"needs one row per seed ({len(seeds)})")
        for row in rows:
            if not isinstance(row, list) or len(row) != len(ns) or not all(
                    isinstance(v, float) and 0 <= v <= 1 for v in row):
                raise InputError(path, f"tv_curve.tv.{scheme}", f"each row needs one TV in [0, 1] per n ({len(ns)})")


def check_browser(data, path):
    """browser.files: E6's files beside c13.json (each model's float16 weights, the tokenizer), each with its sha256
    (64 hex digits) and its size in bytes."""
    files = data["browser"]["files"]
    models = [data["constants"]["target"], *data["constants"]["drafts"]]
    for name in [f"{m}.safetensors" for m in models] + ["tokenizer.json"]:
        entry = files.get(name) if isinstance(files, dict) else None
        field = f"browser.files.{name}"
        if not isinstance(entry, dict):
            raise InputError(path, field, "missing")
        sha = entry.get("sha256")
        if not isinstance(sha, str) or len(sha) != 64 or any(ch not in "0123456789abcdef" for ch in sha):
            raise InputError(path, f"{field}.sha256", f"must be 64 hex digits, got {sha!r}")
        size = entry.get("bytes")
        if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
            raise InputError(path, f"{field}.bytes", f"must be a positive integer, got {size!r}")


def load(path):
    """Read and validate one c13.json."""
    return validate(read_json(path, f"the precomputed data ({REGENERATE})"), path)


# ---------------------------------------------------------------------------------------------
# the hand-written inputs
# ---------------------------------------------------------------------------------------------


def check_paper_entries(entries, path, where):
    """The papers' figures: each entry named and placed, each figure with its source."""
    if not isinstance(entries, list) or not entries:
        raise InputError(path, where, "must be a non-empty list")
    for i, entry in enumerate(entries):
        require(entry, PAPER_KEYS, path, f"{where}[{i}]")
        if not isinstance(entry["figures"], list):
            raise InputError(path, f"{where}[{i}].figures", "must be a list")
        for j, figure in enumerate(entry["figures"]):
            if not isinstance(figure, dict) or not figure.get("where"):
                raise InputError(path, f"{where}[{i}].figures[{j}].where", "every figure needs its source")


def load_papers(path):
    """precomputed/papers.json, checked: {"entries": [...]}."""
    data = read_json(path, "the papers' figures")
    check_paper_entries(data.get("entries"), path, "entries")
    # the page is Chinese: each English text the page shows has its Chinese beside it (the English stays
    # as the source words it); the original titles (`work`) are shown as they are
    for i, entry in enumerate(data["entries"]):
        wanted = [(entry, f"entries[{i}]", "setting")] + ([(entry, f"entries[{i}]", "also")] if "also" in entry else [])
        wanted += [(fig, f"entries[{i}].figures[{j}]", key) for j, fig in enumerate(entry["figures"])
                   for key in ("what", "where")]
        for owner, where, key in wanted:
            text = owner.get(f"{key}_zh")
            if not isinstance(text, str) or not text.strip():
                raise InputError(path, f"{where}.{key}_zh", f"needs the Chinese of {key} {owner.get(key)!r}")
    return data


def anchor_value_ok(field, value):
    if field == "name":
        return isinstance(value, str) and bool(value)
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def load_anchor(path):
    """precomputed/anchor-model.json, checked: every figure the roofline needs, positive, with its source."""
    data = read_json(path, "the anchor's figures")
    for section, fields in ANCHOR_NEEDED.items():
        if not isinstance(data.get(section), dict):
            raise InputError(path, section, "section is missing")
        for field in fields:
            value = data[section].get(field)
            if not anchor_value_ok(field, value):
                wanted = "a name" if field == "name" else "a positive number"
                raise InputError(path, f"{section}.{field}", f"must be {wanted}, got {value!r}")
        if section != "assumptions" and not isinstance(data[section].get("sources"), dict):
            raise InputError(path, f"{section}.sources", "every hand-written figure needs its source")
    return data
