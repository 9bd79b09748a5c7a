"""The page's blanks: a short name for each value docs/index.md and docs/provenance.md print, with what it reads.

A blank is named for what it means on the page (`[[ naive_small | prob ]]`, not the path into c13.json it comes
from); here each name is written once, in the order the page uses them, with the expression it reads from the
context (build_context and lesson_values: a path, at most ending in `| length`, or one of figure_table.py's figures
with the names it is drawn for) and a line saying what it is.
`python -m generator context` lists them; tests/pages/test_blanks.py checks that every name is read by a page, that no
expression computes, and that every one has a value with the committed data.
"""
import jinja2

# name: (expression over the context, what it is on the page)
BLANKS = {
    # the anchor (the model of lesson 1, c13.json → anchor): 摘要, 从已有出发, E1
    "read_ms": ("anchor.weight_read_ms_per_token", "the anchor's bound for reading its weights once, per token"),
    "compute_ms": ("anchor.compute_ms_per_token", "the anchor's compute bound for one position"),
    "verify_compute_ms": ("anchor.compute_ms_for_positions", "the anchor's compute bound for the positions of one "
                                                             "verify forward"),
    "hardware": ("anchor.hardware", "the anchor's hardware"),
    "params_read": ("anchor.params_read_per_token", "the anchor's parameters read per token"),
    "bytes_read": ("anchor.bytes_read_per_token", "the anchor's bytes read per token"),
    "flops_position": ("anchor.flops_per_position", "the anchor's FLOPs per position"),
    "read_over_compute": ("anchor.read_over_compute", "the anchor's read bound over its compute bound"),
    "state_mb": ("anchor.linear_attention_state_mb", "the anchor's linear-attention state per request, MB"),
    "state_mib": ("anchor.linear_attention_state_mib", "the same state in MiB"),
    "anchor_vocab": ("anchor.vocab_size", "the anchor's vocabulary size (E3)"),
    # our three models
    "train_steps": ("card.recipe.steps", "the training steps every model took"),
    "generator_cmd": ("provenance.generator", "the data stage's module, as it is run"),
    "generator_version": ("provenance.generator_version", "the generator's version that wrote c13.json"),
    "data_command": ("provenance.command", "the command that wrote c13.json"),
    "torch_version": ("provenance.torch_version", "the torch version that wrote c13.json"),
    # E2: the rules at the main prefix, small draft (c13.json → distributions, offline)
    "naive_small": ("distributions[main_prefix].sum_pq[small_draft]", "Σ p·q, the naive rule's acceptance: main "
                                                                      "prefix, small draft"),
    "naive_large": ("distributions[main_prefix].sum_pq[large_draft]", "Σ p·q at the main prefix, large draft"),
    "alpha_small": ("distributions[main_prefix].alpha[small_draft]", "α = Σ min(p, q) at the main prefix, small draft"),
    "alpha_large": ("distributions[main_prefix].alpha[large_draft]", "α at the main prefix, large draft"),
    "temperature": ("replay.temperature", "the temperature of every draw of the lesson"),
    "offline_n": ("data.offline.n", "the draws of each offline check"),
    "tv_resample": ("offline_small.resample_p.tv", "TV of resampling from p to p, offline (main prefix, small draft)"),
    "tv_correct": ("offline_small.correct.tv", "TV of the correct rule to p, offline"),
    "tv_direct": ("offline_small.direct.tv", "TV of sampling p directly, offline: the noise floor"),
    "accept_correct": ("offline_small.correct.acceptance_rate", "the correct rule's acceptance rate, offline"),
    "accept_resample": ("offline_small.resample_p.acceptance_rate", "resampling's acceptance rate, offline"),
    "seed_correct": ("offline_small.correct.seed", "the correct rule's offline seed"),
    "seed_direct": ("offline_small.direct.seed", "direct sampling's offline seed"),
    "seed_resample": ("offline_small.resample_p.seed", "resampling's offline seed"),
    "live_first": ("data.constants.e2_live_sizes[0]", "E2's first live run size"),
    "live_last": ("data.constants.e2_live_sizes[-1]", "E2's largest live run size"),
    "stacked_main": ("svg_stacked(main_prefix, small_draft)", "E2's stacked picture at the main prefix, small draft"),
    "stacked_main_rows": ("html_stacked_rows(main_prefix, small_draft)", "its numbers as table rows"),
    "stacked_other": ("svg_stacked(other_prefix, small_draft)", "E2's stacked picture at the other prefix"),
    "other_alpha_small": ("distributions[other_prefix].alpha[small_draft]", "α at the other prefix, small draft"),
    "other_naive_small": ("distributions[other_prefix].sum_pq[small_draft]", "Σ p·q at the other prefix, small draft"),
    "other_closed_tv": ("distributions[other_prefix].tv_resample_p_closed_form[small_draft]",
                        "the closed-form TV of resampling at the other prefix, small draft"),
    # the TV against n (c13.json → tv_curve)
    "tv_n_first": ("tv_curve.ns[0]", "the curve's smallest n"),
    "tv_n_last": ("tv_curve.ns[-1]", "the curve's largest n"),
    "tv_prefix": ("tv_curve.prefix", "the curve's prefix"),
    "tv_draft": ("tv_curve.draft", "the curve's draft"),
    "tv_role": ("roles[tv_curve.draft]", "the curve's draft's role"),
    "tv_seeds": ("tv_curve.seeds[tv_curve.schemes[0]] | length", "the curve's seeds per scheme"),
    "tv_closed": ("tv_curve.closed_form_tv", "the curve's closed-form TV of resampling"),
    "tv_p": ("distributions[tv_curve.prefix].p", "the target's distribution at the curve's prefix"),
    # E4: the recorded run (c13.json → replay)
    "replay_rounds": ("replay_stats.rounds", "the recorded run's rounds"),
    "replay_tokens": ("replay_stats.tokens", "the recorded run's tokens"),
    "target_forwards": ("replay.target_forwards", "the recorded run's target forwards"),
    "draft_forwards": ("replay.draft_forwards", "the recorded run's draft forwards"),
    "first_reject": ("replay_stats.first_reject", "the recorded run's first round that accepted nothing"),
    "first_full": ("replay_stats.first_full", "the recorded run's first round that accepted every guess"),
    "bonus_rounds": ("replay_stats.bonus", "the recorded run's rounds that ended in a bonus token"),
    "resampled_rounds": ("replay_stats.resampled", "the recorded run's rounds that ended in a resampled token"),
    # α by position (c13.json → alpha_positions)
    "pos_count": ("alpha_positions[small_draft].positions", "the positions α by position was measured at"),
    "pos_prompts": ("data.alpha_positions.prompts | length", "the prompts of α by position"),
    "pos_per_prompt": ("data.alpha_positions.positions_per_prompt", "the positions per prompt of α by position"),
    "pos_small_min": ("alpha_positions[small_draft].min", "the small draft's lowest α by position"),
    "pos_small_max": ("alpha_positions[small_draft].max", "the small draft's highest α by position"),
    "pos_small_mean": ("alpha_positions[small_draft].mean", "the small draft's mean α over the positions"),
    "pos_large_min": ("alpha_positions[large_draft].min", "the large draft's lowest α by position"),
    "pos_large_max": ("alpha_positions[large_draft].max", "the large draft's highest α by position"),
    "pos_large_mean": ("alpha_positions[large_draft].mean", "the large draft's mean α over the positions"),
    # E5: the accounting (c13.json → accounting)
    "acc_seeds": ("data.accounting.seeds | length", "the accounting's seeds per prompt"),
    "acc_new": ("data.accounting.n_new", "the accounting's new tokens per run"),
    "per_forward_s": ("row_s.tokens_per_target_forward", "the small draft's tokens per target forward, lesson's k"),
    "per_forward_l": ("row_l.tokens_per_target_forward", "the large draft's tokens per target forward, lesson's k"),
    "per_forward_best": ("row_best.tokens_per_target_forward", "the small draft's tokens per target forward, "
                                                               "best k"),
    "sd_role": ("roles[self_drafting.best_draft]", "the faster of our drafts by the formula (self-drafting on the map)"),
    "slow_role": ("roles[slow.draft]", "the draft of the slowest row by the formula"),
    # the build machine's timings (precomputed/measured.json, generator/pages/measured.py)
    "stale": ("measured.stale_words", "why the timings are not used ({kind, models, timed, ours}: measured.py "
                                      "stale_words), None when they are"),
    "timed_date": ("measured.machine.date", "the date of the timings"),
    "timed_cpu": ("measured.machine.cpu", "the timed machine's CPU"),
    "timed_cores": ("measured.machine.cores", "the timed machine's cores"),
    "timed_threads": ("measured.machine.threads", "the threads torch used"),
    "timed_torch": ("measured.machine.torch", "the timed torch version"),
    "timed_target_ms": ("measured.target_ms.median", "the target's one-position forward, median ms"),
    "timed_v_last": ("measured.v[k_last].median", "v(k) at the largest timed k, median"),
    "timed_prompts": ("measured.prompts | length", "the prompts of the timings"),
    "timed_upper": ("roles[measured.drafts[0]]", "the draft of the timings figure's upper panel"),
    "timed_lower": ("roles[measured.drafts[1]]", "the draft of the timings figure's lower panel"),
    "timed_repeats": ("measured.method.repeats", "the repeats of each wall clock"),
    "timed_samples": ("measured.method.forward_samples", "the samples of each forward's cost"),
    "aten_calls": ("measured.overhead[target].aten_calls_per_step", "the ATen calls of one target step"),
    "target_outside": ("measured.overhead[target].outside_matmul_share", "the share of a target step outside "
                                                                          "matrix products"),
    "small_outside": ("measured.overhead[small_draft].outside_matmul_share", "the same share of a small draft step"),
    "predicted_s": ("timed_small.best_predicted.predicted", "the small draft's best speedup by the formula with "
                                                            "measured costs"),
    "predicted_k_s": ("timed_small.best_predicted.k", "its k"),
    "predicted_l": ("timed_large.best_predicted.predicted", "the large draft's best speedup by the formula with "
                                                            "measured costs"),
    "predicted_k_l": ("timed_large.best_predicted.k", "its k"),
    "timed_rows": ("measured.summary.rows", "the timed (draft, k) points"),
    "timed_below_one": ("measured.summary.below_one", "the timed points below 1×"),
    "timed_max": ("measured.summary.max_measured", "the best wall-clock speedup of all"),
    "timed_best_role": ("roles[measured.summary.best_draft]", "its draft"),
    "timed_best_k": ("measured.summary.best_k", "its k"),
    "timed_below_prediction": ("measured.summary.below_prediction", "the timed points below the formula's line"),
    "wall_large_max": ("timed_large_max.measured.median", "the large draft's wall clock at the largest k"),
    "wall_small_best": ("timed_small_best.measured.median", "the small draft's wall clock at its best k by the formula"),
    # E6's forwards timed in Node on the build machine
    "node_version": ("measured.browser.node", "the Node version E6's forwards were timed in"),
    "wasm_target_ms": ("wasm_timed.target_ms.median", "the target's forward in WebAssembly SIMD, median ms"),
    "js_target_ms": ("js_timed.target_ms.median", "the target's forward in JavaScript, median ms"),
    "wasm_c_small": ("wasm_timed.c[small_draft].median", "the small draft's c in WebAssembly SIMD"),
    "wasm_c_large": ("wasm_timed.c[large_draft].median", "the large draft's c in WebAssembly SIMD"),
    "wasm_v_last": ("wasm_timed.v[k_last].median", "v(k) in WebAssembly SIMD at the largest timed k"),
    "read_bandwidth": ("roof_read.bandwidth", "the build machine's memory bandwidth, GB/s"),
    "float16_positions": ("data.browser.float16_error.positions", "the positions float16 was compared at"),
    "float16_max_dp": ("data.browser.float16_error.max_abs_dp", "float16's largest change of a probability"),
}


class _Along(jinja2.StrictUndefined):
    """Undefined all along a path (`measured.machine.date` when there are no timings)."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def __getitem__(self, key):
        return self


def values(ctx):
    """Each blank's value from the context. One without a value for this data (a timing when there are none) is
    undefined and fails only where the page prints it, naming the blank."""
    env = jinja2.Environment(undefined=_Along)
    out = {}
    for name, (expr, _) in BLANKS.items():
        try:
            value = env.compile_expression(expr, undefined_to_none=False)(**ctx)
        except jinja2.UndefinedError:  # `| length` of a part the data lacks
            value = _Along()
        if isinstance(value, jinja2.Undefined):
            value = jinja2.StrictUndefined(hint=f"the blank {name!r} ({expr}, generator/pages/blanks.py) has no value "
                                                f"with this data")
        out[name] = value
    return out
