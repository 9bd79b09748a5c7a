"""The contract of the two hand-written inputs, part 4 of 4: precomputed/papers.json and precomputed/anchor-model.json
(every figure with its source, positive and finite). Re-exported by generator/contract.py.
"""
from .errors import InputError
from .jsonio import read_json
from .contract_values import _number, got, require

PAPER_KEYS = ("id", "work", "setting", "figures")
PAPER_NUMBERS = ("low", "high", "alpha", "speedup")
ANCHOR_NEEDED = {
    "model": ("name", "vocab_size", "params_read_per_token", "bytes_per_param",
              "linear_attention_state_bytes_per_request"),
    "hardware": ("name", "peak_bf16_dense_flops", "hbm_bandwidth_bytes_per_s"),
    "assumptions": ("flops_per_param_per_position",),
}


def check_paper_entries(entries, path, where):
    """The papers' figures: each entry named and placed, each figure with its source, its numbers (a range low–high,
    an α, a speedup: whichever it reports) positive and finite, the range in order."""
    if not isinstance(entries, list) or not entries:
        raise InputError(path, where, "must be a non-empty list")
    for i, entry in enumerate(entries):
        require(entry, PAPER_KEYS, path, f"{where}[{i}]")
        if not isinstance(entry["figures"], list):
            raise InputError(path, f"{where}[{i}].figures", "must be a list")
        for j, figure in enumerate(entry["figures"]):
            at = f"{where}[{i}].figures[{j}]"
            if not isinstance(figure, dict) or not figure.get("where"):
                raise InputError(path, f"{at}.where", "every figure needs its source")
            for key in PAPER_NUMBERS:
                if key in figure and not (_number(figure[key]) and figure[key] > 0):
                    raise InputError(path, f"{at}.{key}", f"must be a positive finite number, got {got(figure[key])}; "
                                                          "write the figure as the paper reports it")
            if ("low" in figure) != ("high" in figure) or figure.get("low", 0) > figure.get("high", 0):
                raise InputError(path, f"{at}.low", "a range needs both low and high, low ≤ high; write the figure "
                                                    "as the paper reports it")


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
    return _number(value) and value > 0


def load_anchor(path):
    """precomputed/anchor-model.json, checked: every figure the roofline needs, positive, with its source."""
    data = read_json(path, "the anchor's figures")
    for section, fields in ANCHOR_NEEDED.items():
        if not isinstance(data.get(section), dict):
            raise InputError(path, section, "section is missing")
        for field in fields:
            value = data[section].get(field)
            if not anchor_value_ok(field, value):
                wanted = "a name" if field == "name" else "a positive finite number"
                raise InputError(path, f"{section}.{field}", f"must be {wanted}, got {value!r}")
        if section != "assumptions" and not isinstance(data[section].get("sources"), dict):
            raise InputError(path, f"{section}.sources", "every hand-written figure needs its source")
    return data
