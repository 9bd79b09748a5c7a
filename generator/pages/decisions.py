"""The decisions the page's data-dependent wordings follow ([% pick NAME %] in docs/index.md, templates.Pick).

Each is named once here with every key it can take and what decides it; the page writes a wording for each key
(tests/pages/test_picks.py renders every case), `python -m generator context` lists them with the key this data takes.
The ones named run.* are E6's, decided in the reader's browser by widgets/e6/explain.js and report.js.
"""

YES_NO = ("yes", "no")  # a decision that holds or not (True or False in the context)
DECISIONS = {
    "naive.level": (("tiny", "far", "below"), "Claims.naive: Σ p·q below tiny_sum_pq everywhere, at most half its α "
                                                "everywhere, or only below α"),
    "naive.waste": (("none", "most", "more"), "Claims.naive: Σ p·q tiny, below one half everywhere, or not"),
    "alpha_noise.case": (("wider", "narrower"), "Claims.alpha_noise: the 95% interval at the lesson's k wider than the "
                                                "spread of the per-k rates, or not"),
    "note.why.case": (("more", "fewer", "close"), "Claims.measured_best: why the best k with measured N differs"),
    "note.why.which": (("at", "best"), "Claims.measured_best: whose runs the sentence shows"),
    "try_alpha.case": (("later", "earlier", "top", "same"), "Claims.try_alpha: where E5's best k goes when α grows"),
    "large_at_k_max.case": (("slower", "best"), "Claims.large_at_k_max: the large draft slower at the largest k than at its best"),
    "bigger.best.larger": (("more", "less", "same"), "Claims.bigger_draft: the large draft's best speedup against "
                                                      "the small draft's, as printed"),
    "script.text": (("han", "other"), "Claims.script: the prompts and the replay's text mostly Han characters, or not"),
    "same_size": (YES_NO, "lesson_values: the correct scheme's TV within same_size of the noise floor (direct sampling's TV)"),
    "greedy_identical": (YES_NO, "lesson_values: every greedy run equal to the target's own greedy output"),
    "bias_visible": (YES_NO, "Claims.resample_bias_visible: resampling's closed-form TV over clear_of_noise × the noise floor"),
    "larger_overlaps": (YES_NO, "lesson_values: the large draft's α above the small draft's at the main prefix"),
    "pooled_alpha": (("less", "more", "same"), "lesson_values: the small draft's pooled α against its α at E2's "
                     "prefix"),
    "other_bias": (("more", "less", "same"), "lesson_values: the other prefix's closed-form TV against the main's"),
    "tv_slow": (YES_NO, "Claims.tv_slower: the TV falls slower at small n than at large n"),
    "tv_bias.case": (("seen", "unseen"), "Claims.tv_bias_from: resampling's TV over clear_of_noise × direct sampling's "
                     "at some n of the curve, or at none"),
    "robust_best_k": (YES_NO, "lesson_values: each draft's best k the same at both ends of its α's 95% interval"),
    "slow_at_k_max.below_one": (YES_NO, "Claims.slow_at_k_max: the large draft below 1× at the largest k"),
    "note.why.inside": (YES_NO, "Claims.measured_best: the pooled α inside that k's 95% interval"),
    "bigger.large_k_max.below_one": (YES_NO, "Claims.bigger_draft: the large draft below 1× at the largest k"),
    "self_drafting.case": (("slows", "costs", "plain"), "Claims.self_drafting: the large draft at the largest k below 1×, "
                                             "below the best draft's best, or neither"),
    "self_drafting.own_best": (YES_NO, "Claims.self_drafting: the best draft is the large one itself"),
    "measured.summary.all_below_one": (YES_NO, "measured.py: every timed wall-clock median below 1×"),
    "slow_at_k_max.say": (YES_NO, "Claims.slow_at_k_max: the large draft's speedup at the largest k said (it is not "
                                  "its best, which the sentence before gives)"),
    "large_at_k_max.bounded": (YES_NO, "Claims.large_at_k_max: the bound 1 ÷ (1 − α) below the cost at the largest k, "
                                       "as printed"),
    "slow.below_one": (YES_NO, "Claims.slowest: the slowest row by the formula below 1×"),
    "script.byte_tokens": (YES_NO, "Claims.script: the prompts or the replay hold byte tokens"),
    "wall.relaxed_simd": (YES_NO, "lesson_values.wall_decisions: E6's timed WebAssembly forward used relaxed SIMD"),
    "stale.kind": (("models", "ks"), "measured.py stale_words: the timings are of other models, or of other k only"),
    "stale.missing_ks": (YES_NO, "measured.py stale_words: some of the page's k were not timed"),
    # E6's report on the reader's run, decided in the browser (widgets/e6/explain.js sayings): the page writes every
    # case, the widget keeps one (templates.Live)
    "run.speed": (("faster", "slower", "same"), "E6 (explain.js speedVerdict): every pair of runs faster end to end, "
                  "every pair slower, or 1× within their spread"),
    "run.guess_right": (("yes", "no", "none"), "E6 (explain.js guessRight): the reader's guess before the run is the "
                        "verdict (none: no guess recorded)"),
    "run.prediction_fits": (YES_NO, "E6 (explain.js predictionCheck): E[N] ÷ (k·c + v(k)) with the reader's costs "
                            "within the pairs' end-to-end spread"),
    "run.gap_cause": (("besides", "forwards"), "E6 (explain.js predictionCheck): the larger part of the prediction's "
                      "miss: what is not a forward, or the forwards' own time"),
    "run.forwards_slower": (YES_NO, "E6: the forwards' speedup in the runs below the prediction"),
    "run.bound_one": (("compute", "bandwidth"), "E6: the one-position forward's larger lower bound on the reader's roof"),
    "run.bound": (("compute", "bandwidth"), "E6: the verify forward's larger lower bound on the reader's roof"),
    "run.overhead": (YES_NO, "E6: the measured verify forward at least overhead_bound × its roof's time"),
    "run.agrees": (YES_NO, "E6: the roofline's v(k) within roof_agrees of the measured one"),
    "run.roof_c_known": (YES_NO, "E6: the reader's roof measured, so the roofline predicts c"),
    "run.c_case": (("far_above", "far_below", "scales"), "E6: c at least far_above × the parameter ratio, at most "
                                                         "1 / far_above of it, or between"),
    "run.v_where": (("below", "above", "between"), "E6: v(k) below 1, above k + 1, or between"),
    "run.sampler_longer": (YES_NO, "E6: a token's decisions in sampler.py at least a target forward"),
    "run.greedy": (YES_NO, "E6 (rounds.js): the run was at T = 0, where the two texts must be identical"),
    "run.identical": (YES_NO, "E6 (rounds.js): the target's text and speculative decoding's are identical"),
    "run.kernel_noted": (YES_NO, "E6 (report.js method): the forward that ran comes with a note"),
    "run.build_roof": (YES_NO, "E6 (report.js roofline): the build machine's WebAssembly roof is known and drawn"),
    "run.lesson_alpha": (("body", "run"), "E6 (report.js lessonAlphaSource): the lesson's formula takes the body's α "
                         "(a run at T = 1) or the run's own (T = 0: the body has none)"),
    "wall.mostly_below": (YES_NO, "lesson_values.wall_decisions: most timed points below the formula's line"),
    "wall.best_slower": (YES_NO, "lesson_values.wall_decisions: the small draft's wall clock at its best k below 1×"),
    "wall.max_slower": (YES_NO, "lesson_values.wall_decisions: the best wall clock of all below 1×"),
    "wall.wasm_closer": (YES_NO, "lesson_values.wall_decisions: E6's WebAssembly c nearer the parameter ratio"),
    "wall.read_share": (("most", "small"), "lesson_values.wall_decisions: reading the weights most of a forward"),
    "wall.verify_bound": (("compute", "bandwidth"), "lesson_values.wall_decisions: E6's verifying forward at the "
                          "largest timed k costs more extra time than one read of the weights"),
}
