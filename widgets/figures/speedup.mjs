// E5 · speedup against k. The static plot: per draft, the formula with the measured α (filled) and the measured
// yield converted (hollow), the best k marked. The live plot: the formula for the sliders' α, c and k.
// Both share one frame: horizontal grid with "n×" ticks, the k axis, the 1× line of no speculation.
import { asWritten, times, trim } from "./formats.mjs";
import { attrs, coord, escapeHtml, line, niceStep, rect, svg, text } from "./svg.mjs";

const SHAPES = ["circle", "square"];

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
  return expectedYield(alpha, k) / (c * k + 1);
}

/** The frame: box, ticks every `step` up to ymax, the k labels, the 1× line; x(k) and y(v) map to the plot. */
function frame({ width, height, left, right, top, bottom, ks, ymax, step, tick, baselineLabel }) {
  const plotWidth = width - left - right;
  const plotHeight = height - top - bottom;
  const x = (k) => left + ((k - ks[0]) / Math.max(1, ks[ks.length - 1] - ks[0])) * plotWidth;
  const y = (v) => top + plotHeight - (v / ymax) * plotHeight;
  const parts = [];
  for (let t = 0; t <= ymax + 1e-9; t += step) {
    parts.push(line(left, y(t), left + plotWidth, y(t), "c13-grid"),
      text(left - 6, y(t) + 4, tick(t), { cls: "c13-muted", anchor: "end", size: 11 }));
  }
  for (const k of ks) parts.push(text(x(k), top + plotHeight + 18, String(k), { cls: "c13-muted", size: 11 }));
  parts.push(text(left + plotWidth / 2, height - 6, "k（每轮草稿 token 数）", { size: 12 }),
    line(left, y(1), left + plotWidth, y(1), "c13-baseline"), baselineLabel(left, plotWidth, y(1)));
  const axes = line(left, top + plotHeight, left + plotWidth, top + plotHeight, "c13-axis") +
    line(left, top, left, top + plotHeight, "c13-axis");
  return { parts, axes, x, y, left, plotWidth, top };
}

function marker(shape, cx, cy, cls, radius) {
  if (shape === "circle") return `<circle${attrs({ cx: coord(cx), cy: coord(cy), r: radius, class: cls })}/>`;
  return rect(cx - radius, cy - radius, 2 * radius, 2 * radius, cls);
}

function draftSeries(accounting, draft, j, plot, name) {
  const rows = [...accounting[draft].rows].sort((a, b) => a.k - b.k);
  const best = accounting[draft].best_k;
  const shape = SHAPES[j % 2];
  const points = rows.map((r) => `${coord(plot.x(r.k))},${coord(plot.y(r.speedup))}`).join(" ");
  const parts = [`<polyline points="${points}" class="c13-series c13-series-${j}" fill="none"/>`];
  for (const r of rows) {
    const tip = `${name}，k = ${r.k}：理论 ${times(r.speedup)}，实测产出折算 ${times(r.measured_speedup)}`;
    parts.push(`<g><title>${escapeHtml(tip)}</title>`,
      marker(shape, plot.x(r.k), plot.y(r.speedup), `c13-mark c13-series-${j}`, 4.5),
      marker(shape, plot.x(r.k), plot.y(r.measured_speedup), `c13-mark-hollow c13-series-${j}`, 3), "</g>");
    if (r.k === best) {
      parts.push(text(plot.x(r.k), plot.y(r.speedup) - 10, `最佳 k=${best}`, { cls: `c13-strong c13-series-text-${j}`, size: 11 }));
    }
  }
  return parts.join("");
}

/** The static plot. args: {accounting (per draft: rows, best_k), drafts, names (draft → label), id}. */
export function speedupPlot({ accounting, drafts, names, id = "e5-plot" }) {
  const ks = [...new Set(drafts.flatMap((d) => accounting[d].rows.map((r) => r.k)))].sort((a, b) => a - b);
  const values = drafts.flatMap((d) => accounting[d].rows.flatMap((r) => [r.speedup, r.measured_speedup]));
  const step = niceStep(Math.max(1.25, Math.max(...values) * 1.1) / 5);
  const ymax = step * Math.ceil(Math.max(1.25, Math.max(...values) * 1.1) / step);
  const plot = frame({ width: 560, height: 300, left: 56, right: 150, top: 30, bottom: 44, ks, ymax, step,
    tick: (t) => `${asWritten(t)}×`,
    baselineLabel: (left, plotWidth, y) => text(left + plotWidth + 6, y + 4, "1× = 不投机", { cls: "c13-muted", anchor: "start", size: 11 }) });
  const series = drafts.map((d, j) => draftSeries(accounting, d, j, plot, names[d]));
  const legendX = plot.left + plot.plotWidth;
  const legendY = plot.top + 6;
  const legend = drafts.map((d, j) => marker(SHAPES[j % 2], legendX + 14, legendY + 22 * j + 30, `c13-mark c13-series-${j}`, 4.5) +
    text(legendX + 24, legendY + 22 * j + 34, names[d], { cls: `c13-series-text-${j}`, anchor: "start", size: 11 }));
  legend.push(marker("circle", legendX + 14, legendY + 80, "c13-mark-hollow c13-series-0", 3),
    text(legendX + 24, legendY + 84, "空心 = 实测折算", { cls: "c13-muted", anchor: "start", size: 11 }));
  const title = "理论加速比随 k 的变化，两个草稿各一条线（实心 = 公式，空心 = 实测每次目标前向的产出折算）";
  return svg(id, 560, 300, title, plot.parts.join("") + series.join("") + legend.join("") + plot.axes);
}

/** The k that gives the largest speedup for α and c (the first of equals). */
export function bestK(alpha, c, ks) {
  return ks.reduce((best, k) => (speedup(alpha, c, k) > speedup(alpha, c, best) ? k : best), ks[0]);
}

/** The live plot for the sliders. args: {alpha, c, k (the current one, drawn larger), ks, id}. */
export function sliderPlot({ alpha, c, k, ks, id }) {
  const values = ks.map((kk) => speedup(alpha, c, kk));
  const top = Math.max(1.25, ...values) * 1.1;
  const step = top > 5 ? 1 : top > 2.5 ? 0.5 : 0.25;
  const ymax = step * Math.ceil(top / step);
  const plot = frame({ width: 520, height: 260, left: 52, right: 24, top: 26, bottom: 44, ks, ymax, step,
    tick: (t) => `${trim(t, 2)}×`,
    baselineLabel: (left, plotWidth, y) => text(left + plotWidth - 4, y - 6, "1× = 不投机", { cls: "c13-muted", anchor: "end", size: 11 }) });
  const best = bestK(alpha, c, ks);
  const points = ks.map((kk, i) => `${coord(plot.x(kk))},${coord(plot.y(values[i]))}`).join(" ");
  const parts = [...plot.parts, `<polyline points="${points}" class="c13-series c13-series-0"/>`];
  ks.forEach((kk, i) => {
    const now = kk === k;
    parts.push(marker("circle", plot.x(kk), plot.y(values[i]), now ? "c13-mark-hollow c13-series-0 c13-now" : "c13-mark c13-series-0",
      now ? 7 : 4));
  });
  const bestValue = values[ks.indexOf(best)];
  parts.push(text(plot.x(best), plot.y(bestValue) - 12, `最佳 k=${best}`, { cls: "c13-strong c13-series-text-0", size: 11 }),
    plot.axes);
  const title = `理论加速随 k 变化：α = ${trim(alpha, 2)}，c = ${trim(c, 2)}`;
  const desc = `${ks.map((kk, i) => `k = ${kk}：${times(values[i])}`).join("；")}。最佳 k = ${best}。`;
  return svg(id, 520, 260, title, parts.join(""), desc);
}
