// E6's figures from its timed samples: one pure module that both sides import, the worker for a run's first
// report and the page when 再测一次 adds samples, so that the figures shown are always computed the one way.
//
// A sample is one round of the measuring phase (timing.mjs): {target, draft, verify}, each the ms per call of one
// block of repeated calls (the target's one-position forward, the draft's, the target's k + 1-position verify).
// The run's facts are what the two decoding runs counted and their wall clocks (engine.mjs runFacts).
//
// The point figures are the block medians and what follows from them, the lesson's accounting (README, E5):
//   c = draft ÷ target,  v(k) = verify ÷ target,
//   speculative model ms per token = (draft forwards · draft + target forwards · verify) ÷ tokens written,
//   speedup on model time = target ÷ that = tokens per round ÷ (k·c + v(k)) (one verify and k drafts a round);
// their spread is the min–max (the report shows it; the quartiles are kept too) of the same figure worked out round
// by round, each round's three blocks having run one after the other. Min–max, not quartiles: over 9 rounds two
// runs' quartiles miss each other now and then by chance alone (tests/e6_timing.mjs), their ranges do not. End to end the figures come from the runs' own wall clocks (long: tens
// to hundreds of ms, well above the clock's step), one value each.

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

/** Speculative model ms per token from one draft and one verify time, with the run's forward counts. */
function speculativeMs(facts, draftMs, verifyMs) {
  return (facts.draftForwards * draftMs + facts.targetForwards * verifyMs) / facts.generated;
}

/** The measured figures shown in the report: from the samples and the run's facts. */
export function figures(samples, facts) {
  const each = (fn) => spread(samples.map(fn));
  const targetMs = median(samples.map((s) => s.target));
  const draftMs = median(samples.map((s) => s.draft));
  const verifyMs = median(samples.map((s) => s.verify));
  const specMs = speculativeMs(facts, draftMs, verifyMs);
  const wall = facts.wall;
  return {
    n: samples.length, k: facts.k,
    targetMs, draftMs, verifyMs,
    c: draftMs / targetMs, v: verifyMs / targetMs,
    speedupModel: targetMs / specMs,
    speedupEndToEnd: (wall.target.ms / wall.target.tokens) / (wall.speculative.ms / wall.speculative.tokens),
    perSecond: {
      target: { model: 1000 / targetMs, endToEnd: (1000 * wall.target.tokens) / wall.target.ms },
      speculative: { model: 1000 / specMs, endToEnd: (1000 * wall.speculative.tokens) / wall.speculative.ms },
    },
    spread: {
      targetMs: each((s) => s.target), draftMs: each((s) => s.draft), verifyMs: each((s) => s.verify),
      c: each((s) => s.draft / s.target), v: each((s) => s.verify / s.target),
      speedupModel: each((s) => s.target / speculativeMs(facts, s.draft, s.verify)),
      targetPerSecond: each((s) => 1000 / s.target),
      speculativePerSecond: each((s) => 1000 / speculativeMs(facts, s.draft, s.verify)),
    },
    accepted: facts.accepted, tested: facts.tested, alpha: facts.tested ? facts.accepted / facts.tested : null,
    tokensPerTargetForward: facts.generated / facts.targetForwards,
  };
}
