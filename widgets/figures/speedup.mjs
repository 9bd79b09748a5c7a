// E5 · speedup against k. The static plot: per draft, the formula with the draft's one α (pooled over every k)
// as a line, the best k by it marked; each k's measurement as a hollow point (the measured yield converted) with a
// bar for what that k's own α and its 95% interval give. The live plot: the formula for the sliders' α, c and k,
// and the loaded draft's measured points. Both come in two layouts, wide and narrow, in one wrapper; the page's
// CSS shows the one that fits its column (widgets/css/e5.css), so text is never drawn under 11 px. The points'
// hover titles are in the wide layout only (the narrow one is for touch screens; the tables hold the same figures).
// Every speedup these plots draw is the lesson's formula (v = 1): the wrappers say so (data-kind, formats.mjs).
import { asWritten, fixed, pct, times, trim } from "./formats.mjs";
import { attrs, coord, escapeHtml, line, niceStep, rect, svg, text, twoLayouts } from "./svg.mjs";

const SHAPES = ["circle", "square"];
const FORMULA = { extra: { "data-kind": "formula" } }; // what every speedup of these plots is (formats.mjs speed)
// the two layouts: width, margins and text sizes; the narrow one is drawn for a phone's column (≈ 300 px)
const LAYOUTS = {
  wide: { width: 560, height: 300, left: 52, right: 150, top: 28, bottom: 44, small: 11, label: 12, legend: "side" },
  narrow: { width: 300, height: 370, left: 42, right: 8, top: 26, bottom: 146, small: 12, label: 13, legend: "below" },
};

/** 1 + α + … + α^k: the same number as (1 − α^(k+1)) / (1 − α), summed so that α = 0.8, k = 1 gives 1.8 exactly. */
export function expectedYield(alpha, k) {
  let total = 0;
  let term = 1;
  for (let i = 0; i <= k; i++) {
    total += term;
    term *= alpha;
  }
  return total;
}

export function speedup(alpha, c, k) {
  return measuredSpeedup(alpha, c, k, 1);
}

/** E[N] / (k·c + v): the speedup when verifying k + 1 positions costs v target forwards (v = 1: the lesson's). */
export function measuredSpeedup(alpha, c, k, v) {
  return expectedYield(alpha, k) / (k * c + v);
}

/** The k that gives the largest speedup for α and c (the first of equals). */
export function bestK(alpha, c, ks) {
  return ks.reduce((best, k) => (speedup(alpha, c, k) > speedup(alpha, c, best) ? k : best), ks[0]);
}

/** The frame: ticks every `step` up to ymax, the k labels, the 1× line; x(k) and y(v) map to the plot.
 *  opts.unit follows each tick ("×"), opts.baseline labels the line at 1 (widgets/figures/measured_costs.mjs),
 *  opts.xLabel names the axis (widgets/figures/when_faster.mjs: v, drawn over 1 … k + 1). */
export function frame(L, ks, { ymin, ymax, step },
  { unit = "×", baseline = "1× = 不投机", xLabel = "k（每轮草稿 token 数）" } = {}) {
  const plotWidth = L.width - L.left - L.right;
  const plotHeight = L.height - L.top - L.bottom;
  const x = (k) => L.left + 8 + ((k - ks[0]) / Math.max(1, ks[ks.length - 1] - ks[0])) * (plotWidth - 16);
  const y = (v) => L.top + plotHeight - ((v - ymin) / (ymax - ymin)) * plotHeight;
  const parts = [];
  for (let i = 0; ymin + i * step <= ymax + 1e-9; i++) {
    const t = ymin + i * step;
    parts.push(line(L.left, y(t), L.left + plotWidth, y(t), "c13-grid"),
      text(L.left - 5, y(t) + 4, `${trim(t, 2)}${unit}`, { cls: "c13-muted", anchor: "end", size: L.small }));
  }
  const bottom = L.top + plotHeight;
  for (const k of ks) parts.push(text(x(k), bottom + 17, String(k), { cls: "c13-muted", size: L.small }));
  parts.push(text(L.left + plotWidth / 2, bottom + 35, xLabel, { size: L.label }),
    line(L.left, y(1), L.left + plotWidth, y(1), "c13-baseline"),
    text(L.left + plotWidth - 4, y(1) - 5, baseline, { cls: "c13-muted", anchor: "end", size: L.small }));
  const axes = line(L.left, bottom, L.left + plotWidth, bottom, "c13-axis") + line(L.left, L.top, L.left, bottom, "c13-axis");
  return { parts, axes, x, y, plotWidth, bottom };
}

/** The y range: every value and the 1× line, with a margin, on round steps (not from 0: the differences matter). */
export function axisRange(values) {
  const lo = Math.min(1, ...values);
  const hi = Math.max(1, ...values);
  const span = Math.max(hi - lo, 0.2);
  const step = niceStep((span * 1.2) / 4);
  const ymin = Math.max(0, step * Math.floor((lo - span * 0.06) / step));
  return { ymin, ymax: step * Math.ceil((hi + span * 0.12) / step), step };
}

export function marker(shape, cx, cy, cls, radius) {
  if (shape === "circle") return `<circle${attrs({ cx: coord(cx), cy: coord(cy), r: radius, class: cls })}/>`;
  return rect(cx - radius, cy - radius, 2 * radius, 2 * radius, cls);
}

/** One draft's measured points: hollow marker at the measured yield converted, a bar for its own α's interval. */
function measuredPoints(points, j, plot, dx, name, hover) {
  const shape = SHAPES[j % 2];
  return points.map((pt) => {
    const x = plot.x(pt.k) + dx;
    const tip = hover ? `<title>${escapeHtml(`${name}，k = ${pt.k}：${pt.tip}`)}</title>` : "";
    return `<g class="c13-measured">${tip}` +
      line(x, plot.y(pt.low), x, plot.y(pt.high), `c13-whisker c13-series-${j}`) +
      marker(shape, x, plot.y(pt.value), `c13-mark-hollow c13-series-${j}`, 3.5) + "</g>";
  }).join("");
}

/** A formula curve over ks: line, small filled marks, the best k labelled above its point. */
function formulaCurve(values, ks, best, j, plot, L) {
  const points = ks.map((k, i) => `${coord(plot.x(k))},${coord(plot.y(values[i]))}`).join(" ");
  const marks = ks.map((k, i) => marker(SHAPES[j % 2], plot.x(k), plot.y(values[i]), `c13-mark c13-series-${j}`,
    k === best ? 5 : 3));
  const bestValue = values[ks.indexOf(best)];
  const bx = plot.x(best);
  // near an end of the axis the label runs inwards, so it is never cut off
  const anchor = bx > L.left + plot.plotWidth - 36 ? "end" : bx < L.left + 36 ? "start" : "middle";
  const dx = anchor === "end" ? 6 : anchor === "start" ? -6 : 0;
  return `<polyline points="${points}" class="c13-series c13-series-${j}" fill="none"/>` + marks.join("") +
    text(bx + dx, plot.y(bestValue) + (j === 0 ? -11 : 22), `最佳 k=${best}`,
      { cls: `c13-strong c13-series-text-${j}`, anchor, size: L.small });
}

/** What a draft's row gives as a measured point: the measured yield converted, and its own α's interval. */
export function rowPoint(row, c, alpha) {
  const low = speedup(row.alpha_low, c, row.k);
  const high = speedup(row.alpha_high, c, row.k);
  return { k: row.k, value: row.measured_speedup, low, high,
    tip: `公式（α = ${pct(alpha)}）${times(speedup(alpha, c, row.k))}；公式代入实测的 N：${times(row.measured_speedup)}；` +
      `只看这个 k，α = ${pct(row.acceptance_rate)}（95% 区间 ${pct(row.alpha_low)}–${pct(row.alpha_high)}），` +
      `代入公式是 ${times(low)}–${times(high)}` };
}

/** The legend: at the side (wide) or under the axis title (narrow). */
function legend(entries, L, plot) {
  const x0 = L.legend === "side" ? L.left + plot.plotWidth + 14 : L.left - 30;
  const y0 = L.legend === "side" ? L.top + 20 : plot.bottom + 58;
  const gap = L.legend === "side" ? 22 : 18;
  return entries.map((e, i) => {
    const y = y0 + gap * i;
    const mark = e.shape === "line" ? line(x0 - 5, y, x0 + 5, y, `c13-whisker ${e.cls}`) :
      marker(e.shape, x0, y, e.cls, 4);
    return mark + text(x0 + 11, y + 4, e.text, { cls: e.textCls || "", anchor: "start", size: L.small });
  }).join("");
}

function staticLayout(args, layout, svgId) {
  const { accounting, drafts, names } = args;
  const L = LAYOUTS[layout];
  const ks = accounting[drafts[0]].rows.map((r) => r.k);
  const curves = drafts.map((d) => ks.map((k) => speedup(accounting[d].alpha, accounting[d].c, k)));
  const points = drafts.map((d) => accounting[d].rows.map((r) => rowPoint(r, accounting[d].c, accounting[d].alpha)));
  const plot = frame(L, ks, axisRange([...curves.flat(), ...points.flat().flatMap((p) => [p.value, p.low, p.high])]));
  const body = drafts.map((d, j) => formulaCurve(curves[j], ks, accounting[d].best_k, j, plot, L) +
    measuredPoints(points[j], j, plot, j === 0 ? -3 : 3, names[d], layout === "wide"));
  const entries = drafts.map((d, j) => ({ shape: SHAPES[j % 2], cls: `c13-mark c13-series-${j}`,
    text: names[d], textCls: `c13-series-text-${j}` }));
  entries.push({ shape: "circle", cls: "c13-mark c13-series-0", text: "线和实心 = 公式", textCls: "c13-muted" },
    { shape: "circle", cls: "c13-mark-hollow c13-series-0", text: "空心 = 代入实测 N", textCls: "c13-muted" },
    { shape: "line", cls: "c13-series-0", text: "竖线 = 本 k 的 α 区间", textCls: "c13-muted" });
  const title = "课上公式（v = 1，c = 参数比）的加速随 k 的变化：每个草稿一条公式线（一个 α，合并全部 k），" +
    "空心点是把各 k 实测的每次前向产出 N 代入同一个公式";
  const desc = drafts.map((d) => `${names[d]}：α = ${pct(accounting[d].alpha)}，c = ${asWritten(Number(accounting[d].c.toFixed(3)))}，` +
    `最佳 k = ${accounting[d].best_k}（${times(accounting[d].best_speedup)}）`).join("；") + "。";
  return svg(svgId, L.width, L.height, title, plot.parts.join("") + body.join("") + legend(entries, L, plot) + plot.axes,
    desc);
}

/** The static plot. args: {accounting (per draft: alpha, c, rows, best_k), drafts, names (draft → label), id}. */
export function speedupPlot(args) {
  return twoLayouts(args.id || "e5-plot", (layout, svgId) => staticLayout(args, layout, svgId), FORMULA);
}

/** What the live plot's speedups are: the lesson's formula, or the formula with measured costs (and the measured
 *  wall-clock points drawn on it) — formats.mjs SPEED_KINDS; each a wrapper's data-kind. */
const LIVE_KINDS = { formula: FORMULA, "formula-measured": { extra: { "data-kind": "formula-measured wall-clock" } } };

/** The live plot's values over ks: E[N] / (k·c + v(k)), v(k) = 1 without measured costs; and the best k. */
export function sliderValues({ alpha, c, ks, v }) {
  const values = ks.map((kk, i) => measuredSpeedup(alpha, c, kk, v ? v[i] : 1));
  const best = ks[values.indexOf(Math.max(...values))];
  return { values, best };
}

function sliderLayout({ alpha, c, k, ks, v, costs, points, pointsName }, layout, svgId) {
  const L = { ...LAYOUTS[layout], height: layout === "wide" ? 280 : 300, bottom: 44, right: layout === "wide" ? 24 : 8 };
  const { values, best } = sliderValues({ alpha, c, ks, v });
  const plot = frame(L, ks, axisRange([...values, ...(points || []).flatMap((p) => [p.value, p.low, p.high])]));
  // the ring of the current k (absent when the measured costs have no v(k) at this k)
  const now = ks.includes(k) ?
    marker("circle", plot.x(k), plot.y(values[ks.indexOf(k)]), "c13-mark-hollow c13-series-0 c13-now", 7) : "";
  const measured = points ? measuredPoints(points, 1, plot, 0, pointsName, layout === "wide") : "";
  const title = (v ? `公式代入${costs}实测的 c 和 v(k) 的加速 E[N] ÷ (k·c + v(k)) 随 k 变化：α = ${trim(alpha, 3)}，` +
    `c = ${trim(c, 3)}` : `课上公式（v = 1）的加速随 k 变化：α = ${trim(alpha, 3)}，c = ${trim(c, 3)}`) +
    (points ? `；方块是${pointsName}` : "");
  const desc = `${ks.map((kk, i) => `k = ${kk}：${times(values[i])}`).join("；")}。最佳 k = ${best}。`;
  return svg(svgId, L.width, L.height, title, plot.parts.join("") + formulaCurve(values, ks, best, 0, plot, L) +
    measured + now + plot.axes, desc);
}

/** The live plot for the sliders. args: {alpha, c, k (the current one, ringed), ks, id, points?, pointsName?,
 *  v?, costs?}: points are drawn as squares with their bars (a loaded draft's measured rows, rowPoint, or the
 *  measured wall-clock speedups, wallClockPoint); v (per ks) is measured v(k), costs names whose (the speedups are
 *  then the formula with measured costs, and the points wall clock). */
export function sliderPlot(args) {
  return twoLayouts(args.id, (layout, svgId) => sliderLayout(args, layout, svgId),
    LIVE_KINDS[args.v ? "formula-measured" : "formula"]);
}

/** A measured wall-clock speedup ({k, median, min, max}) as a point of the live plot, its bar the min–max. */
export function wallClockPoint(p, predicted) {
  return { k: p.k, value: p.median, low: p.min, high: p.max,
    tip: `实测墙钟 ${times(p.median)}（最小–最大 ${fixed(p.min, 2)}–${times(p.max)}）；公式代入实测代价 ${times(predicted)}` };
}

/** This module's figures by the name generator/pages/figure_table.py and the tests draw them by. */
export const FIGURES = { speedup: speedupPlot, speedup_sliders: sliderPlot };
