// The reader's own measurements after an E6 run: which forward ran and how it was timed; c, v(k), α and tokens
// per target forward; tokens per second; the time split into target forwards, draft forwards, acceptance (Python)
// and the rest of the loop; the measured speedups (the two loops run again in turn: end to end, and the forwards'
// own time within the same runs) beside the predictions from the reader's c and v(k) (E[N] ÷ (k·c + v(k)),
// widgets/figures/speedup.mjs) and from the lesson's formula (c = the parameter ratio, v = 1, with the body's α at
// T = 1, this run's at T = 0). c and v(k) are medians over the measuring phase's samples (spread.mjs, which the
// worker used too); 再测一次 adds samples to them. Each speed cell carries its kind (data-kind). Then what the run means
// (explain.js: regime, c, v(k), a round's timeline, end to end, the build machine beside it) and the roofline.
import { el, fill, fixed, fromMarkup, ms, num, pct, say, sayTable, times, uid } from "../c13-util.js";
import { ROOFLINE_MODEL, anchorRoof, forwardCost, predictedV, rate, roofTime, rooflineFigure, runPoints }
  from "../figures/roofline.mjs";
import { measuredSpeedup } from "../figures/speedup.mjs";
import { explainRun } from "./explain.js";
import { figures } from "./spread.mjs";

// the forward that ran, by its kernel and, for WebAssembly, the build of forward.wat (forwards.mjs `simd`)
const KERNELS = { "wasm-simd128": { standard: "WebAssembly SIMD（128 位）",
  relaxed: "WebAssembly SIMD（128 位，relaxed SIMD 的融合乘加）" }, js: "JavaScript" };
const kernelName = (kernel, simd) => {
  const name = KERNELS[kernel] ?? kernel ?? KERNELS.js;
  return typeof name === "string" ? name : name[simd] ?? name.standard;
};

/** A table of the report: its caption, column heads and row names are the page's (`name`, docs/lab.md, filled with
 * `values`: c13-util.js sayTable), its rows [key, ...cells] this module's, in the page's order of row names. */
function table(box, name, values, rows, cls, kinds = {}) {
  const words = sayTable(box, name, values, rows.length, rows[0].length);
  // no class on the table itself: the theme styles plain tables (.md-typeset table:not([class])); the box scrolls
  // a table too wide for a phone, so the keyboard reaches it (tabindex) and it has a name
  return el("div", { class: `c13-scroll c13-e6-table ${cls}`, tabindex: 0, role: "region", "aria-label": words.caption },
    el("table", null,
    el("caption", { text: words.caption }),
    el("thead", null, el("tr", null, words.head.map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", null, rows.map(([key, ...cells], i) => el("tr", { "data-row": key },
      el("th", { scope: "row", text: words.labels[i] }),
      cells.map((c) => el("td", { text: c, "data-kind": kinds[key] ?? kinds.all })))))));
}

// what each speedup row is (formats.mjs SPEED_KINDS)
const SPEED_ROW_KINDS = { model: "wall-clock", "end-to-end": "wall-clock", own: "formula-measured", lesson: "formula" };

const msOr = (v) => (typeof v === "number" && Number.isFinite(v) ? ms(v) : "—");
const perSecond = (v) => num(Math.round(v));

/** "min–max" of a spread in the format `f`, or — (a count, or no samples). */
function range(s, f) {
  return s ? `${f(s.min)}–${f(s.max)}` : "—";
}

/** Whose α the lesson's formula takes: the body's (its runs sample at T = 1) for a T = 1 run; the body has no
 * T = 0 α, so a T = 0 run's own. */
export const lessonAlphaSource = (temperature) => (temperature === 1 ? "body" : "run");

/** The page's predictions: from the reader's α, c and v(k); the lesson's formula (c = parameter ratio, v = 1, α by
 * lessonAlphaSource). */
export function predictions(m, k, body, temperature) {
  const alpha = lessonAlphaSource(temperature) === "body" ? body.alpha : m.alpha;
  return { own: measuredSpeedup(m.alpha, m.c, k, m.v), lesson: measuredSpeedup(alpha, body.c, k, 1), lessonAlpha: alpha };
}

/** The samples of a 再测一次 added to the result's: the figures recomputed over all of them (spread.mjs). */
export function addSamples(result, timing) {
  const samples = [...result.timing.samples, ...timing.samples];
  const blocks = [...result.timing.blocks, ...timing.blocks];
  const merged = { ...result.timing, samples, blocks, step: timing.step, minBlockMs: timing.minBlockMs };
  return { ...result, timing: merged, measured: figures(samples, result.facts) };
}

/** Which forward ran, how it was timed, and how many samples the figures below are over (the page's words). */
function method(result, box) {
  const t = result.timing;
  return say(box, "method", { kernel: kernelName(result.kernel, result.simd), kernel_noted: Boolean(result.kernelNote),
    kernel_note: result.kernelNote ?? "", step: t.step, min_block_ms: trimMs(t.minBlockMs), positions: result.k + 1,
    n: result.measured.n, calls: t.blocks.reduce((sum, b) => sum + b.calls, 0), context: t.positions },
  "c13-e6-method");
}

const trimMs = (v) => String(Number(v.toPrecision(3)));

function tables(result, k, target, p, box) {
  const m = result.measured;
  const s = result.speculative;
  const sp = m.spread;
  const generated = s.generated ?? s.tokens.length; // the last round may write past nNew: all count per forward
  const runs = m.runs, mid = m.middle;
  const values = { n: m.n, target, draft: result.draft, k, positions: k + 1, runs,
    lesson_alpha: lessonAlphaSource(result.temperature) };
  const costs = table(box, "costs_table", values, [
    ["target-ms", ms(m.targetMs), range(sp.targetMs, ms)],
    ["draft-ms", ms(m.draftMs), range(sp.draftMs, ms)],
    ["c", fixed(m.c, 3), range(sp.c, (x) => fixed(x, 3))],
    ["verify-ms", msOr(m.verifyMs), range(sp.verifyMs, ms)],
    ["v", fixed(m.v, 2), range(sp.v, (x) => fixed(x, 2))],
    ["alpha", `${pct(m.alpha)}（${num(m.accepted)} / ${num(m.tested)}）`, "—"],
    ["per-forward", `${fixed(m.tokensPerTargetForward, 2)}（${num(generated)} ÷ ${num(s.targetForwards)}）`, "—"],
  ], "c13-e6-costs");
  const rate = table(box, "rate_table", values, [
    ["target", perSecond(m.perSecond.target.endToEnd), range(sp.targetPerSecond, perSecond),
      perSecond(m.perSecond.target.model)],
    ["speculative", perSecond(m.perSecond.speculative.endToEnd), range(sp.speculativePerSecond, perSecond),
      perSecond(m.perSecond.speculative.model)],
  ], "c13-e6-rate", { all: "wall-clock" });
  const rest = (r) => r.total - r.model - r.sampler;
  const split = table(box, "split_table", values, [
    ["target", msOr(mid.target.target), msOr(mid.speculative.target)],
    ["draft", "—", msOr(mid.speculative.draft)],
    ["sampler", msOr(mid.target.sampler), msOr(mid.speculative.sampler)],
    ["rest", msOr(rest(mid.target)), msOr(rest(mid.speculative))],
    ["total", msOr(mid.target.total), msOr(mid.speculative.total)],
    ["forwards", num(mid.target.targetForwards), num(mid.speculative.targetForwards)],
  ], "c13-e6-split");
  const speed = table(box, "speed_table", values, [
    ["end-to-end", times(m.speedupEndToEnd), range(sp.speedupEndToEnd, times)],
    ["model", times(m.speedupModel), range(sp.speedupModel, times)],
    ["own", times(p.own), "—"],
    ["lesson", times(p.lesson), "—"],
  ], "c13-e6-speed", SPEED_ROW_KINDS);
  return [costs, rate, split, speed];
}

/** The figures shown, for tests: each is checked against the others and against the run. */
function describe(box, result, p) {
  const m = result.measured;
  const s = result.speculative;
  for (const key of Object.keys(box.dataset)) delete box.dataset[key];
  const ranges = Object.fromEntries(Object.entries(m.spread).flatMap(([key, v]) => [[`${key}Min`, v.min],
    [`${key}Max`, v.max]]));
  Object.assign(box.dataset, ranges, { c: m.c, v: m.v, alpha: m.alpha, accepted: m.accepted, tested: m.tested,
    tokens: s.generated ?? s.tokens.length, targetForwards: s.targetForwards, rounds: s.rounds,
    tokensPerTargetForward: m.tokensPerTargetForward, speedupModel: m.speedupModel,
    speedupEndToEnd: m.speedupEndToEnd, predictedOwn: p.own, predictedLesson: p.lesson, lessonAlpha: p.lessonAlpha,
    runs: m.runs,
    n: m.n, targetMs: m.targetMs, draftMs: m.draftMs, verifyMs: m.verifyMs, kernel: result.kernel ?? "js",
    simd: result.simd ?? "",
    clockStep: result.timing.step, minBlockMs: result.timing.minBlockMs,
    shortestBlockMs: Math.min(...result.timing.blocks.map((b) => b.ms)),
    targetPerSecond: m.perSecond.target.model, speculativePerSecond: m.perSecond.speculative.model,
    targetPerSecondEndToEnd: m.perSecond.target.endToEnd,
    speculativePerSecondEndToEnd: m.perSecond.speculative.endToEnd });
}

/** The reader's roofline (result.roof, measured once per worker: roof.mjs): the picture with the anchor's roof
 * (c13.json → anchor), the build machine's when the payload has it, the reader's; the v(k) it predicts beside the
 * measured one. → {nodes, data} (data: for the report's dataset) */
function roofline(result, k, { anchor, buildRoof }, box) {
  const roof = result.roof;
  if (!roof) return { nodes: [], data: {} };
  if (roof.error) return { nodes: [say(box, "roof_failed", { roof_error: roof.error }, "c13-e6-roof")],
    data: { roofError: roof.error } };
  const bw = roof.bandwidthGBs, peak = roof.peakGflops, m = result.measured, models = roof.models;
  const reader = { key: "reader", name: `你的机器（${roof.kernel === "js" ? "JavaScript" : "WebAssembly SIMD"}，单核）`,
    short: "你的机器", bandwidthGBs: bw.median, peakGflops: peak.median };
  const roofs = [anchor && { ...anchorRoof(anchor), short: "H100" }, buildRoof, reader].filter(Boolean);
  const context = result.timing.positions;
  const points = runPoints({ reader, anchor, models, k, context,
    names: { target: models.target.name, draft: models.draft.name } });
  const v = predictedV(reader, models.target, k, context);
  const oneMs = roofTime(reader, forwardCost(models.target, 1, context));
  const spreadOf = (s, unit) => `${rate(s.median, unit)}（${rate(s.min, unit)}–${rate(s.max, unit)}，n = ${s.n}）`;
  const caption = say(box, "roof_caption", { roofline_model: ROOFLINE_MODEL, build_roof: Boolean(buildRoof) }, "");
  const nodes = [
    el("h4", { text: "你的机器在屋顶线上" }),
    say(box, "roof", { roof_note: roof.note ?? "WebAssembly SIMD", roof_mb: roof.bytes / 1e6,
      bandwidth: spreadOf(bw, "GB/s"), peak: spreadOf(peak, "GFLOP/s") }, "c13-e6-roof"),
    el("figure", { class: "c13-fig c13-e6-roofline" }, fromMarkup(rooflineFigure({ id: uid("e6-roof"), roofs, points })),
      el("figcaption", null, ...caption.childNodes)),
    table(box, "roof_table", { k, positions: k + 1, target: models.target.name }, [
      ["roof-v", fixed(v, 2), `${fixed(m.v, 2)}（${range(m.spread.v, (x) => fixed(x, 2))}）`],
      ["roof-ms", ms(oneMs), ms(m.targetMs)],
    ], "c13-e6-roof-table"),
  ];
  return { nodes, reader, models, predictedV: v, data: { roofBandwidth: bw.median, roofPeak: peak.median, roofPredictedV: v,
    roofRoofs: roofs.length, roofKernel: roof.kernel, roofPoints: points.length } };
}

export function showReport(box, result, options) {
  const k = result.k;
  const p = predictions(result.measured, k, options.accounting[result.draft], result.temperature);
  const roof = roofline(result, k, options, box);
  let explained;
  try {
    explained = explainRun(result, k, { ...options, box, reader: roof.reader ?? null, roofModels: roof.models,
      predictedOwn: p.own,
      predictedV: roof.predictedV ?? null });
  } catch (err) { // the measurements above stay shown; only the explanation is missing, and says why
    explained = { nodes: [el("p", { class: "c13-error c13-e6-explain-failed",
      text: `这次运行的解释没能画出来（${err?.message || err}）：上面的实测不受影响；请按“再测一次”或刷新页面重跑。` })],
    data: { explainError: String(err?.message || err) } };
  }
  fill(box, el("h4", { text: "你的机器上的实测" }), method(result, box), ...tables(result, k, options.target, p, box),
    ...explained.nodes, ...roof.nodes);
  describe(box, result, p);
  Object.assign(box.dataset, roof.data, explained.data);
}
