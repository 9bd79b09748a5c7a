// E6 explains the reader's own run (issue 24): the regime of its verifying forward (on its measured roof), whether
// the roofline's v(k) agrees with the measured one, c against the parameter ratio, v(k) against its two ends 1 and
// k + 1, a timeline of one round beside target-only's strip, why end to end differs from model time, and the build
// machine's figures side by side. The words are the page's (docs/index.md, E6's <div data-words>, every wording
// written there); this module decides which and works out the numbers (sayings), each the run's or the payload's:
// the reader's medians (report.js), the run's sampler time, c13.json → models (sizes) and measured.json through the
// payload (e5_costs).
import { el, fixed, fromMarkup, ms, say, sayTable, uid } from "../c13-util.js";
import { forwardBounds, forwardCost, roofTime } from "../figures/roofline.mjs";
import { roundTimeline } from "../figures/round_timeline.mjs";

/** Per round and per token, the median pair's time in sampler.py (each decision is a Python call) and all it spent
 * besides its forwards (the decisions and the rest of the loop): {round, token, roundBesides, tokenBesides} in ms. */
export function samplerTimes(result) {
  const { target: t, speculative: s } = result.measured.middle;
  const per = (ms, n) => (n > 0 ? ms / n : 0);
  return { round: per(s.sampler, s.rounds), token: per(t.sampler, t.tokens),
    roundBesides: per(s.total - s.model, s.rounds), tokenBesides: per(t.total - t.model, t.tokens) };
}

/** The speed verdict from the pairs' end-to-end speedups (spread: min, median, max): faster when every pair was
 * faster, slower when every pair was slower, else same (1× lies within their spread). The values are those of the
 * reader's guess (question.js GUESSES). */
export const speedVerdict = (s) => (s.min > 1 ? "faster" : s.max < 1 ? "slower" : "same");

/** The reader's guess (made before the run) against the verdict: yes, no, or none (no guess recorded). */
export const guessRight = (guess, speed) => (guess ? (guess === speed ? "yes" : "no") : "none");

/** The prediction (E[N] ÷ (k·c + v(k)) with the reader's block-timed costs) against the runs: fits when it lies
 * within the pairs' end-to-end spread; else by how much (gap = predicted ÷ measured) and the larger cause: the
 * decisions and the rest of the loop (end to end against the forwards' own time in the same runs) or the forwards
 * (their time in the runs against the prediction). */
export function predictionCheck(predicted, endToEnd, model) {
  const fits = predicted >= endToEnd.min && predicted <= endToEnd.max;
  const besides = Math.abs(Math.log(endToEnd.median / model)), forwards = Math.abs(Math.log(model / predicted));
  return { fits, gap: predicted / endToEnd.median, cause: besides >= forwards ? "besides" : "forwards" };
}

/** The regime of the target's forward of `positions` (k + 1: the verifying one) on the reader's roof (report.js's):
 * the two lower bounds (reading the weights, the arithmetic), the larger, and the measured time over the roof's. */
export function regime(roof, targetModel, positions, context, measuredMs) {
  const cost = forwardCost(targetModel, positions, context), roofMs = roofTime(roof, cost);
  return { ...forwardBounds(roof, cost), positions, roofMs, measuredMs, overRoof: measuredMs / roofMs };
}

/** The regime paragraph's two decisions and their numbers (thresholds: widgets/thresholds.json via the payload):
 * overhead (measured ≥ overhead_bound × the roof's time), agrees (|predicted − measured v| ≤ roof_agrees × measured). */
export function roofVerdict(r, predictedV, measuredV, thresholds) {
  const gap = Math.abs(predictedV - measuredV) / measuredV;
  return { overhead: r.overRoof >= thresholds.overhead_bound, agrees: gap <= thresholds.roof_agrees, gap,
    overRoof: r.overRoof, predictedV, measuredV };
}

/** What the explanation says, as values for the page's words (docs/index.md, E6's <div data-words>: every wording
 * there, the blanks and picks named after these keys). Decisions: speed (speedVerdict), guess_right, prediction_fits and
 * gap_cause (predictionCheck), forwards_slower (the forwards' speedup in the runs below the prediction), bound and
 * bound_one ('compute' or 'bandwidth', on the reader's roof at k + 1 positions and at one), overhead and agrees
 * (roofVerdict), roof_c_known,
 * c_case ('far_above', 'far_below' or 'scales': c against the parameter ratio by thresholds.far_above), v_where
 * ('below' 1, 'above' k + 1 or 'between'), sampler_longer (a token's decisions longer than a target forward). */
export function sayings(result, k, ratio, r, verdict, roofC, times, opts) {
  const m = result.measured, s = result.speculative, far = opts.thresholds.far_above;
  const generated = s.generated ?? s.tokens.length;
  const e2e = m.spread.speedupEndToEnd;
  const check = predictionCheck(opts.predictedOwn, e2e, m.speedupModel);
  return {
    runs: m.runs, speedup: m.speedupEndToEnd, speedup_min: e2e.min, speedup_max: e2e.max,
    speed: speedVerdict(e2e), guess_right: guessRight(opts.guess, speedVerdict(e2e)),
    speedup_forwards: m.speedupModel, predicted: opts.predictedOwn,
    prediction_fits: check.fits, prediction_gap: check.gap, gap_cause: check.cause,
    forwards_slower: m.speedupModel < opts.predictedOwn,
    k, positions: k + 1, c: m.c, v: m.v, ratio, far, roof_c: roofC, roof_c_known: roofC !== null,
    c_over_ratio: m.c / ratio, c_case: m.c >= far * ratio ? "far_above" : m.c <= ratio / far ? "far_below" : "scales",
    v_where: m.v < 1 ? "below" : m.v > k + 1 ? "above" : "between", v_share: (m.v - 1) / k,
    within: opts.thresholds.roof_agrees,
    ...(r && { bound: r.bound, memory_ms: r.memoryMs, compute_ms: r.computeMs, measured_ms: r.measuredMs,
      over_roof: r.overRoof, overhead: verdict.overhead, agrees: verdict.agrees, predicted_v: verdict.predictedV,
      bound_one: r.one.bound, memory_ms_one: r.one.memoryMs, compute_ms_one: r.one.computeMs,
      measured_ms_one: r.one.measuredMs }),
    vocab: opts.vocab, target_ms: m.targetMs, sampler_token_ms: times.token, sampler_round_ms: times.round,
    sampler_longer: times.token >= m.targetMs, sampler_share: times.token / m.targetMs,
    round_tokens: generated / s.rounds, generated, n_new: result.nNew, extra: generated - result.nNew,
  };
}

/** The build machine beside the reader: the payload's e5_costs (measured.json), torch and E6's WebAssembly in Node.
 * The caption, the heads (量, then the reader, the WebAssembly and the torch columns) and the row names are the
 * page's (side_table). */
function sideBySide(result, k, ratio, costs, box) {
  if (!costs || costs.reason) {
    return el("p", { class: "c13-e6-build-missing", text: `构建机的数字这里没法并排：${costs?.reason ?? "页面没有带上构建机的实测。"}` });
  }
  const m = result.measured, i = costs.ks.indexOf(k), d = result.draft;
  const machines = [["reader", { targetMs: m.targetMs, c: m.c, v: m.v }],
    ...[["wasm", costs.wasm], ["torch", costs.torch]].filter(([, e]) => e)
      .map(([key, e]) => [key, { targetMs: e.targetMs, c: e.c[d], v: e.v[i] }, e.where])];
  const cell = (v, f) => (typeof v === "number" && Number.isFinite(v) ? f(v) : "—");
  const rows = [["target-ms", (x) => cell(x.targetMs, ms)], ["c", (x) => cell(x.c, (v) => fixed(v, 3))],
    ["ratio", () => fixed(ratio, 3)], ["v", (x) => cell(x.v, (v) => fixed(v, 2))]];
  const words = sayTable(box, "side_table", { draft: d, k }, rows.length, 4); // 量, the reader, WebAssembly, torch
  const head = Object.fromEntries(["reader", "wasm", "torch"].map((key, j) => [key, words.head[j + 1]]));
  const date = costs.torch?.wallClock.split("，").at(-1);
  const where = machines.slice(1).map(([key, , w]) => `“${head[key]}”指${w}`).join("；") + (date ? `；测于 ${date}` : "");
  return [el("div", { class: "c13-scroll c13-e6-table c13-e6-side", tabindex: 0, role: "region",
    "aria-label": words.caption }, el("table", null,
    el("caption", { text: words.caption }),
    el("thead", null, el("tr", null, el("th", { scope: "col", text: words.head[0] }),
      machines.map(([key]) => el("th", { scope: "col", "data-machine": key, text: head[key] })))),
    el("tbody", null, rows.map(([key, f], j) => el("tr", { "data-row": key },
      el("th", { scope: "row", text: words.labels[j] }),
      machines.map(([machine, x]) => el("td", { "data-machine": machine, text: f(x) }))))))),
  el("p", { class: "c13-e6-side-where", text: `${where}。` })];
}

/** The nodes of the explanation and the figures they show (for the report's dataset). opts: {models (payload:
 * name → {parameters}), costs (payload e5_costs), vocab, reader (the reader's roof report.js drew, or null),
 * roofModels (result.roof.models: modelFigures of target and draft), predictedV (the roofline's v(k), or null),
 * predictedOwn (E[N] ÷ (k·c + v(k)) with the reader's costs), guess (the reader's, or null), thresholds (the payload's, widgets/thresholds.json: name → value)}. */
export function explainRun(result, k, opts) {
  const m = result.measured;
  const ratio = opts.models[result.draft].parameters / opts.models[opts.target].parameters;
  const times = samplerTimes(result);
  const context = result.timing.positions;
  const reader = opts.reader, models = opts.roofModels;
  const timed = reader && Number.isFinite(m.verifyMs) && Number.isFinite(opts.predictedV);
  const r = timed ? { ...regime(reader, models.target, k + 1, context, m.verifyMs),
    one: regime(reader, models.target, 1, context, m.targetMs) } : null;
  const verdict = r ? roofVerdict(r, opts.predictedV, m.v, opts.thresholds) : null;
  const roofOne = (model) => roofTime(reader, forwardCost(model, 1, context));
  const roofC = reader ? roofOne(models.draft) / roofOne(models.target) : null;
  const values = sayings(result, k, ratio, r, verdict, roofC, times, opts);
  // the timeline is the median pair's (the verdict's): each part its mean per round, or per token for the target
  const { target: t, speculative: s } = m.middle;
  const said = (name, cls) => say(opts.box, name, values, cls);
  const timeline = { k, tokens: s.tokens / s.rounds, draftMs: s.draft / s.draftForwards,
    verifyMs: s.target / s.targetForwards, targetMs: t.target / t.targetForwards, samplerRoundMs: times.roundBesides,
    samplerTokenMs: times.tokenBesides };
  const caption = said("timeline", "");
  const nodes = [
    el("h4", { text: "读懂你的这次运行" }),
    said("speed", "c13-e6-speed-verdict"),
    said(r ? "regime" : "no_roof", "c13-e6-regime"),
    said("c", "c13-e6-c"),
    said("v", "c13-e6-v"),
    el("figure", { class: "c13-fig c13-e6-timeline" }, fromMarkup(roundTimeline({ id: uid("e6-tl"), ...timeline })),
      el("figcaption", null, ...caption.childNodes)),
    said("end_to_end", "c13-e6-end-to-end"),
    ...(values.extra > 0 ? [said("overshoot", "c13-e6-overshoot")] : []),
    ...[sideBySide(result, k, ratio, opts.costs, opts.box)].flat(),
  ];
  return { nodes, data: { draft: result.draft, regime: r?.bound ?? "", overheadBound: verdict ? String(verdict.overhead) : "",
    roofAgrees: verdict ? String(verdict.agrees) : "", regimePositions: r?.positions ?? "", regimeMemoryMs: r?.memoryMs ?? "",
    regimeComputeMs: r?.computeMs ?? "", overRoof: r?.overRoof ?? "", paramRatio: ratio,
    roofC: roofC ?? "", samplerRoundMs: times.round, samplerTokenMs: times.token, roundTokens: values.round_tokens,
    speed: values.speed, predictionFits: String(values.prediction_fits), gapCause: values.gap_cause,
    regimeOne: r?.one.bound ?? "", stripSpeculativeMs: s.total / s.rounds,
    stripTargetMs: (t.total / t.tokens) * (s.tokens / s.rounds), tlDraftMs: timeline.draftMs,
    tlVerifyMs: timeline.verifyMs, tlTargetMs: timeline.targetMs, tlRoundBesidesMs: timeline.samplerRoundMs,
    tlTokenBesidesMs: timeline.samplerTokenMs, tlTokens: timeline.tokens,
    overshoot: Math.max(values.extra, 0) } };
}
