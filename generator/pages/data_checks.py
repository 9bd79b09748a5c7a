"""Read c13.json for the pages: its schema version and every key the templates read, checked up front.

A problem stops the build with the file and the key named, never a template traceback.
"""
import os
from pathlib import Path

from mkdocs.exceptions import PluginError

from ..errors import InputError
from ..jsonio import read_json

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA = ROOT / "precomputed" / "c13.json"
# The schema these templates read; generator/provenance.py SCHEMA_VERSION writes it (a test keeps the two equal).
SCHEMA_VERSION = 1

# Every key the pages read: checked up front so a missing one is reported by name, not by a template trace.
REQUIRED = [
    "schema_version", "provenance.generator", "provenance.generator_version", "provenance.command",
    "provenance.inputs", "provenance.torch_version",
    "models", "card", "tokenizer.vocab_size", "tokenizer.labels", "tokenizer.partial_tokens", "tokenizer.sha256",
    "prompts", "greedy.identical", "greedy.total", "greedy.n_new", "greedy.ks", "greedy.runs",
    "distributions", "offline.n", "offline.results",
    "replay.draft", "replay.k", "replay.n_new", "replay.prompt", "replay.prompt_tokens", "replay.rounds",
    "replay.tokens", "replay.target_forwards", "replay.draft_forwards",
    "accounting.prompts", "accounting.seeds", "accounting.n_new", "accounting.drafts",
    "alpha_spread.positions_per_prompt", "alpha_spread.drafts",
    "anchor.model", "anchor.hardware", "anchor.vocab_size", "anchor.compute_ms_per_token",
    "anchor.weight_read_ms_per_token", "anchor.positions_verified", "anchor.compute_ms_for_positions",
    "anchor.bytes_read_per_token", "anchor.params_read_per_token", "anchor.flops_per_position",
    "anchor.linear_attention_state_mib", "anchor.linear_attention_state_mb", "anchor.read_over_compute",
    "papers",
]
MODEL_KEYS = ("role", "parameters", "width", "layers", "heads", "context", "vocab_size", "ratio_to_target",
              "target_over_this", "heldout_loss", "train_loss", "sha256", "bytes_float32")
ROW_KEYS = ("k", "tokens_per_target_forward", "acceptance_rate", "formula", "speedup", "measured_speedup",
            "tokens", "target_forwards", "draft_forwards", "positions_tested")
ROUND_KEYS = ("draft", "p", "q", "accept_prob", "u", "accepted", "kind", "token", "yield")


class DataError(PluginError):
    def __init__(self, path, key, problem):
        super().__init__(f"{path}: {key}: {problem}" if key else f"{path}: {problem}")


# ---------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------


def data_path():
    return Path(os.environ.get("C13_DATA") or DEFAULT_DATA).resolve()


def _get(data, dotted):
    node = data
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None, False
        node = node[part]
    return node, True


def load_data(path):
    try:
        data = read_json(path, "the precomputed data (make it with: python -m generator data)")
    except InputError as e:
        raise DataError(path, None, e.problem) from None
    if data.get("schema_version") != SCHEMA_VERSION:
        raise DataError(path, "schema_version",
                        f"is {data.get('schema_version')!r}; the site's templates read version {SCHEMA_VERSION}")
    for key in REQUIRED:
        if not _get(data, key)[1]:
            raise DataError(path, key, "missing")
    roles = {name: m.get("role") for name, m in data["models"].items()}
    targets = [n for n, r in roles.items() if r == "target"]
    drafts = [n for n, r in roles.items() if r == "draft"]
    if len(targets) != 1 or len(drafts) != 2:
        raise DataError(path, "models", f"needs one target and two drafts, found roles {roles}")
    for name in targets + drafts:
        for key in MODEL_KEYS:
            if key not in data["models"][name]:
                raise DataError(path, f"models.{name}.{key}", "missing")
    for key in ("recipe.steps", "corpus.sha256"):
        if not _get(data["card"], key)[1]:
            raise DataError(path, f"card.{key}", "missing")
    vocab = data["tokenizer"]["vocab_size"]
    if len(data["tokenizer"]["labels"]) != vocab:
        raise DataError(path, "tokenizer.labels", f"has {len(data['tokenizer']['labels'])} labels for {vocab} tokens")
    if len(data["distributions"]) < 2:
        raise DataError(path, "distributions", "needs two prefixes")
    for prefix, entry in data["distributions"].items():
        for key in ("p", "q", "alpha", "sum_pq", "tv_resample_p_closed_form"):
            if key not in entry:
                raise DataError(path, f"distributions[{prefix}].{key}", "missing")
        if len(entry["p"]) != vocab:
            raise DataError(path, f"distributions[{prefix}].p", f"has {len(entry['p'])} entries, not {vocab}")
        for draft in drafts:
            for key in ("q", "alpha", "sum_pq", "tv_resample_p_closed_form"):
                if draft not in entry[key]:
                    raise DataError(path, f"distributions[{prefix}].{key}.{draft}", "missing")
            if len(entry["q"][draft]) != vocab:
                raise DataError(path, f"distributions[{prefix}].q.{draft}", f"has {len(entry['q'][draft])} entries")
            for scheme in ("correct", "resample_p", "direct"):
                for key in ("tv", "acceptance_rate", "seed", "n"):
                    if key not in data["offline"]["results"].get(prefix, {}).get(draft, {}).get(scheme, {}):
                        raise DataError(path, f"offline.results[{prefix}].{draft}.{scheme}.{key}", "missing")
    if data["replay"]["prompt"] not in data["distributions"]:
        raise DataError(path, "replay.prompt", "is not one of the prefixes in distributions")
    for i, rd in enumerate(data["replay"]["rounds"]):
        for key in ROUND_KEYS:
            if key not in rd:
                raise DataError(path, f"replay.rounds[{i}].{key}", "missing")
    for draft in drafts:
        entry = data["accounting"]["drafts"].get(draft)
        if entry is None:
            raise DataError(path, f"accounting.drafts.{draft}", "missing")
        for key in ("c", "best_k", "best_speedup", "rows"):
            if key not in entry:
                raise DataError(path, f"accounting.drafts.{draft}.{key}", "missing")
        for j, row in enumerate(entry["rows"]):
            for key in ROW_KEYS:
                if key not in row:
                    raise DataError(path, f"accounting.drafts.{draft}.rows[{j}].{key}", "missing")
        for key in ("min", "max", "mean", "positions", "values"):
            if key not in data["alpha_spread"]["drafts"].get(draft, {}):
                raise DataError(path, f"alpha_spread.drafts.{draft}.{key}", "missing")
    for i, paper in enumerate(data["papers"]):
        for key in ("id", "work", "setting", "figures"):
            if key not in paper:
                raise DataError(path, f"papers[{i}].{key}", "missing")
    return data
