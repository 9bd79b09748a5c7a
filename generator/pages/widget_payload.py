"""The data the widgets need, embedded in the page as <script type="application/json" id="c13-widget-data">."""
import json
import math
import re
from decimal import Decimal

from ..errors import InputError
from .claims import THRESHOLDS
from .data_file import data_path
from .experiments import SERVE_COMMAND
from .stdlib import LOCK, STDLIB, trimmed_lock, trimmed_stdlib
from .vendor import MODELS_DEST, PYODIDE_FILES, ROOT, browser_models

# the files a browser fetches to start the Python sampler (Pyodide never reads its package.json)
PYODIDE_FETCHED = [name for name in PYODIDE_FILES if name != "package.json"]

EXPONENTS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def encode_probs(values):
    """The encoded probabilities: each value v = m × 10^-e as the digits of m and one letter for e ('4423h' =
    4423e-7); no separators.

    Exponents past the alphabet are written '-e.'. Decode with Number(m + 'e-' + e): a correctly rounded
    parse of the same decimal as Python's float(), so every value round-trips exactly (checked here).
    """
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise ValueError(f"not a probability: {v!r}")
        sign, digits, exp = Decimal(repr(float(v))).normalize().as_tuple()
        m = int("".join(map(str, digits))) if v else 0
        e = 0 if not v else -exp
        if e < 0:
            m, e = m * 10 ** -e, 0
        code = EXPONENTS[e] if e < len(EXPONENTS) else f"-{e}."
        if float(f"{m}e-{e}") != float(v):
            raise ValueError(f"{v!r} does not round-trip through the encoding")
        out.append(f"{m}{code}")
    return "".join(out)


def decode_probs(text):
    """The values of encode_probs's text, as widgets/c13-util.js decodeProbs reads them."""
    out = []
    for m, letter, big in re.findall(r"(\d+)(?:([a-zA-Z])|-(\d+)\.)", text):
        e = EXPONENTS.index(letter) if letter else int(big)
        out.append(float(f"{m}e-{e}"))
    return out


def widget_data(data, ctx):
    """Only what the five widgets need, compact, for <script type="application/json" id="c13-widget-data">."""
    dists = {}
    for prefix in ctx["prefixes"]:
        e = data["distributions"][prefix]
        dists[prefix] = {"p": encode_probs(e["p"]), "q": {d: encode_probs(e["q"][d]) for d in ctx["drafts"]},
                         "alpha": e["alpha"], "sum_pq": e["sum_pq"],
                         "tv_resample_p_closed_form": e["tv_resample_p_closed_form"],
                         "resample_p_deficit": e["resample_p_deficit"], "columns": e["columns"]}
    return {
        "schema_version": data["schema_version"],
        "encoding": "distributions: value = m × 10^-e, written as the digits of m then one letter for e "
                    "(a = 0 … z = 25, A = 26 … Z = 51; larger e as '-e.'); decode with Number(m + 'e-' + e)",
        "target": ctx["target"], "drafts": ctx["drafts"], "prefixes": ctx["prefixes"],
        "constants": data["constants"], "roles": ctx["roles"],
        "models": {n: {k: m[k] for k in ("role", "parameters", "width")} for n, m in data["models"].items()},
        "labels": data["tokenizer"]["labels"],
        "distributions": dists,
        "offline": data["offline"],
        "replay": data["replay"],
        "accounting": data["accounting"],
        "anchor": data["anchor"],
        "sampler": "assets/c13/sampler.py",
        "pyodide": "assets/vendor/pyodide/",
        "pyodide_bytes": pyodide_bytes(),
        "serve_command": SERVE_COMMAND,
        "e6": e6_payload(data, ctx.get("measured")),
        "e5_costs": e5_costs(ctx.get("measured")),
        "thresholds": THRESHOLDS,
    }


# the WebAssembly forward of E6 as measure_browser.mjs timed it in Node (measured.json → browser_forwards → engines)
E5_WASM_ENGINE = "wasm-simd128"


def e5_costs(measured):
    """E5's measured costs (ctx["measured"], from measured.json): per ks the build machine's v(k) medians and per
    draft its c median and the target's ms per forward, with torch (and its wall-clock speedups: median, min, max per k) and with E6's WebAssembly
    forward in Node; where each comes from, for the speed titles. Only the inputs: E5 computes the speedups
    (widgets/figures/speedup.mjs measuredSpeedup). {reason} alone, in Chinese, when there is nothing to use."""
    if measured is None:
        return {"reason": "这次构建没有构建机的实测（precomputed/measured.json）：在项目目录执行 make measure 才有。"}
    if not measured["usable"]:
        return {"reason": f"构建机的实测（measured.json）{measured['stale_words']['short']}，不能和本页的 α 合用：请重新运行 make measure。"}
    ks, machine = measured["ks"], measured["machine"]
    torch = {"where": measured["where"]["measured"], "wallClock": measured["where"]["wall_clock"],
             "targetMs": measured["target_ms"]["median"],
             "c": {d: e["c"]["median"] for d, e in measured["by_draft"].items()},
             "v": [measured["v"][k]["median"] for k in ks],
             "points": {d: [{"k": r["k"], **{key: r["measured"][key] for key in ("median", "min", "max")}}
                            for r in e["rows"]] for d, e in measured["by_draft"].items()}}
    engine = ((measured.get("browser") or {}).get("engines") or {}).get(E5_WASM_ENGINE)
    wasm = None if engine is None else {
        "where": f"构建机 {machine['cpu']}，E6 的 WebAssembly SIMD 前向（Node {measured['browser']['node']}）",
        "targetMs": engine["target_ms"]["median"],
        "c": {d: s["median"] for d, s in engine["c"].items()}, "v": [engine["v"][k]["median"] for k in ks]}
    return {"ks": ks, "torch": torch, "wasm": wasm,
            "wasmReason": None if wasm else "measured.json 里没有 E6 的 WebAssembly 前向的计时：请重新运行 make measure。"}


def e6_payload(data, measured=None):
    """E6: where its files are, their sizes (for the progress in bytes) and sha256 (c13.json → browser.files, checked
    by the browser before it parses a download), the context, the choices and defaults; and the build machine's
    roof (measured.json, through ctx["measured"]) when `make measure` recorded one and it timed these models."""
    constants = data["constants"]
    target = constants["target"]
    context = data["models"][target]["context"]
    ks = constants["ks"]
    # E6's choices of how many new tokens to write (precomputed/lesson.toml): those that fit the context with the
    # longest k are offered
    new_tokens = [n for n in constants["e6_new_tokens"] if n + max(ks) < context]
    if not new_tokens:  # the data stage refuses such a lesson.toml (precompute.py check_e6_choices): a file made by hand
        raise InputError(data_path(), "constants.e6_new_tokens",
                         f"is {constants['e6_new_tokens']}: with k up to {max(ks)} none fits the context of {context} "
                         "beside a prompt; set e6.new_tokens in precomputed/lesson.toml to hold one that does, then "
                         "run `make data`")
    files = browser_models(data)
    smallest = min(constants["drafts"], key=lambda d: data["models"][d]["parameters"])  # E6 starts with the cheapest
    temperatures = [0, 1]
    # E6 starts as the lesson runs: its replay's k and temperature (c13.json → replay), or the nearest E6 offers
    lesson = data["replay"]
    return {"models": MODELS_DEST + "/", "files": {name: size for name, (_, size) in files.items()},
            "sha256": {name: data["browser"]["files"][name]["sha256"] for name in files},
            "context": context, "target": target, "drafts": constants["drafts"],
            "prompts": [p["text"] for p in data["prompts"]], "ks": ks, "temperatures": temperatures,
            "new_tokens": new_tokens,
            "defaults": {"draft": smallest, "k": nearest_offered(lesson["k"], ks),
                         "temperature": nearest_offered(lesson["temperature"], temperatures),
                         "nNew": new_tokens[1] if len(new_tokens) > 1 else new_tokens[0],
                         "prompt": lesson["prompt"]},
            "build_roof": build_roof(measured)}


def nearest_offered(value, offered):
    """The choice of `offered` closest to `value` (the smaller of two as close): E6's default k and temperature are the
    lesson's, which lesson.toml keeps within E6's choices (k.lesson ≤ k.max), so this only guards a hand-made file."""
    return min(offered, key=lambda choice: (abs(choice - value), choice))


def build_roof(measured):
    """The build machine's bandwidth and SIMD peak (medians) for E6's roofline, with its CPU; None without one."""
    roof = ((measured or {}).get("browser") or {}).get("roof")
    if roof is None or measured["stale"]:
        return None
    return {"bandwidth_gbs": roof["bandwidth_gbs"]["median"], "peak_gflops": roof["peak_gflops"]["median"],
            "cpu": measured["machine"]["cpu"], "date": measured["machine"]["date"]}


def pyodide_bytes():
    """The size in bytes of each file the browser fetches to start the Python sampler, read from the files."""
    sizes = {name: (ROOT / "node_modules" / "pyodide" / name).stat().st_size for name in PYODIDE_FETCHED}
    pyodide = ROOT / "node_modules" / "pyodide"
    sizes[STDLIB] = len(trimmed_stdlib(pyodide / STDLIB))  # the trimmed copies the site serves (stdlib.py)
    sizes[LOCK] = len(trimmed_lock(pyodide / LOCK))
    # what widgets/py/load.mjs fetches: sampler.py and its glue (widgets/py/*.py)
    for path in [ROOT / "widgets" / "sampler.py", *sorted((ROOT / "widgets" / "py").glob("*.py"))]:
        sizes[path.name] = path.stat().st_size
    return sizes


def script_json(obj):
    """JSON that is safe inside <script>: no '<', '>' or '&' characters and no line separators left raw."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for ch, rep in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                    ("\u2029", "\\u2029")):
        text = text.replace(ch, rep)
    return text
