// E6 explains the reader's own run (issue 24): the regime of its verifying forward (on its measured roof), whether
// the roofline's v(k) agrees with the measured one, c against the parameter ratio, v(k) against its two ends 1 and k + 1, a timeline of one round beside target-only's
// strip, why end to end differs from model time, and the build machine's figures side by side. Every figure here
// is the run's or the payload's: the reader's medians (report.js), the run's sampler time, c13.json → models (sizes)
// and measured.json through the payload (e5_costs).
import { el, fixed, fromMarkup, ms, num, pct, times, uid } from "../c13-util.js";
import { forwardBounds, forwardCost, roofTime } from "../figures/roofline.mjs";
import { roundTimeline } from "../figures/round_timeline.mjs";

/** Per round and per token, the run's time in sampler.py: {round, token} in ms (each decision is a Python pass). */
export function samplerTimes(result) {
  const s = result.speculative, t = result.target;
  return { round: s.rounds > 0 ? s.ms.sampler / s.rounds : 0, token: t.forwards > 0 ? t.ms.sampler / t.forwards : 0 };
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

function regimeText(r, verdict, m, k, thresholds) {
  const bounds = `你的机器属于哪一种：按你测出的带宽和峰值，目标验 k + 1 = ${k + 1} 个位置的一次前向，读一遍权重至少要 ` +
    `${ms(r.memoryMs)}，做完运算至少要 ${ms(r.computeMs)}，` + (r.bound === "compute"
    ? "算比读慢，按屋顶线它受算力所限：多验一个位置就要多算一份。"
    : "读比算慢，按屋顶线它受带宽所限（和锚点一样）：多验几个位置几乎不多花时间。");
  const measured = verdict.overhead
    ? `但实测的这次前向是 ${ms(r.measuredMs)}，是这个下限的 ${fixed(r.overRoof, 1)} 倍：带宽和算力都没用满，` +
      "时间主要花在屋顶线不计的地方（逐层的调用、注意力和归一化这类小运算、等数据），所以它实际上受开销所限。"
    : `实测的这次前向是 ${ms(r.measuredMs)}，是这个下限的 ${fixed(r.overRoof, 1)} 倍，离它不远。`;
  const within = pct(thresholds.roof_agrees, 0);
  const predicted = `屋顶线预测 v(${k}) = ${fixed(verdict.predictedV, 2)}，实测是 ${fixed(m.v, 2)}，` + (verdict.agrees
    ? `相差不到 ${within}：在这台机器上，屋顶线把 v(k) 说得准。`
    : `相差超过 ${within}：屋顶线说不准这里的 v(k)。它只给每次前向一个下限，验 ${k + 1} 个位置和只算 1 个位置的前向` +
      "离各自的下限远近不同，两者的比值就偏了。");
  // the verdict is the measured wall clock (model time) of the speedup table, and says so (data-kind)
  return [bounds + measured + predicted + `在你的机器上，只算模型时间，投机解码${m.speedupModel >= 1 ? "快了" : "反而慢了"}（`,
    el("span", { "data-kind": "wall-clock", text: times(m.speedupModel) }), "，实测墙钟，见上面的加速表）。"];
}

function cText(m, ratio, roofC, thresholds) {
  const against = roofC === null ? "" : `，屋顶线按你的机器预测的是 ${fixed(roofC, 3)}`;
  const far = thresholds.far_above;
  const why = m.c >= far * ratio
    ? `实测的 c 是参数比的 ${fixed(m.c / ratio, 1)} 倍：草稿小，它的前向里不随参数变少的固定开销（每层的调用、` +
      "小运算）占的份额更大。"
    : m.c <= ratio / far
      ? "实测的 c 比参数比还小得多：这次计时里草稿的前向格外顺（它的权重更小，更容易留在缓存里），也可能是计时的波动。"
      : `实测的 c 是参数比的 ${fixed(m.c / ratio, 1)} 倍，不到 ${fixed(far, 0)} 倍：这里的前向时间大致跟参数一起缩放。`;
  return `c = ${fixed(m.c, 3)}：草稿一次前向的时间是目标的 ${pct(m.c)}。正文的公式用参数比 ${fixed(ratio, 3)}${against}。${why}`;
}

function vText(v, k) {
  const share = (v - 1) / k;
  const where = v < 1
    ? "比一次前向还快，这是计时的波动：两者其实差不多。"
    : v > k + 1
      ? "比一个一个地算还慢。"
      : `在两者之间：多验的每个位置平均付了一个位置的 ${pct(share, 0)}。`;
  return `v(${k}) = ${fixed(v, 2)}：验 ${k + 1} 个位置花的时间是验 1 个位置的 ${fixed(v, 2)} 倍。它有两个端点：1，` +
    `读权重是瓶颈、多验的位置白送（正文的假设 v = 1）；k + 1 = ${k + 1}，每个位置都付全价，和目标一个一个写一样。你的机器${where}`;
}

function endToEndText(times, m, k, vocab) {
  const than = times.token >= m.targetMs ? `比目标一次前向（${ms(m.targetMs)}）还长` : `是目标一次前向（${ms(m.targetMs)}）的 ` +
    `${pct(times.token / m.targetMs, 0)}`;
  return `端到端为什么和“只算模型时间”不同：每个 token 的判定是 sampler.py 对一行 ${num(vocab)} 个概率在 Python 里走一遍` +
    `（先把这一行从 JavaScript 交给 WebAssembly 里的 Python）。在你的机器上，目标单独写时每个 token 的判定花 ` +
    `${ms(times.token)}，${than}；投机解码每轮要判定 k + 1 = ${k + 1} 行，平均一轮 ${ms(times.round)}。` +
    "公式只数前向，所以和预测对应的是“只算模型时间”那一行；真正的推理服务把抽样也放在加速器上，和前向相比几乎不花时间。" +
    "另外，计时段里同一种前向连着跑，缓存是热的；两次运行里前向之间夹着判定，前向往往慢一些。";
}

/** The build machine beside the reader: the payload's e5_costs (measured.json), torch and E6's WebAssembly in Node. */
function sideBySide(result, k, ratio, costs) {
  if (!costs || costs.reason) {
    return el("p", { class: "c13-e6-build-missing", text: `构建机的数字这里没法并排：${costs?.reason ?? "页面没有带上构建机的实测。"}` });
  }
  const m = result.measured, i = costs.ks.indexOf(k), d = result.draft;
  const heads = { wasm: "构建机：WebAssembly", torch: "构建机：torch" };
  const machines = [["reader", "你的机器（浏览器）", { targetMs: m.targetMs, c: m.c, v: m.v }],
    ...[["wasm", costs.wasm], ["torch", costs.torch]].filter(([, e]) => e)
      .map(([key, e]) => [key, heads[key], { targetMs: e.targetMs, c: e.c[d], v: e.v[i] }, e.where])];
  const cell = (v, f) => (typeof v === "number" && Number.isFinite(v) ? f(v) : "—");
  const rows = [["target-ms", `目标一次前向（1 个位置）`, (x) => cell(x.targetMs, ms)],
    ["c", `c（${d}）`, (x) => cell(x.c, (v) => fixed(v, 3))], ["ratio", "参数比", () => fixed(ratio, 3)],
    ["v", `v(${k})`, (x) => cell(x.v, (v) => fixed(v, 2))]];
  const date = costs.torch?.wallClock.split("，").at(-1);
  const where = machines.slice(1).map(([, head, , w]) => `“${head}”指${w}`).join("；") + (date ? `；测于 ${date}` : "");
  return [el("div", { class: "c13-scroll c13-e6-table c13-e6-side", tabindex: 0, role: "region",
    "aria-label": "你的机器和构建机并排" }, el("table", null,
    el("caption", { text: "你的机器和构建机并排（同样的模型；构建机是 make measure 的实测中位数）" }),
    el("thead", null, el("tr", null, el("th", { scope: "col", text: "量" }),
      machines.map(([key, name]) => el("th", { scope: "col", "data-machine": key, text: name })))),
    el("tbody", null, rows.map(([key, name, f]) => el("tr", { "data-row": key }, el("th", { scope: "row", text: name }),
      machines.map(([machine, , x]) => el("td", { "data-machine": machine, text: f(x) }))))))),
  el("p", { class: "c13-e6-side-where", text: `${where}。` })];
}

/** The overshoot of the last round, when speculative wrote more than asked for. */
function overshootText(result) {
  const s = result.speculative, generated = s.generated ?? s.tokens.length;
  if (!(generated > result.nNew)) return null;
  return `投机解码一共写了 ${num(generated)} 个 token，比要的 ${num(result.nNew)} 个多 ${num(generated - result.nNew)} 个：` +
    "最后一轮一次写出不止一个，越过了要的数目。多出的上面不显示，但它们是这几次目标前向实实在在的产出，所以算进了“每次目标前向产出的 token”。";
}

/** The nodes of the explanation and the figures they show (for the report's dataset). opts: {models (payload:
 * name → {parameters}), costs (payload e5_costs), vocab, reader (the reader's roof report.js drew, or null),
 * roofModels (result.roof.models: modelFigures of target and draft), predictedV (the roofline's v(k), or null),
 * thresholds (the payload's, widgets/thresholds.json: name → value)}. */
export function explainRun(result, k, opts) {
  const m = result.measured, s = result.speculative;
  const ratio = opts.models[result.draft].parameters / opts.models[opts.target].parameters;
  const times = samplerTimes(result);
  const context = result.timing.positions;
  const reader = opts.reader, models = opts.roofModels;
  const timed = reader && Number.isFinite(m.verifyMs) && Number.isFinite(opts.predictedV);
  const r = timed ? regime(reader, models.target, k + 1, context, m.verifyMs) : null;
  const verdict = r ? roofVerdict(r, opts.predictedV, m.v, opts.thresholds) : null;
  const roofOne = (model) => roofTime(reader, forwardCost(model, 1, context));
  const roofC = reader ? roofOne(models.draft) / roofOne(models.target) : null;
  const tokens = (s.generated ?? s.tokens.length) / s.rounds;
  const timeline = { k, tokens, draftMs: m.draftMs, verifyMs: m.verifyMs, targetMs: m.targetMs,
    samplerRoundMs: times.round, samplerTokenMs: times.token };
  const overshoot = overshootText(result);
  const nodes = [
    el("h4", { text: "读懂你的这次运行" }),
    el("p", { class: "c13-e6-regime" }, ...(r ? regimeText(r, verdict, m, k, opts.thresholds)
      : ["没有测出你的机器的屋顶线，这里没法判断它的前向受带宽还是受算力所限。"])),
    el("p", { class: "c13-e6-c", text: cText(m, ratio, roofC, opts.thresholds) }),
    el("p", { class: "c13-e6-v", text: vText(m.v, k) }),
    el("figure", { class: "c13-fig c13-e6-timeline" }, fromMarkup(roundTimeline({ id: uid("e6-tl"), ...timeline })),
      el("figcaption", { text: `一轮的时间花在哪：前向用计时段的中位数，判定用这次运行里 sampler.py 的实际用时（每轮、每个 token ` +
        `的平均）。上面一条是投机解码的一轮，平均写 ${fixed(tokens, 2)} 个 token；下面一条是目标单独写同样多的 token。` }),
    ),
    el("p", { class: "c13-e6-end-to-end", text: endToEndText(times, m, k, opts.vocab) }),
    ...(overshoot ? [el("p", { class: "c13-e6-overshoot", text: overshoot })] : []),
    ...[sideBySide(result, k, ratio, opts.costs)].flat(),
  ];
  return { nodes, data: { draft: result.draft, regime: r?.bound ?? "", overheadBound: verdict ? String(verdict.overhead) : "",
    roofAgrees: verdict ? String(verdict.agrees) : "", regimePositions: r?.positions ?? "", regimeMemoryMs: r?.memoryMs ?? "",
    regimeComputeMs: r?.computeMs ?? "", overRoof: r?.overRoof ?? "", paramRatio: ratio,
    roofC: roofC ?? "", samplerRoundMs: times.round, samplerTokenMs: times.token, roundTokens: tokens,
    overshoot: overshoot ? (s.generated ?? s.tokens.length) - result.nNew : 0 } };
}

