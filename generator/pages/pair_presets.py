"""The editable pair's presets (the experiment after E2): six tokens A–F, a target p and a draft q each, and what
widgets/sampler.py says of them — α, Σ p·q, the closed-form TV of resample-from-p and the stacked picture's split.

These pairs are made up to show a case (q = p, nearly disjoint, …), not figures of our models, so they live with
the page and not in c13.json: their names, notes and thousandths in docs/words/pair_presets.toml. The build draws
the default preset's picture with the widgets' own renderer (widgets/figures/stacked.mjs), prints every preset's
numbers, and embeds the presets in the page for the live widget (widgets/pair/), which starts from the default. The numbers come from widgets/sampler.py itself, through
generator/shared_sampler.py, the one loader both stages use: the sampler is the browser's own file, run here in
CPython exactly as Pyodide runs it in the page.
"""
import json
import tomllib
from pathlib import Path

from markupsafe import Markup

from ..errors import InputError
from ..shared_sampler import sampler

LABELS = ["A", "B", "C", "D", "E", "F"]
UNIT = 1000  # a pair is stored in thousandths (0.1 % steps): p and q each sum to UNIT
WORDS = Path(__file__).resolve().parents[2] / "docs" / "words" / "pair_presets.toml"  # names, notes, pairs


def read_presets(path=WORDS):
    """(default id, [(id, the button's name, a sentence on what it shows, p, q)]) from the page's words file, each
    pair checked: six whole thousandths each summing to UNIT; a fault is refused naming the file and the field."""
    try:
        table = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise InputError(path, None, f"cannot read the pair's presets ({e})") from None
    presets = []
    for i, entry in enumerate(table.get("preset") or []):
        for key in ("id", "name", "note"):
            if not isinstance(entry.get(key), str) or not entry[key].strip():
                raise InputError(path, f"preset[{i}].{key}", "expected a non-empty string")
        for key in ("p", "q"):
            units = entry.get(key)
            if (not isinstance(units, list) or len(units) != len(LABELS)
                    or not all(isinstance(u, int) and not isinstance(u, bool) and u >= 0 for u in units)
                    or sum(units) != UNIT):
                raise InputError(path, f"preset[{i}].{key}", f"expected {len(LABELS)} whole thousandths (≥ 0) "
                                                             f"summing to {UNIT}, got {units!r}")
        presets.append((entry["id"], entry["name"], entry["note"], entry["p"], entry["q"]))
    ids = [p[0] for p in presets]
    if not presets or len(set(ids)) != len(ids):
        raise InputError(path, "preset", "expected presets with distinct ids")
    if table.get("default") not in ids:
        raise InputError(path, "default", f"expected one of the presets' ids {ids}, got {table.get('default')!r}")
    return table["default"], presets


def columns(sampler, p, q):
    """The stacked picture's split of a six-token pair, every token drawn (no folded rest)."""
    return {"tokens": list(range(len(p))), "p": p, "q": q, "overlap": sampler.overlap(p, q),
            "residual": sampler.residual(p, q), "excess": sampler.residual(q, p), "rest": None}


def presets(path=WORDS):
    """Every preset, read afresh from the words file (a preview shows an edit at once), with `default` (the one the
    live widget starts from) and its sampler.py figures: α, Σ p·q and TV of resample-from-p (the pair as the widget
    sends it to the sampler: thousandths divided by UNIT)."""
    default, read = read_presets(path)
    out = []
    for key, name, note, p_units, q_units in read:
        p = [v / UNIT for v in p_units]
        q = [v / UNIT for v in q_units]
        pair = sampler.Pair(p, q)
        out.append({"id": key, "default": key == default, "name": name, "note": note, "title": picture_title(name),
                    "p_units": p_units,
                    "q_units": q_units,
                    "alpha": pair.alpha, "sum_pq": pair.sum_pq, "tv": sampler.resample_p_tv(pair.p, pair.q),
                    "columns": columns(sampler, p, q)})
    return out


def stacked_id(index):
    return f"pair-stack-{index}"


def picture_title(name):
    return f"可编辑的一对分布（{name}）：目标 p 与草稿 q 叠放，六个 token A–F"


RUN_SIZE = 10_000  # draws of the pair's run: its button and the page's prose both read it


def widget_json(items):
    """What the live widget reads from its section: the labels, the unit, the default, the run's size and the presets
    with their sampler figures (shown while Pyodide is not there). Safe inside <script type="application/json">."""
    keys = ("id", "name", "note", "title", "p_units", "q_units", "alpha", "sum_pq", "tv")
    payload = {"labels": LABELS, "unit": UNIT, "default": next(item["id"] for item in items if item["default"]),
               "run_size": RUN_SIZE,
               "presets": [{k: item[k] for k in keys} for item in items]}
    text = json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
