"""The c13.json contract, written once: its schema version, the keys the pages read, their checks, the content
digest, and the checks of the two hand-written inputs (precomputed/papers.json, precomputed/anchor-model.json).

The data stage validates and seals what it writes; every reader (`check`, the page build) validates what it
reads with the same functions. Torch-free and standard library only. Every problem is an
InputError(path, field, problem).
"""
import hashlib
import json
import re

from .errors import InputError
from .jsonio import read_json
from .contract_values import REGENERATE, check_values, got, require  # noqa: F401  (REGENERATE re-exported)
from .contract_counts import check_counts
# the hand-written inputs (papers.json, anchor-model.json): their contract lives apart, re-exported here
from .contract_inputs import check_paper_entries, load_anchor, load_papers  # noqa: F401
# measured.json (make measure): timings of this machine, kept out of c13.json; its contract lives apart
from .contract_measured import (MEASURED_KIND, MEASURED_VERSION, REMEASURE, changed_models,  # noqa: F401
                                load_measured, validate_measured)

SCHEMA_VERSION = 5
DIGEST = "digest"

# Every key the pages read, by dotted path: checked up front so a missing one is reported by name.
REQUIRED = [
    "schema_version", "provenance.generator", "provenance.generator_version", "provenance.command",
    "provenance.inputs", "provenance.torch_version",
    "models", "card", "tokenizer.vocab_size", "tokenizer.labels", "tokenizer.partial_tokens", "tokenizer.sha256",
    "prompts", "greedy.identical", "greedy.total", "greedy.n_new", "greedy.ks", "greedy.runs",
    "constants.target", "constants.drafts", "constants.ks", "constants.greedy_ks", "constants.top_n",
    "constants.small_vocab", "constants.schemes", "constants.lesson_k", "constants.e2_live_sizes",
    "constants.e6_new_tokens",
    "distributions", "offline.n", "offline.results",
    "replay.draft", "replay.k", "replay.n_new", "replay.prompt", "replay.prompt_tokens", "replay.rounds",
    "replay.tokens", "replay.target_forwards", "replay.draft_forwards",
    "accounting.prompts", "accounting.seeds", "accounting.n_new", "accounting.drafts",
    "accounting.alpha_definition", "accounting.interval",
    "alpha_positions.positions_per_prompt", "alpha_positions.drafts", "alpha_positions.prompts",
    "alpha_positions.tokens",
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
ALPHA_POSITIONS_KEYS = ("min", "max", "mean", "positions", "values")

# E6's files live in a plain folder beside c13.json: one name, no path (the page build copies what it lists)
FOLDER_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


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
                                       f"generated; {REGENERATE}, which discards the edit (change the inputs "
                                       f"instead: precomputed/lesson.toml, the models), or undo the edit")


# ---------------------------------------------------------------------------------------------
# c13.json
# ---------------------------------------------------------------------------------------------


def absent(data, dotted):
    """Why the value at a dotted path cannot be read, as (field, problem); None when it is there."""
    node, seen = data, []
    for part in dotted.split("."):
        if not isinstance(node, dict):
            return ".".join(seen), f"must be an object, got {got(node)}"
        seen.append(part)
        if part not in node:
            return ".".join(seen), "missing"
        node = node[part]
    return None


def check_schema(data, path):
    if data.get("schema_version") != SCHEMA_VERSION:
        raise InputError(path, "schema_version", f"is {data.get('schema_version')!r}; this generator and its pages "
                                                 f"read version {SCHEMA_VERSION}; {REGENERATE}")


def check_keys(data, path, keys):
    """Every dotted key is there, each part above it an object."""
    for key in keys:
        problem = absent(data, key)
        if problem:
            raise InputError(path, problem[0], f"{problem[1]}; {REGENERATE}")



def check_provenance(data, path):
    """provenance.inputs: each input's name with its recorded sha256 (or version), as the freshness check reads it."""
    check_keys(data, path, ("provenance.inputs",))
    inputs = data["provenance"]["inputs"]
    if not isinstance(inputs, dict) or not inputs:
        raise InputError(path, "provenance.inputs", f"must be an object of each input's name and its sha256, got "
                                                    f"{got(inputs)}; {REGENERATE}")
    for name, value in inputs.items():
        if not isinstance(value, str) or not value:
            raise InputError(path, f"provenance.inputs.{name}", f"must be the input's sha256 as a string, got "
                                                                 f"{got(value)}; {REGENERATE}")


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
    check_keys(data, path, ("card.recipe.steps", "card.corpus.sha256"))
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
        require(data["alpha_positions"]["drafts"].get(draft), ALPHA_POSITIONS_KEYS, path,
                f"alpha_positions.drafts.{draft}")
    check_alpha_positions(data["alpha_positions"], path, drafts)


def check_alpha_positions(positions, path, drafts):
    """α per position: one token per position, positions_per_prompt of them after each prompt, for every draft."""
    expected = len(positions["prompts"]) * positions["positions_per_prompt"]
    if len(positions["tokens"]) != expected:
        raise InputError(path, "alpha_positions.tokens", f"has {len(positions['tokens'])} tokens; "
                                                         f"{len(positions['prompts'])} prompts × "
                                                         f"{positions['positions_per_prompt']} = {expected}")
    for draft in drafts:
        if len(positions["drafts"][draft]["values"]) != expected:
            raise InputError(path, f"alpha_positions.drafts.{draft}.values", f"must hold {expected} values, one "
                                                                              "per position of alpha_positions.tokens")



def validate(data, path):
    """Check one c13.json as read: schema version, digest, every key the pages read and the kind of every value,
    and the counts against each other. Returns the data."""
    if not isinstance(data, dict):
        raise InputError(path, None, "the precomputed data must be a JSON object")
    check_schema(data, path)
    verify_digest(data, path)
    check_keys(data, path, REQUIRED)
    check_provenance(data, path)
    check_values(data, path)
    target, drafts = check_models(data, path)
    check_distributions(data, path, drafts)
    check_runs(data, path, drafts)
    check_counts(data, path, drafts)
    check_paper_entries(data["papers"], path, "papers")
    check_browser(data, path, [target, *drafts])
    check_tv_curve(data, path, drafts)
    return data


def check_recorded(data, path):
    """What the freshness check (generator/data/provenance.py) reads of a sealed c13.json, checked before it reads
    it: the recorded inputs, and E6's folder and files."""
    check_provenance(data, path)
    check_browser(data, path)


def check_tv_curve(data, path, drafts):
    """TV against n: a prefix and draft of the data, n ascending, the three schemes of the offline checks, and per
    scheme one row of TVs (one per n; each a probability, checked with VALUES) for each of its seeds."""
    curve = data["tv_curve"]
    if curve["prefix"] not in data["distributions"]:
        raise InputError(path, "tv_curve.prefix", f"{curve['prefix']!r} is not one of the prefixes in distributions")
    if curve["draft"] not in drafts:
        raise InputError(path, "tv_curve.draft", f"{curve['draft']!r} is not one of the drafts {drafts}")
    ns = curve["ns"]
    if not ns or ns != sorted(set(ns)):
        raise InputError(path, "tv_curve.ns", f"must be positive whole numbers, ascending; got {ns!r}")
    if sorted(curve["schemes"]) != sorted(OFFLINE_SCHEMES):
        raise InputError(path, "tv_curve.schemes", f"must be {list(OFFLINE_SCHEMES)} in some order; got {curve['schemes']!r}")
    for scheme in curve["schemes"]:
        seeds, rows = curve["seeds"].get(scheme), curve["tv"].get(scheme)
        if not isinstance(seeds, list) or not seeds:
            raise InputError(path, f"tv_curve.seeds.{scheme}", "must list the seeds (whole numbers)")
        if not isinstance(rows, list) or len(rows) != len(seeds):
            raise InputError(path, f"tv_curve.tv.{scheme}", f"needs one row per seed ({len(seeds)})")
        for row in rows:
            if len(row) != len(ns):
                raise InputError(path, f"tv_curve.tv.{scheme}", f"each row needs one TV in [0, 1] per n ({len(ns)})")


def check_browser(data, path, models=None):
    """browser: E6's files in a plain folder beside c13.json (`dir`, one name: never absolute, never `..`), each
    with its sha256 (64 hex digits) and its size in bytes. With the models named, the files must be exactly each
    model's float16 weights and the tokenizer: the page build copies every file listed into the site."""
    check_keys(data, path, ("browser.dir", "browser.files"))
    folder, files = data["browser"]["dir"], data["browser"]["files"]
    if not isinstance(folder, str) or not FOLDER_NAME.fullmatch(folder):
        raise InputError(path, "browser.dir", f"must be the name of a folder beside c13.json (letters, digits, "
                                              f"_ . -; no path), got {got(folder)}; {REGENERATE}")
    if not isinstance(files, dict):
        raise InputError(path, "browser.files", f"must be an object of file names, got {got(files)}; {REGENERATE}")
    if models is not None:
        wanted = [f"{m}.safetensors" for m in models] + ["tokenizer.json"]
        for name in wanted:
            if name not in files:
                raise InputError(path, f"browser.files.{name}", "missing")
        for name in files:
            if name not in wanted:
                raise InputError(path, f"browser.files.{name}", f"is not one of E6's files ({', '.join(wanted)}): "
                                                                 f"every file listed is copied into the site; "
                                                                 f"{REGENERATE}")
    for name, entry in files.items():
        field = f"browser.files.{name}"
        if not isinstance(entry, dict):
            raise InputError(path, field, f"must be an object with the file's sha256 and bytes, got {got(entry)}")
        sha = entry.get("sha256")
        if not isinstance(sha, str) or len(sha) != 64 or any(ch not in "0123456789abcdef" for ch in sha):
            raise InputError(path, f"{field}.sha256", f"must be 64 hex digits, got {sha!r}")
        size = entry.get("bytes")
        if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
            raise InputError(path, f"{field}.bytes", f"must be a positive integer, got {size!r}")


def load(path):
    """Read and validate one c13.json."""
    return validate(read_json(path, "the precomputed data", REGENERATE), path)
