// Measured costs (`make measure` → precomputed/measured.json): the formula fed with the build machine's own
// costs. measuredCosts: per draft, speedup against k — the lesson's line (c = parameter ratio, v = 1), the line
// with the measured costs E[N] / (k·c + v(k)), the measured wall-clock speedups with their spread, the 1× line.
// measuredVerify: v(k), the cost of verifying k + 1 positions in target forwards, against the ideal v = 1 and
// k + 1 separate forwards. measuredTable: the same figures as a table (also E6's static version), each speedup
// cell marked with its kind (data-kind, formats.mjs SPEED_KINDS). Each figure has a wide and a narrow layout (the page's CSS shows the one
// that fits), text never under 11 px at 375 px; the speedup figure's wrapper names the three kinds it draws.
import { SPEED_KINDS, fixed, pct, times } from "./formats.mjs";
import { axisRange, frame, marker, measuredSpeedup } from "./speedup.mjs";
import { coord, escapeHtml, line, svg, text, twoLayouts } from "./svg.mjs";

// two panels side by side (wide) or one above the other (narrow); `panel` is one panel's box
const LAYOUTS = {
  wide: { width: 560, panel: { width: 280, height: 250 }, across: true, left: 46, right: 12, top: 46, bottom: 44,
    small: 11, label: 12, legendRows: 2 },
  narrow: { width: 300, panel: { width: 300, height: 250 }, across: false, left: 42, right: 8, top: 46, bottom: 44,
    small: 12, label: 13, legendRows: 4 },
};
const VERIFY = {
  wide: { width: 560, height: 280, left: 46, right: 200, top: 30, bottom: 44, small: 11, label: 12, legend: "side" },
  narrow: { width: 300, height: 344, left: 36, right: 8, top: 30, bottom: 104, small: 12, label: 13, legend: "below" },
};
const LEGEND = [
  { cls: "c13-mc-lesson", text: "课上公式：c = 参数比，v = 1" },
  { cls: "c13-mc-cost", text: "公式代入实测的 c、v(k)：E[N] ÷ (k·c + v(k))" },
  { cls: "c13-mc-point", text: "实测墙钟（竖线：最小–最大）", point: true },
  { cls: "c13-baseline", text: "1× = 不投机" },
];

/** The three series of one draft over ks: the lesson's line, the measured-cost line and the measured points. */
export function draftSeries(draft, ks) {
  const v = (k) => draft.v[ks.indexOf(k)];
  return {
    lesson: ks.map((k) => measuredSpeedup(draft.alpha, draft.cParams, k, 1)),
    cost: ks.map((k) => measuredSpeedup(draft.alpha, draft.c, k, v(k))),
    points: draft.points,
  };
}

function polyline(values, ks, plot, cls) {
  const pts = ks.map((k, i) => `${coord(plot.x(k))},${coord(plot.y(values[i]))}`).join(" ");
  return `<polyline points="${pts}" class="${cls}" fill="none"/>`;
}

function panelBox(L, i) {
  const dx = L.across ? i * L.panel.width : 0;
  const dy = L.across ? 0 : i * L.panel.height;
  return { ...L, left: dx + L.left, width: dx + L.panel.width, top: dy + L.top, height: dy + L.panel.height, dy, dx };
}

function panel(draft, series, ks, range, L, i) {
  const box = panelBox(L, i);
  const plot = frame(box, ks, range);
  const marks = series.points.map((p) => {
    const x = plot.x(p.k);
    return line(x, plot.y(p.min), x, plot.y(p.max), "c13-whisker c13-mc-point") +
      marker("circle", x, plot.y(p.median), "c13-mc-point", 3.5);
  }).join("");
  const title = text(box.left - 30, box.dy + 18, draft.name, { cls: "c13-strong", anchor: "start", size: L.label }) +
    text(box.left - 30, box.dy + 34, `α = ${pct(draft.alpha)}，实测 c = ${fixed(draft.c, 2)}（参数比 ${fixed(draft.cParams, 2)}）`,
      { cls: "c13-muted", anchor: "start", size: L.small });
  return title + plot.parts.join("") + polyline(series.lesson, ks, plot, "c13-mc-lesson") +
    polyline(series.cost, ks, plot, "c13-mc-cost") + marks + plot.axes;
}

function legend(L, top) {
  const perRow = L.legendRows === 2 ? 2 : 1;
  return LEGEND.map((e, i) => {
    const x = 16 + (i % perRow) * (L.width / perRow);
    const y = top + 18 * Math.floor(i / perRow);
    const mark = e.point ? marker("circle", x + 8, y - 4, e.cls, 3.5) : line(x, y - 4, x + 16, y - 4, e.cls);
    return mark + text(x + 22, y, e.text, { anchor: "start", size: L.small });
  }).join("");
}

function describe(args, all) {
  return args.drafts.map((d, j) => `${d.name}：` + args.ks.map((k, i) => {
    const p = all[j].points.find((pt) => pt.k === k);
    return `k = ${k}：课上公式 ${times(all[j].lesson[i])}，代入实测代价的公式 ${times(all[j].cost[i])}` +
      (p ? `，实测墙钟 ${times(p.median)}` : "");
  }).join("；")).join("。") + "。";
}

function costsLayout(args, layout, svgId) {
  const L = LAYOUTS[layout];
  const { ks } = args;
  const all = args.drafts.map((d) => draftSeries(d, ks));
  const range = axisRange(all.flatMap((s) => [...s.lesson, ...s.cost, ...s.points.flatMap((p) => [p.min, p.max])]));
  const n = args.drafts.length;
  const plotsHeight = L.across ? L.panel.height : n * L.panel.height;
  const height = plotsHeight + 14 + 18 * L.legendRows;
  const body = args.drafts.map((d, i) => panel(d, all[i], ks, range, L, i)).join("") + legend(L, plotsHeight + 16);
  const title = "用实测代价的公式、课上的公式和实测墙钟加速，随 k 的变化";
  return svg(svgId, L.width, height, title, body, describe(args, all));
}

/** Speedup against k per draft. args: {id, ks, drafts: [{name, alpha, cParams, c, v (medians in ks order),
 *  points: [{k, median, min, max}]}]}. */
export function measuredCosts(args) {
  return twoLayouts(args.id || "mc-speedup", (layout, svgId) => costsLayout(args, layout, svgId),
    { extra: { "data-kind": "formula formula-measured wall-clock" } });
}

function verifyLayout(args, layout, svgId) {
  const L = VERIFY[layout];
  const { ks, v } = args;
  const kMax = ks[ks.length - 1];
  const range = { ymin: 0, ymax: kMax + 2, step: kMax + 2 > 6 ? 2 : 1 };
  const plot = frame(L, ks, range, { unit: "", baseline: "v = 1" });
  const separate = polyline(ks.map((k) => k + 1), ks, plot, "c13-mc-lesson");
  const measured = polyline(v.map((r) => r.median), ks, plot, "c13-mc-cost") + v.map((r) => {
    const x = plot.x(r.k);
    return line(x, plot.y(r.q1), x, plot.y(r.q3), "c13-whisker c13-mc-point") +
      marker("circle", x, plot.y(r.median), "c13-mc-point", 3.5);
  }).join("");
  const entries = [
    { cls: "c13-mc-lesson", text: "k + 1 次单独前向" },
    { cls: "c13-mc-point", text: "实测 v(k)（竖线：四分位）", point: true },
    { cls: "c13-baseline", text: "v = 1：只读一遍权重" },
  ];
  const x0 = L.legend === "side" ? L.width - L.right + 14 : 16;
  const y0 = L.legend === "side" ? L.top + 24 : L.height - L.bottom + 62;
  const key = entries.map((e, i) => {
    const y = y0 + 20 * i;
    const mark = e.point ? marker("circle", x0 + 8, y - 4, e.cls, 3.5) : line(x0, y - 4, x0 + 16, y - 4, e.cls);
    return mark + text(x0 + 22, y, e.text, { anchor: "start", size: L.small });
  }).join("");
  const label = text(L.left - 30, L.top - 14, "v（目标前向的倍数）", { cls: "c13-muted", anchor: "start", size: L.small });
  const desc = v.map((r) => `k = ${r.k}：v = ${fixed(r.median, 2)}（四分位 ${fixed(r.q1, 2)}–${fixed(r.q3, 2)}），` +
    `单独前向 ${r.k + 1}`).join("；") + "。";
  return svg(svgId, L.width, L.height, "验 k + 1 个位置的代价 v(k)，以目标一次前向为 1", plot.parts.join("") +
    separate + measured + key + plot.axes + label, desc);
}

/** v(k) against k. args: {id, ks, v: [{k, median, q1, q3}]}. */
export function measuredVerify(args) {
  return twoLayouts(args.id || "mc-verify", (layout, svgId) => verifyLayout(args, layout, svgId));
}

// the table's columns: k, v(k), then the three kinds of speedup (the lesson's formula, the formula with the measured
// costs, the measured wall clock with its spread); each speedup column names its kind (formats.mjs SPEED_KINDS) on
// its cells, and in its heading's title where the figures come from (args.where: {measured, wallClock})
const TABLE_COLUMNS = [
  { head: "k" }, { head: "v(k)" },
  { head: "课上公式（c = 参数比，v = 1）", kind: "formula", where: () => "c = 参数比" },
  { head: "公式代入实测的 c、v(k)", kind: "formula-measured", where: (w) => w.measured },
  { head: "实测墙钟（中位数）", kind: "wall-clock", where: (w) => w.wallClock },
  { head: "墙钟最小–最大", kind: "wall-clock", where: (w) => w.wallClock },
];

/** The figures as a table: per draft and k, v(k), the lesson's prediction, the measured-cost one, the measured
 *  speedup with its spread, each speedup cell marked with its column's kind. args: {ks, drafts: [as measuredCosts],
 *  where, caption?}. */
export function measuredTable(args) {
  const { ks, where = {} } = args;
  const th = (col) => {
    const title = col.kind ? ` title="${escapeHtml(SPEED_KINDS[col.kind] + (col.where(where) ? `：${col.where(where)}` : ""))}"` : "";
    return `<th scope="col"${title}>${escapeHtml(col.head)}</th>`;
  };
  const head = `<thead><tr>${TABLE_COLUMNS.map(th).join("")}</tr></thead>`;
  const td = (text, i) => (TABLE_COLUMNS[i].kind ? `<td data-kind="${TABLE_COLUMNS[i].kind}">${text}</td>` : `<td>${text}</td>`);
  const groups = args.drafts.map((d) => {
    const s = draftSeries(d, ks);
    const rows = ks.map((k, i) => {
      const p = s.points.find((pt) => pt.k === k);
      const cells = [k, fixed(d.v[i], 2), times(s.lesson[i]), times(s.cost[i]), p ? times(p.median) : "—",
        p ? `${fixed(p.min, 2)}–${times(p.max)}` : "—"];
      return `<tr>${cells.map(td).join("")}</tr>`;
    }).join("");
    const label = `${d.name}：α = ${pct(d.alpha)}，c = ${fixed(d.c, 3)}（参数比 ${fixed(d.cParams, 3)}）`;
    return `<tbody><tr class="c13-group"><th colspan="${TABLE_COLUMNS.length}" scope="colgroup">${escapeHtml(label)}</th></tr>${rows}</tbody>`;
  }).join("");
  const caption = args.caption ? `<caption>${escapeHtml(args.caption)}</caption>` : "";
  return `<table class="c13-measured-table">${caption}${head}${groups}</table>`;
}

/** This module's figures by the name generator/pages/figure_table.py and the tests draw them by. */
export const FIGURES = { measured_costs: measuredCosts, measured_verify: measuredVerify, measured_table: measuredTable };
