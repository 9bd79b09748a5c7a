// The roofline of E6 (issue 23): attainable GFLOP/s = min(peak, bandwidth × intensity) against arithmetic
// intensity (FLOP per byte read), both axes logarithmic, one roof per machine — the anchor (the H100 of
// precomputed/anchor-model.json, through c13.json → anchor), the build machine (when measured.json records its
// WebAssembly figures) and the reader's (measured live in the worker, widgets/e6/roof.mjs) — with the forwards of
// the target and the draft placed on the reader's roof at 1 and at k + 1 positions, and the anchor's on its own.
// From the same model, predictedV: the v(k) the reader's roof predicts, beside the measured one in E6's report.
// Pure: data in, SVG text out (two layouts, wide and narrow, text never under 11 px); the worker imports the cost
// model (modelFigures) too.
import { num, trim } from "./formats.mjs";
import { attrs, coord, line, rect, svg, text, twoLayouts } from "./svg.mjs";

/** A model's figures from its config (n_layer, n_embd, vocab_size, block_size), the family of README: tied
 * embeddings, learned positions, weight-only LayerNorms, no biases, MLP 4×. parameters counts every float of the
 * checkpoint (it equals c13.json → models → parameters); matmul counts the weights a position multiplies with:
 * the tied output head (V × C) and per layer qkv, proj, up and down (12 C²). */
export function modelFigures({ n_layer: L, n_embd: C, vocab_size: V, block_size: B }) {
  const matmul = V * C + 12 * L * C * C;
  return { layers: L, width: C, vocab: V, context: B, matmul, parameters: matmul + B * C + 2 * L * C + C };
}

/** One forward over `positions` new positions after `context` ones: FLOPs ≈ 2 per matmul weight per position plus
 * attention (q·k and the weighted sum of v: 4 × context × C per layer per position); bytes = every weight once as
 * float32 (4 × parameters) plus the KV cache it reads (2 × context × C floats per layer). */
export function forwardCost(model, positions, context) {
  const flops = positions * (2 * model.matmul + 4 * context * model.width * model.layers);
  const bytes = 4 * model.parameters + 4 * 2 * context * model.width * model.layers;
  return { positions, flops, bytes, intensity: flops / bytes };
}

/** GFLOP/s a machine attains at intensity I (FLOP/byte): min(peak, bandwidth × I); bandwidth in GB/s. */
export function attainable(roof, intensity) {
  return Math.min(roof.peakGflops, roof.bandwidthGBs * intensity);
}

/** A forward's two lower bounds on a roof, in ms: reading its bytes (memoryMs = bytes ÷ bandwidth) and doing its
 * FLOPs (computeMs = FLOPs ÷ peak); bound: which is larger, "bandwidth" or "compute". */
export function forwardBounds(roof, cost) {
  const memoryMs = cost.bytes / (roof.bandwidthGBs * 1e6), computeMs = cost.flops / (roof.peakGflops * 1e6);
  return { memoryMs, computeMs, bound: computeMs > memoryMs ? "compute" : "bandwidth" };
}

/** The roofline's time of a forward, in ms: the larger of its two bounds. */
export function roofTime(roof, cost) {
  const b = forwardBounds(roof, cost);
  return Math.max(b.memoryMs, b.computeMs);
}

/** v(k) by the roofline: time(k + 1 positions) ÷ time(1 position). */
export function predictedV(roof, model, k, context) {
  return roofTime(roof, forwardCost(model, k + 1, context)) / roofTime(roof, forwardCost(model, 1, context));
}

/** The anchor's roof from c13.json → anchor: bandwidth = bytes read per token ÷ the weight-read time, peak = FLOPs
 * of one position ÷ its compute time (the figures of anchor-model.json the generator derived them from). */
export function anchorRoof(anchor) {
  return { key: "anchor", name: `锚点 ${anchor.hardware}（BF16）`,
    bandwidthGBs: anchor.bytes_read_per_token / anchor.weight_read_ms_per_token / 1e6,
    peakGflops: anchor.flops_per_position / anchor.compute_ms_per_token / 1e6 };
}

/** About 3 significant digits: 295.2 → "295", 31.24 → "31.2", 0.497 → "0.5". */
export function three(v) {
  return v >= 100 ? num(Math.round(v)) : trim(v, v >= 10 ? 1 : 2);
}

/** A rate in the larger unit from 1000 on: 31.24 → "31.2 GB/s", 3350 → "3.35 TB/s", 989000 → "989 TFLOP/s". */
export function rate(value, unit) {
  return value >= 1000 ? `${three(value / 1000)} ${unit.replace(/^G/, "T")}` : `${three(value)} ${unit}`;
}

// the two layouts: the plot's box and the text sizes; the legend goes under the plot in both
const LAYOUTS = {
  wide: { width: 560, left: 50, right: 16, top: 30, plot: 250, small: 11, label: 12, line: 17, columns: 2 },
  narrow: { width: 300, left: 44, right: 10, top: 30, plot: 230, small: 12, label: 13, line: 18, columns: 1 },
};
const ROOF_CLASS = { anchor: "c13-roof-anchor", build: "c13-roof-build", reader: "c13-roof-reader" };
const SHAPES = { target: "circle", draft: "square", anchor: "diamond" };
// where a roof's name sits by the right end of its flat part: the anchor's below it (the plot's top), of the other
// two (which can lie close together) the higher one's above and the lower one's below, clear of both lines
function labelDy(roof, roofs) {
  if (roof.key === "anchor") return 15;
  const others = roofs.filter((r) => r.key !== "anchor" && r !== roof);
  return others.some((r) => r.peakGflops > roof.peakGflops) ? 15 : -5;
}
const SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹";
const COUNT = { 1: "一", 2: "两", 3: "三" };

/** 10^e as a tick label: 0.1, 1, 10, 100, then 10³, 10⁴ … (and 10⁻² … below 0.1). */
export function decade(e) {
  if (e >= -1 && e <= 2) return trim(10 ** e, 1);
  return `10${e < 0 ? "⁻" : ""}${[...String(Math.abs(e))].map((d) => SUPERSCRIPT[d]).join("")}`;
}

/** The decades both axes span: every point, every roof's ridge (peak ÷ bandwidth) and its flat part. */
function ranges(roofs, points) {
  const xs = [...points.map((p) => p.intensity), ...roofs.map((r) => r.peakGflops / r.bandwidthGBs)];
  const xlo = Math.floor(Math.log10(Math.min(...xs) / 2)), xhi = Math.ceil(Math.log10(Math.max(...xs) * 3));
  const ys = [...points.map((p) => p.gflops), ...roofs.map((r) => attainable(r, 10 ** xlo))];
  const ylo = Math.floor(Math.log10(Math.min(...ys) / 1.5));
  const yhi = Math.ceil(Math.log10(Math.max(...roofs.map((r) => r.peakGflops))) - 0.01);
  return { xlo, xhi, ylo, yhi };
}

function frame(L, r) {
  const w = L.width - L.left - L.right, bottom = L.top + L.plot;
  const x = (v) => L.left + ((Math.log10(v) - r.xlo) / (r.xhi - r.xlo)) * w;
  const y = (v) => bottom - ((Math.log10(v) - r.ylo) / (r.yhi - r.ylo)) * L.plot;
  const parts = [];
  for (let e = r.xlo; e <= r.xhi; e++) {
    parts.push(line(x(10 ** e), L.top, x(10 ** e), bottom, "c13-grid"),
      text(x(10 ** e), bottom + 16, decade(e), { cls: "c13-muted", size: L.small }));
  }
  for (let e = r.ylo; e <= r.yhi; e++) {
    parts.push(line(L.left, y(10 ** e), L.left + w, y(10 ** e), "c13-grid"),
      text(L.left - 5, y(10 ** e) + 4, decade(e), { cls: "c13-muted", anchor: "end", size: L.small }));
  }
  parts.push(text(L.left + w / 2, bottom + 34, "算术强度（FLOP / 字节，对数）", { size: L.label }),
    text(L.left - 40, L.top - 12, "GFLOP/s（对数）", { cls: "c13-muted", anchor: "start", size: L.small }));
  const axes = line(L.left, bottom, L.left + w, bottom, "c13-axis") + line(L.left, L.top, L.left, bottom, "c13-axis");
  return { parts, axes, x, y, w, bottom };
}

/** A roof as a polyline over the plot's x range, from where it enters the plot (above its bottom). */
function roofLine(roof, plot, r) {
  const ridge = roof.peakGflops / roof.bandwidthGBs;
  const enter = Math.max(10 ** r.xlo, 10 ** r.ylo / roof.bandwidthGBs);
  const xs = [enter, ...(ridge > enter && ridge < 10 ** r.xhi ? [ridge] : []), 10 ** r.xhi];
  const pts = xs.map((v) => `${coord(plot.x(v))},${coord(plot.y(attainable(roof, v)))}`).join(" ");
  return `<polyline${attrs({ points: pts, class: `c13-roof ${ROOF_CLASS[roof.key]}`, fill: "none" })}/>`;
}

function marker(shape, cx, cy, cls) {
  // the target's circle is a ring round the draft's square: the two forwards sit at nearly the same intensity
  if (shape === "circle") return `<circle${attrs({ cx: coord(cx), cy: coord(cy), r: 6.5, class: cls })}/>`;
  if (shape === "square") return rect(cx - 3.5, cy - 3.5, 7, 7, cls);
  const d = `M${coord(cx)} ${coord(cy - 5.5)}L${coord(cx + 5.5)} ${coord(cy)}` +
    `L${coord(cx)} ${coord(cy + 5.5)}L${coord(cx - 5.5)} ${coord(cy)}Z`;
  return `<path${attrs({ d, class: cls })}/>`;
}

const pointClass = (p) => `c13-roof-pt ${p.positions > 1 ? "c13-roof-pt-many" : "c13-roof-pt-one"}`;

/** The key under the plot: each roof (a line and its two figures), then each point (its marker and intensity). */
function legend(roofs, points, L, top) {
  const out = [];
  let y = top;
  for (const roof of roofs) {
    const figures = `带宽 ${rate(roof.bandwidthGBs, "GB/s")}，峰值 ${rate(roof.peakGflops, "GFLOP/s")}`;
    const ridge = `拐点 ${three(roof.peakGflops / roof.bandwidthGBs)} FLOP/字节`;
    const lines = [roof.name, ...(L.columns > 1 ? [`${figures}，${ridge}`] : [figures, ridge])];
    out.push(line(8, y - 4, 30, y - 4, `c13-roof ${ROOF_CLASS[roof.key]}`), ...lines.map((t, i) =>
      text(36, y + i * L.line, t, { cls: i ? "c13-muted" : "", anchor: "start", size: L.small })));
    y += lines.length * L.line + 4;
  }
  const colWidth = (L.width - 8) / L.columns;
  points.forEach((p, i) => {
    const x = 8 + (i % L.columns) * colWidth, yy = y + Math.floor(i / L.columns) * L.line;
    out.push(marker(SHAPES[p.kind], x + 11, yy - 4, pointClass(p)),
      text(x + 24, yy, `${p.label}：强度 ${three(p.intensity)}`, { anchor: "start", size: L.small }));
  });
  return { body: out.join(""), height: y + Math.ceil(points.length / L.columns) * L.line - top };
}

function describe(roofs, points) {
  return "纵轴是能达到的 GFLOP/s = min(峰值, 带宽 × 算术强度)，横轴是算术强度（FLOP ÷ 读的字节），都取对数。" +
    roofs.map((r) => `${r.name}：带宽 ${rate(r.bandwidthGBs, "GB/s")}，峰值 ${rate(r.peakGflops, "GFLOP/s")}`).join("；") +
    "。" + points.map((p) => `${p.label}：强度 ${three(p.intensity)} FLOP/字节，在屋顶上是 ${rate(p.gflops, "GFLOP/s")}`)
      .join("；") + "。";
}

function drawLayout(args, layout, svgId) {
  const L = LAYOUTS[layout];
  const r = ranges(args.roofs, args.points);
  const plot = frame(L, r);
  const labels = args.roofs.map((roof) => text(plot.x(10 ** r.xhi) - 4,
    plot.y(roof.peakGflops) + labelDy(roof, args.roofs), roof.short ?? roof.name,
    { cls: `c13-strong c13-roof-text ${ROOF_CLASS[roof.key]}-text`, anchor: "end", size: L.small })).join("");
  const marks = `<g class="c13-roof-marks">${args.points.map((p) =>
    marker(SHAPES[p.kind], plot.x(p.intensity), plot.y(p.gflops), pointClass(p))).join("")}</g>`;
  const key = legend(args.roofs, args.points, L, plot.bottom + 60);
  const body = plot.parts.join("") + args.roofs.map((roof) => roofLine(roof, plot, r)).join("") + labels + marks +
    plot.axes + key.body;
  const title = args.title ?? `屋顶线：${COUNT[args.roofs.length] ?? args.roofs.length} 台机器的屋顶，和前向落在哪里`;
  return svg(svgId, L.width, plot.bottom + 60 + key.height, title, body, describe(args.roofs, args.points));
}

/** The roofline. args: {id, roofs: [{key: "anchor" | "build" | "reader", name, short?, bandwidthGBs, peakGflops}],
 * points: [{kind: "target" | "draft" | "anchor", label, positions, intensity, gflops (where it sits)}], title?}. */
export function rooflineFigure(args) {
  if (!args.roofs?.length) throw new Error("roofline: no roof to draw");
  for (const roof of args.roofs) {
    if (!(roof.bandwidthGBs > 0 && roof.peakGflops > 0 && Number.isFinite(roof.bandwidthGBs * roof.peakGflops))) {
      throw new Error(`roofline: ${roof.key} has no positive finite bandwidth and peak`);
    }
  }
  return twoLayouts(args.id || "e6-roofline", (layout, svgId) => drawLayout(args, layout, svgId), { cls: "c13-roofline" });
}

/** The points of a run on the roofs: the target at 1 and at k + 1 positions and the draft at 1 on the reader's roof,
 * the anchor's one-token step at 1 and at k + 1 positions on its own. models: {target, draft} (modelFigures),
 * context: the positions before them (the measuring phase's context); anchor: c13.json → anchor. */
export function runPoints({ reader, anchor, models, names, k, context }) {
  const on = (roof, kind, label, cost) => ({ kind, label, positions: cost.positions, intensity: cost.intensity,
    gflops: attainable(roof, cost.intensity) });
  const perPosition = anchor ? anchor.arithmetic_intensity_flops_per_byte : null;
  const anchorRoofs = anchor ? anchorRoof(anchor) : null;
  return [
    on(reader, "target", `目标 ${names.target} 1 个位置`, forwardCost(models.target, 1, context)),
    on(reader, "target", `目标验 k + 1 = ${k + 1} 个位置`, forwardCost(models.target, k + 1, context)),
    on(reader, "draft", `草稿 ${names.draft} 1 个位置`, forwardCost(models.draft, 1, context)),
    ...(anchor ? [1, k + 1].map((n) => on(anchorRoofs, "anchor", `锚点 ${anchor.model} ${n} 个位置`,
      { positions: n, intensity: n * perPosition })) : []),
  ];
}

/** A figure's one-line summary for a caption: the model of the prediction. */
export const ROOFLINE_MODEL = "时间(位置数) = max(读的字节 ÷ 带宽, 位置数 × 每个位置的 FLOP ÷ 峰值)；" +
  "预测的 v(k) = 时间(k + 1) ÷ 时间(1)。";

/** This module's figures by the name generator/pages/figure_table.py and the tests draw them by. */
export const FIGURES = { roofline: rooflineFigure };
