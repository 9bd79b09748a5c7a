"""The named values docs/index.md reads, each derived from c13.json (and the build machine's timings) in one place.

The template used to compute these itself with a block of `set` statements; here each has a name, a line saying
what it is, and a test (tests/pages/test_lesson_values.py). `values(ctx)` adds them to the context that build_context
made (generator/pages/context.py), so they can use its drafts by size and its measured context.
"""
import math

from .evolution import evolution_map_of_page, here_position
from .claims import CLEAR_OF_NOISE, SAME_SIZE, order
from .measured import measured_row
from .papers_table import papers_rows
from .templates import section_of

# The papers' figures the prose cites by name: (context name, paper id, what the paper measured).
REPORTED = (
    ("leviathan_small", "leviathan2022", "T5-small draft"),
    ("leviathan_large", "leviathan2022", "T5-large draft"),
    ("leviathan_range", "leviathan2022", "wall-time speedup range over tasks and drafts"),
    ("chen_speedup", "chen2023", "decoding speedup"),
    ("deepseek_acceptance", "deepseekv3", "acceptance of the second predicted token"),
    ("deepseek_speed", "deepseekv3", "decoding speed (tokens per second)"),
    ("eagle_throughput", "eagle3", "throughput improvement at batch 64"),
)

# What each name is, one line each (`python -m generator context` prints these as the names' origins).
ABOUT = {
    "replay_k": "the recorded run's k (c13.json → replay → k)",
    "positions": "the anchor's positions in one verify forward, k + 1 (E1)",
    "anchor_k": "the anchor's draft tokens per round, one fewer than its verified positions (E3's table)",
    "bits_per_param": "the anchor's bits per parameter",
    "kimi_section": "the section of Kimi K3's report on caching only the drafts' projected inputs",
    "vocab": "our tokenizer's vocabulary size",
    "n_prompts": "how many prompts the greedy check and the accounting run",
    "ks_greedy": "the greedy check's ks, as a list in words",
    "greedy_runs": "prompts × drafts × ks of the greedy check",
    "k_min": "the lesson's smallest k", "k_max": "the lesson's largest k",
    "acc_s": "the small draft's accounting", "acc_l": "the large draft's accounting",
    "e5_tables": "E5's tables, the small draft first (e5_tables)",
    "model_rows": "the models' table: target, then drafts by size (name, role, width, layers, parameters, ratio to the "
                  "target, None for the target itself, heldout_loss, sha256)",
    "naive_rows": "Σ p·q by prefix for the small and the large draft (prefix, small, large)",
    "e2_rows": "E2's tables row by row, each prefix with each draft: α, Σ p·q and the TV of the correct rule, of direct "
               "sampling, of resampling from p (offline) and of resampling from p (closed form)",
    "row_s": "the small draft's accounting row at the replay's k",
    "row_l": "the large draft's accounting row at the replay's k",
    "row_s_max": "the small draft's accounting row at the largest k",
    "row_l_max": "the large draft's accounting row at the largest k",
    "row_best": "the small draft's accounting row at its best k by the formula",
    "offline_small": "the offline check of the small draft at the main prefix (correct, direct, resample_p)",
    "noise_ratio": "the TV of resampling from p over the TV of direct sampling (the summary's example)",
    "same_size": "the correct scheme's TV within SAME_SIZE of the noise floor of direct sampling's",
    "closed_tv": "the closed-form TV of resampling from p (main prefix, small draft)",
    "deficit_main": "the token resampling from p starves most at the main prefix (small draft)",
    "deficit_other": "the token resampling from p starves most at the other prefix (small draft)",
    "bytes_per_param": "the anchor's bytes read per parameter",
    "flops_per_param": "the anchor's FLOPs per parameter and position",
    "v_anchor": "the anchor's v from its two bounds, reading and computing not overlapping at all",
    "tv_fall": "how much the TV fell over the curve's small n and large n (tv_falls)",
    "robust_best_k": "each draft's best k the same at both ends of its α's 95% interval",
    "accounting_runs": "prompts × seeds of the accounting, per draft and k",
    "download_mb": "E6's download: the three models and the tokenizer, in MB",
    "measured_best_notes": "the drafts whose best k with measured N differs, and why (measured_best_notes)",
    "papers_rows": "the papers' table body (papers_table.py)",
    "evolution_map": "the evolution map's list (evolution.py), with the numbers the page sets as drove_KEY",
    "evolution_here": "this lesson's place on the evolution map",
    "timings": "the build machine's timings when usable, else None (measured.py)",
    "timed_large_max": "the large draft's timed row at the largest k",
    "timed_small_best": "the small draft's timed row at its best k by the formula",
    "timed_small": "the timed small draft by its own size (stale timings too)",
    "timed_large": "the timed large draft by its own size (stale timings too)",
    "k_last": "the largest timed k",
    "wasm_timed": "E6's WebAssembly SIMD forward timed in Node on the build machine, when usable",
    "js_timed": "E6's JavaScript forward timed in Node on the build machine, when usable",
    "naive": "claims.naive(): how the page speaks of Σ p·q",
    "alpha_noise": "claims.alpha_noise(replay_k): the lesson's k's 95% interval against the spread of the per-k rates",
    "script": "claims.script(): byte tokens and the script of the text",
    "tv_slow": "claims.tv_slower(): the TV falls slower at small n",
    "tv_bias": "claims.tv_bias_from(): the first n of the curve where resampling's TV is bias by the one rule",
    "slow_at_k_max": "claims.slow_at_k_max(): the large draft at the largest k",
    "try_alpha": "claims.try_alpha(): E5's first try, α dragged up",
    "free_draft": "E5's second try: the best k when the draft costs nothing",
    "large_at_k_max": "claims.large_at_k_max(): E5's fourth try",
    "bigger": "claims.bigger_draft(): misconception two, is the larger draft better",
    "self_drafting": "claims.self_drafting(): what drove self-drafting on the evolution map",
    "slow": "claims.slowest(): the slowest row by the formula",
    "roof_read": "claims.build_read(): the build machine's read time of the target's weights",
    "vocab_per_position": "the anchor's vocabulary over its positions in one verify forward (E3)",
    "replay_per_forward": "the recorded run's tokens per target forward",
    "positions_tested": "the fewest and most positions any k of either draft tested ({min, max})",
    "deepseek_yield": "tokens per forward by the formula at DeepSeek-V3's reported acceptance, 1 + α ({low, high})",
    "target_mb": "the target's float32 weights in MB",
    "timed_c": "the build machine's c as the ratio of the medians, per draft by size ({small, large})",
    "timed_v_first": "the build machine's v(k) median at its smallest timed k",
    "timed_target_mb": "the timed target's float32 weights in MB (measured.json)",
    "formula_at_predicted": "the lesson's formula (c = the parameter ratio, v = 1) at the k the formula with measured "
                            "costs finds best, per draft by size ({small, large})",
    "greedy_identical": "decision: every greedy run equal to the target's own greedy output",
    "greedy_differ": "how many greedy runs differ from the target's own output",
    "bias_visible": "decision: claims.resample_bias_visible(), resampling's bias clear of the noise",
    "larger_overlaps": "decision: the large draft's α above the small draft's at the main prefix, as printed",
    "noise_rule": "widgets/thresholds.json clear_of_noise: a TV above this many times the noise floor is bias",
    "pooled_alpha": "decision: the small draft's pooled α against its α at E2's prefix, as printed ('less', 'more', "
                    "'same')",
    "other_bias": "decision: the other prefix's closed-form TV against the main prefix's, as printed",
    "wall": "decisions on the build machine's timings (wall_decisions)",
    "wasm_verify": "E6's WebAssembly verifying forward at the largest timed k against reading the weights once "
                   "(verify_costs)",
    **{name: f"{paper}: {what}" for name, paper, what in REPORTED},
}


def model_rows(ctx):
    """The models' table of the page, the target first."""
    models, target = ctx["models"], ctx["target"]
    return [{"name": name, "role": ctx["roles"][name], **{key: models[name][key] for key in ("width", "layers",
             "parameters")}, "ratio": None if name == target else models[name]["ratio_to_target"],
             "heldout_loss": models[name].get("heldout_loss"), "sha256": models[name]["sha256"]}
            for name in [target, *ctx["drafts"]]]


def naive_rows(ctx):
    """Σ p·q at each prefix for the small and the large draft."""
    dist = ctx["distributions"]
    small, large = ctx["small_draft"], ctx["large_draft"]
    return [{"prefix": p, "small": dist[p]["sum_pq"][small], "large": dist[p]["sum_pq"][large]} for p in ctx["prefixes"]]


def e2_rows(ctx):
    """E2's two tables, one row per prefix and draft (the prefixes in the page's order, the drafts by size)."""
    dist, offline = ctx["distributions"], ctx["offline"]
    return [{"prefix": p, "draft": d, "alpha": dist[p]["alpha"][d], "sum_pq": dist[p]["sum_pq"][d],
             "correct": offline[p][d]["correct"]["tv"], "direct": offline[p][d]["direct"]["tv"],
             "resample": offline[p][d]["resample_p"]["tv"], "closed": dist[p]["tv_resample_p_closed_form"][d]}
            for p in ctx["prefixes"] for d in ctx["drafts"]]


def e5_tables(ctx):
    """E5's tables, the small draft first: each draft's role, c, pooled α and rows (k, that k's acceptance rate and
    the half width of its 95% interval in points, N measured and by the formula, the speedups by the formula with the
    formula's and the measured N, and whether it is the formula's best k)."""
    tables = []
    for draft in ctx["drafts"]:
        a = ctx["accounting"][draft]
        rows = [{"k": r["k"], "rate": r["acceptance_rate"], "half": (r["alpha_high"] - r["alpha_low"]) * 50,
                 "n": r["tokens_per_target_forward"], "n_formula": r["formula"], "best": r["k"] == a["best_k"],
                 "speedup": r["speedup"], "speedup_n": r["measured_speedup"]} for r in a["rows"]]
        tables.append({"draft": draft, "role": ctx["roles"][draft], "c": a["c"], "alpha": a["alpha"], "rows": rows})
    return tables


def tv_falls(curve, means):
    """How much the TV of direct sampling and of the correct scheme fell between the curve's first and third n
    (`small_n`, where many tokens have n p_i < 1) and between its third-last and last n (`large_n`), and by how much
    n grew there, with the 1/√n the large-n fall should follow."""
    ns = curve["ns"]
    falls = {}
    for name, (a, b) in {"small_n": (0, 2), "large_n": (-3, -1)}.items():
        falls[name] = {"direct": means["direct"][a] / means["direct"][b],
                       "correct": means["correct"][a] / means["correct"][b],
                       "n_from": ns[a], "n_to": ns[b], "n_grew": ns[b] / ns[a],
                       "sqrt_n_grew": math.sqrt(ns[b] / ns[a])}
    return falls


def robust_best_k(accounting, best_k):
    """Whether each draft's fastest k by the formula stays the same at both ends of its α's 95% interval."""
    return all(best_k(a, entry["c"])["k"] == entry["best_k"]
               for entry in accounting.values() for a in (entry["alpha_low"], entry["alpha_high"]))


def measured_best_notes(accounting, drafts, row, why=None):
    """The drafts whose best k with each k's measured N differs from the best k with the pooled α: the draft, that k,
    its accounting entry and row, whether the pooled α lies inside that k's 95% interval, the speedup by the formula
    with that k's measured N (`speedup`) and with the pooled α (`pooled`), and why(draft), when given
    (claims.measured_best: which runs explain it, their N, N by the formula, rate and 95% interval as n, n_formula,
    rate, low, high)."""
    notes = []
    for draft in drafts:
        acc = accounting[draft]
        if acc["measured_best_k"] != acc["best_k"]:
            r = row(draft, acc["measured_best_k"])
            note = {"draft": draft, "k": acc["measured_best_k"], "acc": acc, "row": r,
                    "inside": r["alpha_low"] <= acc["alpha"] <= r["alpha_high"], "why": why(draft) if why else None,
                    "speedup": acc["measured_best_speedup"], "pooled": r["speedup"]}
            if note["why"]:  # the figures of the runs the sentence shows, under short names
                shown = note["why"]["row"]
                note.update(n=shown["tokens_per_target_forward"], n_formula=shown["formula"],
                            rate=shown["acceptance_rate"], low=shown["alpha_low"], high=shown["alpha_high"])
            notes.append(note)
    return notes


def values(ctx):
    """The named values, as a dict to add to the context."""
    data, row = ctx["data"], ctx["row"]
    small, large, main = ctx["small_draft"], ctx["large_draft"], ctx["main_prefix"]
    ks = data["constants"]["ks"]
    anchor, acc, replay = data["anchor"], ctx["accounting"], data["replay"]
    offline = ctx["offline"][main]
    out = {
        "replay_k": replay["k"],
        "positions": anchor["positions_verified"],
        "vocab": data["tokenizer"]["vocab_size"],
        "n_prompts": len(data["prompts"]),
        "ks_greedy": ", ".join(map(str, data["greedy"]["ks"])),
        "greedy_runs": len(data["prompts"]) * len(ctx["drafts"]) * len(data["greedy"]["ks"]),
        "k_min": min(ks), "k_max": max(ks),
        "acc_s": acc[small], "acc_l": acc[large], "e5_tables": e5_tables(ctx),
        "model_rows": model_rows(ctx), "naive_rows": naive_rows(ctx), "e2_rows": e2_rows(ctx),
        "row_s": row(small, replay["k"]), "row_l": row(large, replay["k"]), "row_l_max": row(large, max(ks)),
        "row_s_max": row(small, max(ks)), "row_best": row(small, acc[small]["best_k"]),
        "offline_small": offline[small],
        "noise_ratio": offline[small]["resample_p"]["tv"] / offline[small]["direct"]["tv"],
        "same_size": abs(offline[small]["correct"]["tv"] - offline[small]["direct"]["tv"])
                     < SAME_SIZE * offline[small]["direct"]["tv"],
        "closed_tv": ctx["distributions"][main]["tv_resample_p_closed_form"][small],
        "deficit_main": ctx["distributions"][main]["resample_p_deficit"][small],
        "deficit_other": ctx["distributions"][ctx["other_prefix"]]["resample_p_deficit"][small],
        "anchor_k": anchor["positions_verified"] - 1,
        "bytes_per_param": anchor["bytes_read_per_token"] / anchor["params_read_per_token"],
        "flops_per_param": anchor["flops_per_position"] / anchor["params_read_per_token"],
        "v_anchor": (anchor["weight_read_ms_per_token"] + anchor["compute_ms_for_positions"])
                    / anchor["weight_read_ms_per_token"],
        "tv_fall": tv_falls(data["tv_curve"], ctx["tv_means"]),
        "robust_best_k": robust_best_k(acc, ctx["e5_best"]),
        "accounting_runs": len(data["prompts"]) * len(data["accounting"]["seeds"]),
        "download_mb": sum(f["bytes"] for f in data["browser"]["files"].values()) / 1e6,
        "measured_best_notes": measured_best_notes(acc, ctx["drafts"], row, ctx["claims"].measured_best),
        "papers_rows": papers_rows(data["papers"]),
        "evolution_map": evolution_map_of_page, "evolution_here": here_position(),
        "vocab_per_position": anchor["vocab_size"] / anchor["positions_verified"],
        "replay_per_forward": ctx["replay_stats"]["tokens"] / replay["target_forwards"],
        "positions_tested": {f.__name__: f(r["positions_tested"] for d in ctx["drafts"] for r in acc[d]["rows"])
                             for f in (min, max)},
        "target_mb": ctx["models"][ctx["target"]]["bytes_float32"] / 1000000,
    }
    out.update({name: dict(ctx["paper_figure"](paper, what), paper=paper) for name, paper, what in REPORTED})
    out["bits_per_param"] = out["bytes_per_param"] * 8
    out["kimi_section"] = section_of(ctx["paper"]("kimi_k3")["also"])
    out["noise_rule"] = CLEAR_OF_NOISE
    out["deepseek_yield"] = {end: 1 + out["deepseek_acceptance"][end] for end in ("low", "high")}
    out.update(measured_values(ctx, max(ks), acc[small]["best_k"]))
    out.update(conclusions(ctx, out))
    out["wasm_verify"] = verify_costs(out)
    out["wall"] = wall_decisions(ctx, out)
    return out


def verify_costs(named):
    """Where E6's WebAssembly forward sits when it verifies k + 1 positions (the largest timed k), judged by measured
    times: `extra_ms` what verifying costs over writing one token, (v(k) − 1) × one forward; `read_ms` reading the
    target's weights once (the probe); `over_read` their ratio; `positions` k + 1. None without both timings."""
    wasm, roof = named["wasm_timed"], named["roof_read"]
    if not (wasm and roof):
        return None
    k = named["k_last"]
    extra = (wasm["v"][k]["median"] - 1) * wasm["target_ms"]["median"]
    return {"extra_ms": extra, "read_ms": roof["ms"], "over_read": extra / roof["ms"], "positions": k + 1}


def wall_decisions(ctx, named):
    """The decisions the sentences on the build machine's timings follow (None where they have no timings):
    best_slower (the small draft's wall clock at its best k below 1× as printed), max_slower (the best wall clock
    of all below 1×), mostly_below (most timed points below the formula's line), wasm_closer (E6's WebAssembly c
    nearer the parameter ratio than torch's),
    read_share ('most': reading the weights is most of its one-position forward, else 'small'), verify_bound
    ('compute' when verifying k + 1 positions costs more extra time than reading the weights once, else 'bandwidth'),
    relaxed_simd (E6's timed forward the relaxed-SIMD
    build)."""
    mc, timings, wasm, roof = ctx["measured"], named["timings"], named["wasm_timed"], named["roof_read"]
    out = {"mostly_below": mc["summary"]["below_prediction"] * 2 > mc["summary"]["rows"] if mc else None}
    if timings:
        out.update(best_slower=order(named["timed_small_best"]["measured"]["median"], 1, "times") == "less",
                   max_slower=order(timings["summary"]["max_measured"], 1, "times") == "less")
    if wasm:
        small = ctx["small_draft"]
        out.update(relaxed_simd=wasm.get("simd") == "relaxed",
                   wasm_closer=wasm["c"][small]["median"] < named["timed_small"]["c"]["median"])
    if roof:
        out["read_share"] = "most" if roof["ms"] * 2 > wasm["target_ms"]["median"] else "small"
    if named["wasm_verify"]:  # the verifying forward's extra work against one read of the weights
        out["verify_bound"] = "compute" if named["wasm_verify"]["over_read"] > 1 else "bandwidth"
    return out


def conclusions(ctx, named):
    """claims.py's decisions the prose reads in more than one sentence, under the names the template uses."""
    claims = ctx["claims"]
    fall = named["tv_fall"]
    alpha = ctx["distributions"][ctx["main_prefix"]]["alpha"]
    return {
        "naive": claims.naive(),
        "greedy_identical": ctx["greedy"]["identical"] == ctx["greedy"]["total"],
        "greedy_differ": ctx["greedy"]["total"] - ctx["greedy"]["identical"],
        "bias_visible": claims.resample_bias_visible(),
        "larger_overlaps": order(alpha[ctx["large_draft"]], alpha[ctx["small_draft"]], "pct") == "more",
        "pooled_alpha": order(ctx["accounting"][ctx["small_draft"]]["alpha"], alpha[ctx["small_draft"]], "pct"),
        "other_bias": order(ctx["distributions"][ctx["other_prefix"]]["tv_resample_p_closed_form"][ctx["small_draft"]],
                            named["closed_tv"], "fixed4"),
        "alpha_noise": claims.alpha_noise(named["replay_k"]),
        "script": claims.script(),
        "tv_slow": claims.tv_slower([fall["small_n"]["direct"], fall["small_n"]["correct"]],
                                    [fall["large_n"]["direct"], fall["large_n"]["correct"]]),
        "tv_bias": claims.tv_bias_from(ctx["tv_means"]),
        "slow_at_k_max": claims.slow_at_k_max(ctx["large_draft"]),
        "try_alpha": claims.try_alpha(),
        "free_draft": ctx["e5_best"](named["acc_s"]["alpha"], 0),
        "large_at_k_max": claims.large_at_k_max(),
        "bigger": claims.bigger_draft(),
        "self_drafting": claims.self_drafting(),
        "slow": claims.slowest(),
        "roof_read": claims.build_read(ctx["measured"], ctx["models"][ctx["target"]]["bytes_float32"])
                     if named["wasm_timed"] else None,
    }


def measured_values(ctx, k_max, best_k):
    """The build machine's timings: `timings` the usable ones (None when absent or stale); `timed_small`,
    `timed_large` the timed drafts by their own size (also for stale timings: then they may be other models than the
    page's) and `k_last` the largest timed k; with usable timings `timed_large_max` and
    `timed_small_best`, the large draft's row at k_max and the small draft's at its best k; `wasm_timed`,
    `js_timed` E6's WebAssembly SIMD and JavaScript forwards timed in Node (None when absent or not usable)."""
    mc = ctx["measured"]
    out = dict.fromkeys(("timings", "timed_small", "timed_large", "timed_large_max",
                         "timed_small_best", "k_last", "wasm_timed", "js_timed", "timed_c", "timed_v_first",
                         "timed_target_mb", "formula_at_predicted"))
    if not mc:
        return out
    small, large = mc["by_draft"][mc["small"]], mc["by_draft"][mc["large"]]
    out.update(timed_small=small, timed_large=large, k_last=max(mc["ks"]),
               timed_c={"small": small["ms"]["median"] / mc["target_ms"]["median"],
                        "large": large["ms"]["median"] / mc["target_ms"]["median"]},
               timed_v_first=mc["v"][min(mc["ks"])]["median"], timed_target_mb=mc["target_bytes"] / 1000000)
    if mc["usable"]:  # the timed drafts are the page's own
        engines = (mc["browser"] or {}).get("engines") or {}
        if engines.get("wasm-simd128"):
            out.update(wasm_timed=engines["wasm-simd128"], js_timed=engines.get("js"))
        out.update(timings=mc, timed_large_max=measured_row(large, k_max),
                   timed_small_best=measured_row(small, best_k),
                   formula_at_predicted={size: ctx["row"](ctx[f"{size}_draft"], timed["best_predicted"]["k"])["speedup"]
                                         for size, timed in (("small", small), ("large", large))})
    return out
