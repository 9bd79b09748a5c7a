"""The build machine's measured costs on the page: precomputed/measured.json, an optional input next to c13.json.

`make measure` writes it (generator/data/measure.py); the page build never needs it. When it is absent the page
says how to measure. When it is present it is read through its contract (generator/contract_measured.py): a
corrupt file fails the build, named with its field, as any bad input does (delete it, or measure again). When the
models it timed are not the models of c13.json (their sha256, or the tokenizer's, differ) the timings are shown
as stale, on their own: nothing combines them with this page's α (`usable` is false; `make site` and `make check`
warn too); so are timings of other k than c13.json's (lesson.toml's k.max changed since). A file that timed other than
two drafts is refused, naming its `drafts`: the page sets the small and the large draft side by side. Nothing here
reads models/: the comparison is with the hashes c13.json recorded.

ctx["measured"] (None when absent): the machine, ms per forward, c and v(k) with their spread, the measured
speedups, and per draft and k the prediction E[N] / (k·c + v(k)) with the measured c and v(k) and the draft's
pooled α from c13.json, beside the lesson's (c = parameter ratio, v = 1), by generator/speedup.py, the twin
of widgets/figures/speedup.mjs that the figures draw with.
"""
from pathlib import Path

from ..contract import REMEASURE, load_measured
from ..errors import InputError
from .data_file import DataError
from .formats import times
from ..speedup import measured_speedup

MEASURED_NAME = "measured.json"
MEASURE_COMMAND = "make measure"
KS = "ks"  # the stale reason when measured.json timed other k than c13.json's (lesson.toml's k.max changed since)


def measured_file(data_path):
    """Where the measured timings of the c13.json at data_path would be: next to it."""
    return Path(data_path).parent / MEASURED_NAME


def read_measured(path):
    """The validated measured.json at path, or None when there is none; a corrupt one stops the build, named."""
    path = Path(path)
    if not path.exists():
        return None
    try:
        return load_measured(path)
    except InputError as e:
        raise DataError(e.path, e.field, e.problem) from None


def stale_inputs(measured, data):
    """What measured.json timed that is not what c13.json describes: model and tokenizer names, and KS when it timed
    other k (`make measure` times the lesson's k = 1 … k.max); empty if fresh."""
    out = []
    models = data["models"]
    for name in [measured["target"], *measured["drafts"]]:
        entry = models.get(name)
        if entry is None or entry["sha256"] != measured["models"][name]["sha256"]:
            out.append(f"models/{name}")
    if [measured["target"], *measured["drafts"]] != [data["constants"]["target"], *data["constants"]["drafts"]]:
        out.append("constants.drafts")
    if measured["tokenizer_sha256"] != data["tokenizer"]["sha256"]:
        out.append("models/tokenizer.json")
    if measured["ks"] != data["constants"]["ks"]:
        out.append(KS)
    return out


def span(ks):
    """k = 1…8 as the messages write a list of k."""
    return f"{ks[0]}…{ks[-1]}" if ks == list(range(ks[0], ks[-1] + 1)) and len(ks) > 1 else ", ".join(map(str, ks))


def stale_words(measured, data, stale, data_name="c13.json"):
    """Why the page shows the timings on their own: `kind` 'models' (other models: `models`, the changed inputs) or
    'ks' (only other k: `timed` and `ours`, the two k ranges, and `missing_ks`, some of the page's k not timed), which
    the page's warning picks its words by ([% pick stale.kind %]); `en` says it on the command line, `short` in the
    timings' table caption and E6's note."""
    models = [name for name in stale if name != KS]
    timed, ours = span(measured["ks"]), span(data["constants"]["ks"])
    missing_ks = bool(set(data["constants"]["ks"]) - set(measured["ks"]))
    if models:
        return {"kind": "models", "models": "、".join(models), "timed": timed, "ours": ours, "missing_ks": missing_ks,
                "en": f"timed other models than {data_name} describes ({', '.join(models)} changed since)",
                "short": "测的是旧模型，与本页的模型不同"}
    return {"kind": "ks", "models": None, "timed": timed, "ours": ours, "missing_ks": missing_ks,
            "en": f"timed k = {timed}, and {data_name}'s k are {ours} (precomputed/lesson.toml's k.max changed since)",
            "short": f"计时的 k 是 {timed}，本页的 k 是 {ours}"}


def _spread(stat):
    return {key: stat[key] for key in ("median", "q1", "q3", "min", "max", "n")}


def _draft(measured, data, draft, v):
    alpha = data["accounting"]["drafts"][draft]["alpha"] if draft in data["accounting"]["drafts"] else None
    # the timed models' own ratio (measured.json records their parameters): defined for stale timings too
    models = measured["models"]
    c_params = models[draft]["parameters"] / models[measured["target"]]["parameters"]
    c = measured["forward"]["c"][draft]
    rows = []
    for row in measured["speedup"]["drafts"][draft]:
        k = row["k"]
        entry = {"k": k, "v": v[k]["median"], "measured": _spread(row["speedup"]),
                 "tokens_per_target_forward": row["tokens"] / row["target_forwards"]}
        if alpha is not None:
            entry.update(lesson=measured_speedup(alpha, c_params, k, 1), v1=measured_speedup(alpha, c["median"], k, 1),
                         predicted=measured_speedup(alpha, c["median"], k, v[k]["median"]))
        rows.append(entry)
    best = max(rows, key=lambda r: (r["measured"]["median"], -r["k"]))
    best_predicted = max(rows, key=lambda r: (r["predicted"], -r["k"])) if alpha is not None else None
    return {"alpha": alpha, "c": _spread(c), "c_params": c_params, "rows": rows, "best": best,
            "best_predicted": best_predicted,
            "ms": _spread(measured["models"][draft]["ms_per_forward"])}


def shown_below_one(speedup):
    """Below 1× as the page prints it (formats.times, two decimals): 0.996 prints 1.00× and is not counted."""
    return float(times(speedup)[:-1]) < 1


def measured_context(data, data_path):
    """ctx["measured"] for the c13.json at data_path: None when no measured.json lies next to it. What its contract
    lets through and still cannot be drawn is blamed on measured.json, never on c13.json."""
    path = measured_file(data_path)
    measured = read_measured(path)
    if measured is None:
        return None
    try:
        return _context(measured, data, path)
    except (KeyError, ValueError, IndexError, TypeError, ZeroDivisionError) as e:
        raise DataError(path, None, f"cannot derive the measured costs ({type(e).__name__}: {e}); delete it, or "
                                    f"{REMEASURE}") from None


def _context(measured, data, path):
    machine, method = measured["machine"], measured["method"]
    v = {row["k"]: _spread(row) for row in measured["forward"]["v"]}
    target = measured["target"]
    stale = stale_inputs(measured, data)
    if len(measured["drafts"]) != 2:
        raise DataError(path, "drafts", f"times {len(measured['drafts'])} draft(s) ({', '.join(measured['drafts'])}); "
                                        f"the page sets a small and a large draft side by side: {REMEASURE}")
    drafts = {d: _draft(measured, data, d, v) for d in measured["drafts"]}
    rows = [r for d in drafts.values() for r in d["rows"]]
    best = max(((d, r) for d, e in drafts.items() for r in e["rows"]), key=lambda dr: dr[1]["measured"]["median"])
    summary = {"max_measured": best[1]["measured"]["median"], "best_draft": best[0], "best_k": best[1]["k"],
               "rows": len(rows), "below_one": sum(1 for r in rows if shown_below_one(r["measured"]["median"])),
               "below_prediction": sum(1 for r in rows if "predicted" in r and r["measured"]["median"] < r["predicted"])}
    summary["all_below_one"] = summary["below_one"] == summary["rows"]
    return {
        "file": path.name, "summary": summary, "where": where(machine), "stale": stale,
        "stale_words": stale_words(measured, data, stale) if stale else None,
        # timings of other models are shown as they are, never combined with this page's α into predictions
        "usable": not stale and all(d["alpha"] is not None for d in drafts.values()),
        "machine": {"cpu": machine["cpu"], "cores": machine["cores"], "threads": machine["threads"],
                    "torch": machine["torch_version"], "python": machine["python_version"], "os": machine["os"],
                    "date": machine["date_utc"][:10], "date_utc": machine["date_utc"]},
        "method": method, "quick": method["quick"], "ks": measured["ks"], "target": target,
        "drafts": list(measured["drafts"]), "by_draft": drafts, "v": v,
        # the timed drafts by their own size (the page's small/large may be other models when the timings are stale)
        **dict(zip(("small", "large"), sorted(measured["drafts"], key=lambda d: measured["models"][d]["parameters"]))),
        "target_ms": _spread(measured["models"][target]["ms_per_forward"]),
        "target_bytes": data["models"].get(target, {}).get("bytes_float32"),
        "prompts": measured["speedup"]["prompts"], "seeds": measured["speedup"]["seeds"],
        "n_new": measured["speedup"]["n_new"],
        "overhead": measured.get("torch_overhead"), "browser": _browser(measured),
    }


def measured_row(by_draft, k):
    """A timed draft's row at k (an entry of the context's by_draft), or None when k was not timed."""
    return next((r for r in by_draft["rows"] if r["k"] == k), None)


def where(machine):
    """Where the build machine's speed figures come from, for their titles (formats.speed): the machine and the
    engine for the formula with measured costs, and the date too for the wall clock."""
    engine = f"构建机 {machine['cpu']}，PyTorch {machine['torch_version']}"
    return {"measured": engine, "wall_clock": f"{engine}，{machine['date_utc'][:10]}"}


def _browser(measured):
    """E6's forwards timed in Node on this machine (None when measured.json predates them): per kernel the target's
    ms per forward, c per draft and v(k) per k, medians with spread."""
    browser = measured.get("browser_forwards")
    if browser is None:
        return None
    engines = {kernel: {"simd": e.get("simd"), "target_ms": _spread(e["ms_per_forward"][measured["target"]]),
                        "c": {d: _spread(e["c"][d]) for d in measured["drafts"]},
                        "v": {row["k"]: _spread(row) for row in e["v"]}}
               for kernel, e in browser["engines"].items()}
    roof = browser.get("roof")
    return {"node": browser["node"], "engines": engines,
            "roof": {"kernel": roof["kernel"], "bandwidth_gbs": _spread(roof["bandwidth_gbs"]),
                     "peak_gflops": _spread(roof["peak_gflops"])} if roof else None}


def figure_args(m, names):
    """The arguments of widgets/figures/measured_costs.mjs: the inputs only (and where the timings come from, for
    the figures' titles); the figures compute the lines."""
    drafts = [{"name": names.get(d, d), "alpha": e["alpha"], "cParams": e["c_params"], "c": e["c"]["median"],
               "v": [m["v"][k]["median"] for k in m["ks"]],
               "points": [{"k": r["k"], **{key: r["measured"][key] for key in ("median", "min", "max")}}
                          for r in e["rows"]]}
              for d, e in m["by_draft"].items()]
    return {"ks": m["ks"], "drafts": drafts, "where": {"measured": m["where"]["measured"], "wallClock": m["where"]["wall_clock"]}}


def table_caption(m):
    """Who measured the table: the machine, the date, the command; and a warning when the models changed since."""
    machine = m["machine"]
    text = (f"构建机实测（{machine['date']}，{machine['cpu']}，{machine['cores']} 核，用 {machine['threads']} 个线程，"
            f"PyTorch {machine['torch']}，{MEASURE_COMMAND}）。v(k) 和 c 是中位数；“实测墙钟”是墙钟加速的中位数，"
            f"最小–最大来自 {m['method']['repeats']} 次重复；前两列加速是公式算的，不是计时。")
    if m["stale"]:
        text += f"注意：这些计时{m['stale_words']['short']}，请重新运行 make measure。"
    return text
