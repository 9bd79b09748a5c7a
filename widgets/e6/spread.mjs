// E6's figures from its timed samples: one pure module that both sides import, the worker for a run's first
// report and the page when 再测一次 adds samples, so that the figures shown are always computed the one way.
//
// A sample is one round of the measuring phase (timing.mjs): {target, draft, verify}, each the ms per call of one
// block of repeated calls (the target's one-position forward, the draft's, the target's k + 1-position verify).
// The run's facts are what the two decoding runs counted and their wall clocks (engine.mjs runFacts).
//
// The costs are the block medians, c = draft ÷ target and v(k) = verify ÷ target (they feed the prediction, E[N] ÷
// (k·c + v(k))); their spread is the min–max (the report shows it; the quartiles are kept too) of the same figure
// worked out round by round, each round's three blocks having run one after the other. Min–max, not quartiles: over 9
// rounds two runs' quartiles miss each other now and then by chance alone (tests/widgets/node/e6_timing.mjs), their
// ranges do not. The speedups are measured, not worked out: the two loops ran again in turn (engine.mjs repeat), and
// each pair's speedup is the target's ms per token over speculative decoding's, end to end (the runs' wall clocks: tens
// to hundreds of ms, well above the clock's step) or on the forwards' own time within the same runs.

/** The q-quantile of sorted values, interpolated between neighbours (Python's statistics.quantiles, inclusive). */
function quantile(sorted, q) {
  const pos = q * (sorted.length - 1);
  const lo = Math.floor(pos);
  return lo + 1 < sorted.length ? sorted[lo] + (sorted[lo + 1] - sorted[lo]) * (pos - lo) : sorted[lo];
}

/** median, quartiles, min and max of the values (all finite), and their count n; null for none. */
export function spread(values) {
  const v = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (!v.length) return null;
  return { median: quantile(v, 0.5), q1: quantile(v, 0.25), q3: quantile(v, 0.75), min: v[0], max: v[v.length - 1],
    n: v.length };
}

export function median(values) {
  return spread(values)?.median ?? null;
}

/** A run's ms per token written, end to end (key "total") or only its forwards ("model"). */
const perToken = (run, key) => run[key] / run.tokens;

/** The verdict's pairs (facts.runs: pair i = the i-th run of each loop): each pair's speedup, end to end and on the
 * forwards' own time, and the median pair (the middle one by its end-to-end speedup: with an odd count of pairs
 * its speedup is their median, and the report's split and timeline show that very pair). */
export function pairs(runs) {
  const list = runs.target.map((target, i) => {
    const speculative = runs.speculative[i];
    return { target, speculative, endToEnd: perToken(target, "total") / perToken(speculative, "total"),
      model: perToken(target, "model") / perToken(speculative, "model") };
  });
  const order = list.map((_, i) => i).sort((a, b) => list[a].endToEnd - list[b].endToEnd);
  return { list, middle: list[order[(list.length - 1) >> 1]] };
}

/** The measured figures shown in the report: c and v(k) from the samples (block medians), the speedups and rates
 * from the verdict's runs (medians over the pairs, with min–max), α and tokens per forward from the shown run. */
export function figures(samples, facts) {
  const each = (fn) => spread(samples.map(fn));
  const targetMs = median(samples.map((s) => s.target));
  const draftMs = median(samples.map((s) => s.draft));
  const verifyMs = median(samples.map((s) => s.verify));
  const p = pairs(facts.runs);
  const over = (fn) => spread(p.list.map(fn));
  const rate = (side, key) => over((x) => 1000 / perToken(x[side], key));
  const rates = { targetPerSecond: rate("target", "total"), speculativePerSecond: rate("speculative", "total"),
    targetPerSecondModel: rate("target", "model"), speculativePerSecondModel: rate("speculative", "model") };
  return {
    n: samples.length, k: facts.k, runs: p.list.length,
    targetMs, draftMs, verifyMs,
    c: draftMs / targetMs, v: verifyMs / targetMs,
    speedupEndToEnd: p.middle.endToEnd,
    speedupModel: median(p.list.map((x) => x.model)),
    middle: p.middle,
    perSecond: {
      target: { model: rates.targetPerSecondModel.median, endToEnd: rates.targetPerSecond.median },
      speculative: { model: rates.speculativePerSecondModel.median, endToEnd: rates.speculativePerSecond.median },
    },
    spread: {
      targetMs: each((s) => s.target), draftMs: each((s) => s.draft), verifyMs: each((s) => s.verify),
      c: each((s) => s.draft / s.target), v: each((s) => s.verify / s.target),
      speedupEndToEnd: over((x) => x.endToEnd), speedupModel: over((x) => x.model), ...rates,
    },
    accepted: facts.accepted, tested: facts.tested, alpha: facts.tested ? facts.accepted / facts.tested : null,
    tokensPerTargetForward: facts.generated / facts.targetForwards,
  };
}
