// TV against the number of draws, on log–log axes: for one prefix and draft, each scheme's TV to p at n = 10², …,
// 10⁶ (one point per recorded seed, a line through their geometric mean), the analytic noise floor (the expected TV
// of n direct draws from p, c13-util.js expectedNoiseTV) as a wide grey band, and the closed-form TV that
// resample-from-p levels off at as a dotted line. The correct scheme and direct sampling fall along the band like
// 1/√n; resample-from-p bends onto its line. The build draws it with the offline points; the live widget
// (widgets/tv/) draws the same picture and rings each point the browser has recomputed. Two layouts, wide and
// narrow (a phone's column), in one wrapper; CSS shows the one that fits (.c13-duo in c13.css).
import { expectedNoiseTV } from "../c13-util.js";
import { fixed, num } from "./formats.mjs";
import { attrs, coord, escapeHtml, line, svg, text, twoLayouts } from "./svg.mjs";

export const SCHEME_NAMES = { correct: "改进方案：被拒从残差抽", direct: "直接从 p 抽", resample_p: "被拒从 p 重抽（错误）" };
const SHORT_NAMES = { correct: "改进方案", direct: "直接抽 p", resample_p: "从 p 重抽" };
const LAYOUTS = {
  wide: { width: 560, height: 330, left: 52, right: 150, top: 30, bottom: 46, small: 11, label: 12, legend: "side" },
  narrow: { width: 300, height: 470, left: 44, right: 12, top: 30, bottom: 158, small: 12, label: 13, legend: "below" },
};
const SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹";
const FLOOR_STEPS = 32; // the noise floor is drawn through this many segments across the n range
const floorCache = new WeakMap();

/** 10⁴ for 10000: a power of ten as it reads on the axis. */
export function powerLabel(n) {
  const e = Math.round(Math.log10(n));
  return 10 ** e === n ? `10${[...String(e)].map((d) => SUPERSCRIPT[Number(d)]).join("")}` : num(n);
}

/** The expected TV of n direct draws from p at FLOOR_STEPS + 1 sizes spread evenly in log n (cached per p). */
export function noiseFloor(p, nMin, nMax) {
  const key = `${nMin}-${nMax}`;
  const cached = floorCache.get(p) || {};
  if (!cached[key]) {
    const a = Math.log10(nMin);
    const b = Math.log10(nMax);
    cached[key] = Array.from({ length: FLOOR_STEPS + 1 }, (_, i) => {
      const n = Math.round(10 ** (a + ((b - a) * i) / FLOOR_STEPS));
      return { n, tv: expectedNoiseTV(p, n) };
    });
    floorCache.set(p, cached);
  }
  return cached[key];
}

/** The geometric mean of a seed column's TVs (the line through the points on a log axis). */
function geoMean(values) {
  return Math.exp(values.reduce((s, v) => s + Math.log(v), 0) / values.length);
}

/** A bound of the y axis: the nearest 1, 2 or 5 × 10^k below (down) or above (up) the value. */
function niceBound(value, up) {
  const power = 10 ** Math.floor(Math.log10(value));
  const steps = up ? [1, 2, 5, 10] : [10, 5, 2, 1];
  for (const f of steps) if (up ? f * power >= value : f * power <= value) return f * power;
  return up ? 10 * power : power;
}

function axes(L, curve, floor) {
  const values = [...Object.values(curve.tv).flat(2), curve.closed_form_tv, ...floor.map((f) => f.tv)].filter((v) => v > 0);
  const ymin = niceBound(Math.min(...values) * 0.9, false);
  const ymax = niceBound(Math.max(...values) * 1.08, true);
  const plotWidth = L.width - L.left - L.right;
  const plotHeight = L.height - L.top - L.bottom;
  const [n0, n1] = [curve.ns[0], curve.ns[curve.ns.length - 1]];
  const x = (n) => L.left + 12 + ((Math.log10(n) - Math.log10(n0)) / (Math.log10(n1) - Math.log10(n0))) * (plotWidth - 24);
  const y = (v) => L.top + plotHeight - ((Math.log10(Math.max(v, ymin)) - Math.log10(ymin)) /
    (Math.log10(ymax) - Math.log10(ymin))) * plotHeight;
  return { x, y, ymin, ymax, plotWidth, plotHeight, bottom: L.top + plotHeight };
}

/** Grid, ticks and titles: a vertical line at each n of the data, a horizontal one at each power of ten. */
function frame(L, curve, plot) {
  const parts = [];
  const ticks = [plot.ymin];
  for (let t = 10 ** Math.ceil(Math.log10(plot.ymin) - 1e-9); t <= plot.ymax * (1 + 1e-9); t *= 10) {
    if (Math.abs(t - plot.ymin) > 1e-12 * t) ticks.push(t);
  }
  if (!ticks.some((t) => Math.abs(t - plot.ymax) <= 1e-12 * t)) ticks.push(plot.ymax);
  for (const t of ticks) {
    const value = Number(t.toPrecision(1));
    parts.push(line(L.left, plot.y(value), L.left + plot.plotWidth, plot.y(value), "c13-grid", { "data-tv": value }),
      text(L.left - 5, plot.y(value) + 4, String(value), { cls: "c13-muted", anchor: "end", size: L.small }));
  }
  for (const n of curve.ns) {
    parts.push(line(plot.x(n), L.top, plot.x(n), plot.bottom, "c13-grid", { "data-n": n }),
      text(plot.x(n), plot.bottom + 17, powerLabel(n), { cls: "c13-muted", size: L.small }));
  }
  parts.push(text(L.left + plot.plotWidth / 2, plot.bottom + 36, "抽样次数 n（对数刻度）", { size: L.label }),
    text(L.left - 40, L.top - 12, "输出与 p 的 TV 距离（对数刻度）", { anchor: "start", size: L.label }));
  const axis = line(L.left, plot.bottom, L.left + plot.plotWidth, plot.bottom, "c13-axis") +
    line(L.left, L.top, L.left, plot.bottom, "c13-axis");
  return { parts, axis };
}

/** A scheme's mark at (cx, cy): a filled circle, a hollow square or a filled diamond. */
function mark(scheme, cx, cy, extra = null, r = 3.5) {
  const cls = (base) => [base, extra?.class].filter(Boolean).join(" ") || null;
  if (scheme === "correct") return `<circle${attrs({ cx: coord(cx), cy: coord(cy), r, ...extra, class: cls("c13-series-0") })}/>`;
  if (scheme === "direct") {
    return `<rect${attrs({ x: coord(cx - r), y: coord(cy - r), width: coord(2 * r), height: coord(2 * r), fill: "none",
      stroke: "currentColor", "stroke-width": 1.4, ...extra, class: cls(null) })}/>`;
  }
  const d = r + 1;
  return `<path${attrs({ d: `M${coord(cx)} ${coord(cy - d)}L${coord(cx + d)} ${coord(cy)}L${coord(cx)} ${coord(cy + d)}` +
    `L${coord(cx - d)} ${coord(cy)}Z`, ...extra, class: cls("c13-series-1") })}/>`;
}

/** A scheme's line through the geometric mean of its seeds at each n. */
function meanLine(scheme, curve, plot) {
  const points = curve.ns.map((n, i) => `${coord(plot.x(n))},${coord(plot.y(geoMean(curve.tv[scheme].map((s) => s[i]))))}`);
  const look = scheme === "correct" ? { class: "c13-series c13-series-0" } :
    scheme === "direct" ? { class: "c13-series", stroke: "currentColor", "stroke-width": 1.2 } :
      { class: "c13-series c13-series-1" };
  return `<polyline${attrs({ points: points.join(" "), fill: "none", ...look })}/>`;
}

/** Every point of the data, marked; where the browser recomputed one (live), a ring around it. */
function points(curve, plot, live) {
  const out = [];
  for (const scheme of curve.schemes) {
    curve.seeds[scheme].forEach((seed, s) => curve.ns.forEach((n, i) => {
      const cx = plot.x(n);
      const cy = plot.y(curve.tv[scheme][s][i]);
      out.push(mark(scheme, cx, cy, { "data-scheme": scheme, "data-seed": seed, "data-n": n, class: "c13-tv-point" }));
      const again = live?.[scheme]?.[s]?.[i];
      if (again !== undefined && again !== null) {
        out.push(`<circle${attrs({ cx: coord(cx), cy: coord(plot.y(again)), r: 7, fill: "none", stroke: "currentColor",
          "stroke-width": 1.2, class: "c13-tv-ring", "data-scheme": scheme, "data-seed": seed, "data-n": n })}/>`);
      }
    }));
  }
  return out.join("");
}

function legend(L, plot, curve) {
  const x0 = L.legend === "side" ? L.left + plot.plotWidth + 16 : 16;
  const y0 = L.legend === "side" ? L.top + 14 : plot.bottom + 62;
  const gap = L.legend === "side" ? 24 : 19;
  const names = L.legend === "side" ? SHORT_NAMES : SCHEME_NAMES;
  const entries = curve.schemes.map((scheme) => [mark(scheme, x0, 0), names[scheme]]);
  entries.push([line(x0 - 8, 0, x0 + 8, 0, "c13-tv-floor", { stroke: "currentColor", "stroke-width": 7, opacity: 0.22 }),
    "噪声基准 E[TV]"],
  [line(x0 - 8, 0, x0 + 8, 0, "c13-series-1", { "stroke-width": 1.6, "stroke-dasharray": "2 3" }),
    `闭式 TV ${fixed(curve.closed_form_tv, 4)}`]);
  return entries.map(([glyph, label], i) => `<g transform="translate(0 ${coord(y0 + gap * i)})">${glyph}` +
    text(x0 + 14, 4, label, { anchor: "start", size: L.small }) + "</g>").join("");
}

function layoutSvg(args, layout, svgId) {
  const { curve, p, live } = args;
  const L = LAYOUTS[layout];
  const floor = noiseFloor(p, curve.ns[0], curve.ns[curve.ns.length - 1]);
  const plot = axes(L, curve, floor);
  const grid = frame(L, curve, plot);
  const band = `<polyline${attrs({ points: floor.map((f) => `${coord(plot.x(f.n))},${coord(plot.y(f.tv))}`).join(" "),
    fill: "none", stroke: "currentColor", "stroke-width": 7, opacity: 0.22, "stroke-linejoin": "round",
    class: "c13-tv-floor" })}/>`;
  const closed = line(L.left, plot.y(curve.closed_form_tv), L.left + plot.plotWidth, plot.y(curve.closed_form_tv),
    "c13-series-1", { "stroke-width": 1.6, "stroke-dasharray": "2 3", "data-tv": curve.closed_form_tv });
  const lines = curve.schemes.map((s) => meanLine(s, curve, plot)).join("");
  const last = curve.ns.length - 1;
  const title = `TV 随抽样次数 n 的变化（对数–对数）：${SHORT_NAMES.correct}和${SHORT_NAMES.direct}一起按 1/√n 下降，` +
    `${SHORT_NAMES.resample_p}停在闭式 TV`;
  const desc = curve.schemes.map((s) => `${SCHEME_NAMES[s]}：n = ${num(curve.ns[0])} 时 TV ≈ ` +
    `${fixed(geoMean(curve.tv[s].map((r) => r[0])), 4)}，n = ${num(curve.ns[last])} 时 ≈ ` +
    `${fixed(geoMean(curve.tv[s].map((r) => r[last])), 4)}`).join("；") +
    `。噪声基准在 n = ${num(curve.ns[last])} 时是 ${fixed(floor[floor.length - 1].tv, 4)}；闭式 TV = ${fixed(curve.closed_form_tv, 4)}。`;
  return svg(svgId, L.width, L.height, title, grid.parts.join("") + band + closed + lines +
    points(curve, plot, live) + legend(L, plot, curve) + grid.axis, desc);
}

/** The figure. args: {curve (c13.json tv_curve), p (the prefix's target distribution), id, live?}: live has the
 * shape of curve.tv (per scheme, per seed, per n) with the browser's TVs, null where not yet recomputed. */
export function tvCurve(args) {
  if (!args.curve || !Array.isArray(args.p)) throw new Error("tv_curve needs the curve and p");
  return twoLayouts(args.id || "tv-curve", (layout, svgId) => layoutSvg(args, layout, svgId));
}

/** The same points as a table (the static version's numbers, and the figure's text alternative). */
export function tvCurveTable({ curve }) {
  const head = `<thead><tr><th scope="col">n</th>${curve.schemes.map((s) =>
    `<th scope="col">${escapeHtml(SCHEME_NAMES[s])}</th>`).join("")}</tr></thead>`;
  const rows = curve.ns.map((n, i) => `<tr><th scope="row">${escapeHtml(num(n))}</th>${curve.schemes.map((s) =>
    `<td>${curve.tv[s].map((seedRow) => escapeHtml(fixed(seedRow[i], 4))).join(" / ")}</td>`).join("")}</tr>`);
  return `<table class="c13-tv-table">${head}<tbody>${rows.join("")}</tbody></table>`;
}

/** This module's figures by the name generator/pages/figure_table.py and the tests draw them by. */
export const FIGURES = { tv_curve: tvCurve, tv_curve_table: tvCurveTable };
