// When speculation pays: the lesson's formula with the cost of the verifying forward left free,
// E[N] ÷ (k·c + v), against v from 1 (reading the weights is all a forward costs) to k + 1 (every position paid in
// full), at one draft's α, c and k; the 1× line, the v where it stops paying, and where each machine's forward sits:
// the anchor by its roofline bounds, the build machine's engines by their measured v(k). One picture for the
// lesson's second question (docs/index.md, #when-faster).
import { fixed, times } from "./formats.mjs";
import { axisRange, expectedYield, frame, marker, measuredSpeedup } from "./speedup.mjs";
import { line, svg, text, twoLayouts } from "./svg.mjs";

const LAYOUTS = {
  wide: { width: 560, height: 250, left: 50, right: 20, top: 40, bottom: 64, small: 11, label: 12 },
  narrow: { width: 300, height: 260, left: 42, right: 12, top: 40, bottom: 64, small: 12, label: 12 },
};
const SHAPES = ["circle", "square"];

function layoutOf(args, layout, svgId) {
  const L = LAYOUTS[layout];
  const { alpha, c, k, machines } = args;
  const vMax = k + 1;
  const at = (v) => measuredSpeedup(alpha, c, k, v);
  const range = axisRange([at(1), at(vMax), ...machines.map((m) => at(m.v))]);
  const plot = frame(L, Array.from({ length: vMax }, (_, i) => i + 1), range,
    { xLabel: `v：验 ${vMax} 个位置花几次目标前向` });
  const { y, bottom, plotWidth } = plot;
  const x = (v) => plot.x(Math.min(v, vMax));  // a forward dearer than k + 1 positions sits at the right edge
  const height = L.height + 20 * machines.length + 8;  // one row of the key under the plot per machine
  const parts = [...plot.parts,
    text(L.left, bottom + 54, "← 受带宽所限", { cls: "c13-muted", anchor: "start", size: L.small }),
    text(L.left + plotWidth, bottom + 54, "受算力或开销所限 →", { cls: "c13-muted", anchor: "end", size: L.small })];
  const steps = 48;
  const curve = Array.from({ length: steps + 1 }, (_, i) => 1 + (i / steps) * (vMax - 1))
    .map((v) => `${x(v).toFixed(1)},${y(at(v)).toFixed(1)}`).join(" ");
  parts.push(`<polyline points="${curve}" class="c13-series c13-series-0" fill="none"/>`);
  const even = expectedYield(alpha, k) - k * c;  // the v at which E[N] ÷ (k·c + v) = 1
  if (even > 1 && even < vMax) {
    parts.push(line(x(even), L.top, x(even), bottom, "c13-baseline"),
      text(x(even) + 4, L.top + 12, `v > ${fixed(even, 2)}：不赚`, { cls: "c13-strong", anchor: "start", size: L.small }));
  }
  machines.forEach((m, i) => {
    const cls = `c13-mark c13-series-${i + 1}`, row = L.height + 20 * i + 12;
    parts.push(marker(SHAPES[i % 2], x(m.v), y(at(m.v)), cls, 4.5), marker(SHAPES[i % 2], 16, row - 4, cls, 4.5),
      text(28, row, `${m.label}：v = ${fixed(m.v, 2)}，${times(at(m.v))}`, { anchor: "start", size: L.small }));
  });
  const head = text(L.left - 40, L.top - 20, `加速 = E[N] ÷ (k·c + v)，α = ${fixed(alpha, 3)}，c = ${fixed(c, 3)}，k = ${k}`,
    { cls: "c13-muted", anchor: "start", size: L.small });
  const desc = `v = 1 时 ${times(at(1))}，v = ${vMax} 时 ${times(at(vMax))}` +
    (even > 1 && even < vMax ? `，v 超过 ${fixed(even, 2)} 就低于 1×` : "") + "。" +
    machines.map((m) => `${m.label}：v = ${fixed(m.v, 2)}，${times(at(m.v))}`).join("；") + "。";
  return svg(svgId, L.width, height, "投机解码什么时候更快：加速随验证代价 v 的变化", head + parts.join("") + plot.axes, desc);
}

/** args: {id, alpha, c, k, machines: [{label, v}]} (v of each machine's verifying forward at this k). */
export function whenFaster(args) {
  return twoLayouts(args.id || "when-faster-plot", (layout, svgId) => layoutOf(args, layout, svgId),
    { extra: { "data-kind": "formula formula-measured" } });
}

/** This module's figures by the name generator/pages/figure_table.py and the tests draw them by. */
export const FIGURES = { when_faster: whenFaster };
