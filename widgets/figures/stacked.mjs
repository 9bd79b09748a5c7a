// E2 · the stacked picture (green min(p, q) + blue (p − q)⁺ = p, red (q − p)⁺ on top) and the histogram of a
// run's outputs against p. Both share one column frame: the top-n tokens one by one, the rest folded into one
// column, a percentage axis, and each column's label and two figures under it. Each comes in two layouts in one
// wrapper (twoLayouts in svg.mjs; the page's CSS shows the one that fits the column): the wide one in columns, the
// narrow one (a phone's column, ≈ 300 px) turned on its side, one row per token with its label at the left, its
// bar across and its two figures at the right, so that no text is drawn under 12 px there.
import { num, pct, prob } from "./formats.mjs";
import { attrs, clip, escapeHtml, line, niceStep, patterns, rect, svg, text, tokenSpan, twoLayouts } from "./svg.mjs";

const COLUMN_WIDTH = 54;
const PLOT_HEIGHT = 170;
const LEFT = 60;
const STACKED_DESC = "每一列是一个 token：绿色是 min(p, q)，条纹蓝色是 p 超出 q 的部分，交叉线红色是 q 超出 p 的部分，" +
  "虚线框的高度是 p。";
const HISTOGRAM_DESC = "每一列是一个 token：实心柱是这次运行里输出它的比例，虚线框是目标分布 p 给它的概率。";
const STACKED_DESC_NARROW = "每一行是一个 token：绿色是 min(p, q)，条纹蓝色是 p 超出 q 的部分，交叉线红色是 q 超出 p 的部分，" +
  "虚线框的长度是 p。";
const HISTOGRAM_DESC_NARROW = "每一行是一个 token：实心条是这次运行里输出它的比例，虚线框是目标分布 p 给它的概率。";
// the narrow layout: width, the label column's right edge, the bars' span, the two figures' right edges, row pitch
// and bar height; 264 units wide, so that its 12-unit text stays at 11 px or more in a column of 245 px (a figure in
// a folded box inside an experiment on a 375 px phone)
const ROWS = { width: 264, labelEnd: 52, barX: 56, barEnd: 176, firstEnd: 220, secondEnd: 262, pitch: 22, bar: 14 };
const CLIP_ROOM = 30; // a bar cut at the frame's end leaves room for the word 截断 after it
const LEGEND_ONE_LINE = 560; // a wide frame narrower than this (a few columns) takes the two-line legend

const PARTS = ["p", "q", "overlap", "residual", "excess"];

/** The picture's columns from the generator's split of p and q (stacked_columns in generator/data/precompute.py,
 * made with sampler.py's overlap and residual): the first n shown tokens one by one, the ones after them added
 * into the folded rest. A split without `rest` (a small vocabulary drawn whole: the editable pair) has no rest. */
export function stackedColumns(columns, n) {
  const shownCount = Math.min(n, columns.tokens.length);
  const shown = Array.from({ length: shownCount }, (_, j) =>
    Object.fromEntries([["id", columns.tokens[j]], ...PARTS.map((part) => [part, columns[part][j]])]));
  if (!columns.rest) return shown;
  const rest = { id: null, count: columns.rest.count + columns.tokens.length - shownCount };
  for (const part of PARTS) {
    rest[part] = columns.rest[part];
    for (let j = shownCount; j < columns.tokens.length; j++) rest[part] += columns[part][j];
  }
  return [...shown, rest];
}

/** The columns drawn one by one: all but the folded rest, when there is one. */
function tokenColumns(columns) {
  return columns[columns.length - 1].id === null ? columns.slice(0, -1) : columns;
}

/** The percentage axis of both frames: about `count` round steps up to max; its top and [value, label] ticks. */
function percentTicks(max, count) {
  const step = niceStep(max / count);
  const roundMax = step * Math.ceil(max / step);
  const decimals = Math.max(0, -Math.floor(Math.log10(step * 100) + 1e-9));
  const ticks = [];
  for (let tick = 0; tick <= roundMax + 1e-12; tick += step) ticks.push([tick, pct(tick, decimals)]);
  return { roundMax, ticks };
}

/** The frame: axis with round percentages, a label and two lines of figures under each column. */
function columnFrame({ columns, ymax, top, labels, lines }) {
  const width = LEFT + COLUMN_WIDTH * columns.length + 20;
  const { roundMax, ticks } = percentTicks(ymax, 4);
  const scale = PLOT_HEIGHT / roundMax;
  const base = top + PLOT_HEIGHT;
  const parts = [];
  for (const [tick, tickLabel] of ticks) {
    const y = base - tick * scale;
    parts.push(line(LEFT - 4, y, width - 16, y, "c13-grid"),
      text(LEFT - 8, y + 4, tickLabel, { cls: "c13-muted", anchor: "end", size: 11 }));
  }
  const captions = columns.map((column, j) => {
    const centre = LEFT + COLUMN_WIDTH * j + 12 + (COLUMN_WIDTH - 22) / 2;
    const [first, second] = lines(column);
    const label = column.id === null ? "其余" : clip(labels[column.id]);
    return text(centre, base + 16, label, { cls: "c13-tok-label", size: column.id === null ? 11 : 13 }) +
      text(centre, base + 32, first, { size: 11 }) + text(centre, base + 46, second, { cls: "c13-muted", size: 11 });
  });
  return {
    parts, base, scale, width, height: base + 62, barWidth: COLUMN_WIDTH - 22,
    x: (j) => LEFT + COLUMN_WIDTH * j + 12,
    /** Each column's bars (drawn by the caller) followed by its label and figures. */
    columns: (bars) => bars.map((bar, j) => bar + captions[j]).join(""),
    axis: () => line(LEFT - 4, base, width - 16, base, "c13-axis"),
  };
}

function columnName(column, labels) {
  return column.id === null ? `其余 ${num(column.count)} 个 token` : labels[column.id];
}

function legendItems(id) {
  const items = [["c13-shared", null, "min(p, q)：两边共有"], ["c13-swatch", "resid", "p − q（p 更大处）"],
    ["c13-swatch", "excess", "q − p（草稿多给处）"]];
  const parts = [];
  let x = LEFT;
  for (const [cls, pattern, label] of items) {
    parts.push(rect(x, 10, 16, 12, cls, pattern ? { fill: `url(#${id}-${pattern})` } : null),
      text(x + 22, 21, label, { anchor: "start", size: 12 }));
    x += 34 + 12 * [...label].length;
  }
  parts.push(rect(x, 10, 16, 12, "c13-p-outline"), text(x + 22, 21, "虚线框 = p", { anchor: "start", size: 12 }),
    text(LEFT, 44, "绿 + 蓝 = p；绿 + 红 = q", { cls: "c13-muted", anchor: "start", size: 11 }));
  return parts.join("");
}

function stackedColumn(column, j, frame, { id, marked, labels }) {
  const x = frame.x(j);
  const bar = frame.barWidth;
  // the folded rest has both blue and red: its stack is taller than max(p, q)
  const tallest = (column.overlap + column.residual + column.excess) * frame.scale;
  const clipped = tallest > PLOT_HEIGHT;
  const shrink = clipped ? (PLOT_HEIGHT - 6) / tallest : 1;
  const [shared, resid, excess] = [column.overlap, column.residual, column.excess].map((v) => v * frame.scale * shrink);
  const isMarked = column.id !== null && column.id === marked;
  const tip = `${columnName(column, labels)}：p = ${prob(column.p)}，q = ${prob(column.q)}，min(p, q) = ${prob(column.overlap)}`;
  const parts = [`<g${attrs({ class: isMarked ? "c13-col c13-col-x" : "c13-col", "data-token": column.id ?? "rest" })}>`,
    `<title>${escapeHtml(tip)}</title>`, rect(x, frame.base - shared, bar, shared, "c13-shared")];
  if (resid > 0) parts.push(rect(x, frame.base - shared - resid, bar, resid, "c13-resid-bar", { fill: `url(#${id}-resid)` }));
  if (excess > 0) {
    parts.push(rect(x, frame.base - shared - resid - excess, bar, excess, "c13-excess-bar", { fill: `url(#${id}-excess)` }));
  }
  parts.push(rect(x - 2, frame.base - shared - resid, bar + 4, shared + resid, "c13-p-outline"));
  if (clipped) parts.push(text(x + bar / 2, frame.base - PLOT_HEIGHT - 4, "（截断）", { cls: "c13-muted", size: 11 }));
  if (isMarked) {
    parts.push(text(x + bar / 2, frame.base - shared - resid - excess - 6, "x", { cls: "c13-strong c13-x-mark", size: 12 }));
  }
  parts.push("</g>");
  return parts.join("");
}

/** The narrow frame: one row per column, a percentage axis across the top with the two figures' heads beside it,
 * each row's label at the left and its two figures at the right. */
function rowFrame({ columns, xmax, top, labels, heads, lines }) {
  const span = ROWS.barEnd - ROWS.barX;
  const { roundMax, ticks } = percentTicks(xmax, 3);
  const scale = span / roundMax;
  const first = top + 20;
  const bottom = first + ROWS.pitch * columns.length;
  const parts = [];
  for (const [tick, tickLabel] of ticks) {
    const x = ROWS.barX + tick * scale;
    parts.push(line(x, top + 16, x, bottom, "c13-grid"),
      text(x, top + 12, tickLabel, { cls: "c13-muted", size: 12 }));
  }
  parts.push(text(ROWS.firstEnd, top + 12, heads[0], { cls: "c13-muted", anchor: "end", size: 12 }),
    text(ROWS.secondEnd, top + 12, heads[1], { cls: "c13-muted", anchor: "end", size: 12 }));
  const captions = columns.map((column, j) => {
    const y = first + ROWS.pitch * j + 15.5;
    const [one, two] = lines(column);
    const label = column.id === null ? "其余" : clip(labels[column.id]);
    return text(ROWS.labelEnd, y, label, { cls: "c13-tok-label", anchor: "end", size: 13 }) +
      text(ROWS.firstEnd, y, one, { anchor: "end", size: 12 }) +
      text(ROWS.secondEnd, y, two, { cls: "c13-muted", anchor: "end", size: 12 });
  });
  return {
    parts, scale, span, height: bottom + 6, barHeight: ROWS.bar,
    y: (j) => first + ROWS.pitch * j + 4,
    columns: (bars) => bars.map((bar, j) => bar + captions[j]).join(""),
    axis: () => line(ROWS.barX, top + 16, ROWS.barX, bottom, "c13-axis"),
  };
}

/** The narrow legend: two items a line, then the sums. */
function rowLegend(id) {
  const items = [["c13-shared", null, "min(p, q)：共有", 4, 16], ["c13-p-outline", null, "虚线框 = p", 140, 16],
    ["c13-swatch", "resid", "p − q：p 更大处", 4, 38], ["c13-swatch", "excess", "q − p：草稿多给", 140, 38]];
  return items.map(([cls, pattern, label, x, y]) =>
    rect(x, y - 11, 16, 12, cls, pattern ? { fill: `url(#${id}-${pattern})` } : null) +
    text(x + 22, y, label, { anchor: "start", size: 12 })).join("") +
    text(4, 60, "绿 + 蓝 = p；绿 + 红 = q", { cls: "c13-muted", anchor: "start", size: 12 });
}

/** One row of the narrow stacked picture: green, blue, red from the left, the dashed p around green + blue. */
function stackedRow(column, j, frame, { id, marked, labels }) {
  const y = frame.y(j);
  const h = frame.barHeight;
  // the folded rest has both blue and red: its bar is longer than max(p, q)
  const longest = (column.overlap + column.residual + column.excess) * frame.scale;
  const clipped = longest > frame.span;
  const shrink = clipped ? (frame.span - CLIP_ROOM) / longest : 1;
  const [shared, resid, excess] = [column.overlap, column.residual, column.excess].map((v) => v * frame.scale * shrink);
  const isMarked = column.id !== null && column.id === marked;
  const tip = `${columnName(column, labels)}：p = ${prob(column.p)}，q = ${prob(column.q)}，min(p, q) = ${prob(column.overlap)}`;
  const parts = [`<g${attrs({ class: isMarked ? "c13-col c13-col-x" : "c13-col", "data-token": column.id ?? "rest" })}>`,
    `<title>${escapeHtml(tip)}</title>`, rect(ROWS.barX, y, shared, h, "c13-shared")];
  if (resid > 0) parts.push(rect(ROWS.barX + shared, y, resid, h, "c13-resid-bar", { fill: `url(#${id}-resid)` }));
  if (excess > 0) {
    parts.push(rect(ROWS.barX + shared + resid, y, excess, h, "c13-excess-bar", { fill: `url(#${id}-excess)` }));
  }
  parts.push(rect(ROWS.barX, y - 2, shared + resid, h + 4, "c13-p-outline"));
  let end = ROWS.barX + shared + resid + excess;
  if (clipped) {
    parts.push(text(end + 3, y + 11.5, "截断", { cls: "c13-muted", anchor: "start", size: 12 }));
    end += CLIP_ROOM - 2;
  }
  if (isMarked) parts.push(text(end + 8, y + 11.5, "x", { cls: "c13-strong c13-x-mark", size: 13 }));
  parts.push("</g>");
  return parts.join("");
}

/** The title of the stacked picture of a prefix and a draft. */
export function stackedTitle(prefix, draft, n) {
  return `前缀“${prefix}”处目标 p 与 ${draft} 的 q 叠放：前 ${n} 个 token 加其余折叠`;
}

function stackedLayout({ columns: split, labels, n, prefix, draft, marked, legend, title }, layout, id) {
  const columns = stackedColumns(split, n);
  const max = Math.max(...tokenColumns(columns).map((c) => Math.max(c.p, c.q))) || 1;
  title ??= stackedTitle(prefix, draft, n);
  const lines = (c) => [`p ${prob(c.p)}`, `q ${prob(c.q)}`];
  if (layout === "narrow") {
    const frame = rowFrame({ columns, xmax: max, top: legend ? 66 : 4, labels, heads: ["p", "q"],
      lines: (c) => [prob(c.p), prob(c.q)] });
    const bars = columns.map((column, j) => stackedRow(column, j, frame, { id, marked, labels }));
    const body = patterns(id) + (legend ? rowLegend(id) : "") + frame.parts.join("") + frame.columns(bars) + frame.axis();
    return svg(id, ROWS.width, frame.height, title, body, STACKED_DESC_NARROW);
  }
  const twoLines = LEFT + COLUMN_WIDTH * columns.length + 20 < LEGEND_ONE_LINE; // columnFrame's width
  const frame = columnFrame({ columns, ymax: max, top: legend ? (twoLines ? 80 : 70) : 22, labels, lines });
  const bars = columns.map((column, j) => stackedColumn(column, j, frame, { id, marked, labels }));
  const legendMarkup = twoLines ? rowLegend(id) : legendItems(id);
  const body = patterns(id) + (legend ? legendMarkup : "") + frame.parts.join("") + frame.columns(bars) + frame.axis();
  return svg(id, frame.width, frame.height, title, body, STACKED_DESC);
}

/** The stacked picture in its two layouts. args: {columns (the generator's split), labels, n, id, prefix, draft,
 * marked (a token id or null), legend (drawn inside the picture, on by default), title (default: the prefix's)}. */
export function stackedPicture({ marked = null, legend = true, ...args }) {
  return twoLayouts(args.id, (layout, svgId) => stackedLayout({ ...args, marked, legend }, layout, svgId),
    { cls: "c13-stack" });
}

/** One bar of the histogram: the share drawn solid inside the dashed p, in a column (wide) or a row (narrow). */
function histogramBar(column, j, frame, narrow) {
  const limit = narrow ? frame.span : PLOT_HEIGHT;
  const longest = Math.max(column.share, column.p) * frame.scale;
  const clipped = longest > limit;
  const shrink = clipped ? (limit - (narrow ? CLIP_ROOM : 6)) / longest : 1;
  const [share, target] = [column.share, column.p].map((v) => v * frame.scale * shrink);
  const tip = `${columnName(column, frame.labels)}：输出 ${prob(column.share)}，p = ${prob(column.p)}`;
  let bars;
  if (narrow) {
    const y = frame.y(j);
    bars = rect(ROWS.barX, y + 3, share, frame.barHeight - 6, "c13-emp") +
      rect(ROWS.barX, y - 2, target, frame.barHeight + 4, "c13-p-outline") +
      (clipped ? text(ROWS.barX + Math.max(share, target) + 3, y + 11.5, "截断",
        { cls: "c13-muted", anchor: "start", size: 12 }) : "");
  } else {
    const x = frame.x(j);
    bars = rect(x + 3, frame.base - share, frame.barWidth - 6, share, "c13-emp") +
      rect(x - 2, frame.base - target, frame.barWidth + 4, target, "c13-p-outline") +
      (clipped ? text(x + frame.barWidth / 2, frame.base - PLOT_HEIGHT - 4, "（截断）", { cls: "c13-muted", size: 11 }) : "");
  }
  return `<g${attrs({ class: "c13-col", "data-token": column.id ?? "rest" })}><title>${escapeHtml(tip)}</title>` +
    bars + "</g>";
}

/** A run's outputs against p over the same columns, in two layouts. args: {columns, labels, n, counts, total, id,
 * title}. */
export function outputHistogram({ columns: split, labels, n, counts, total, id, title }) {
  const columns = stackedColumns(split, n);
  const tokens = tokenColumns(columns);
  let restCount = total;
  for (const column of tokens) {
    column.share = counts[column.id] / total;
    restCount -= counts[column.id];
  }
  if (tokens.length < columns.length) columns[columns.length - 1].share = restCount / total;
  const max = Math.max(...tokens.map((c) => Math.max(c.p, c.share))) || 1;
  return twoLayouts(id, (layout, svgId) => {
    const narrow = layout === "narrow";
    const frame = narrow ?
      rowFrame({ columns, xmax: max, top: 4, labels, heads: ["出", "p"], lines: (c) => [prob(c.share), prob(c.p)] }) :
      columnFrame({ columns, ymax: max, top: 22, labels, lines: (c) => [`出 ${prob(c.share)}`, `p ${prob(c.p)}`] });
    frame.labels = labels;
    const bars = columns.map((column, j) => histogramBar(column, j, frame, narrow));
    const body = patterns(svgId) + frame.parts.join("") + frame.columns(bars) + frame.axis();
    return svg(svgId, narrow ? ROWS.width : frame.width, frame.height, title, body,
      narrow ? HISTOGRAM_DESC_NARROW : HISTOGRAM_DESC);
  }, { cls: "c13-stack" });
}

/** The numbers behind the stacked picture: one table row per shown token (the picture's order), as <tbody>.
 * args: {columns, labels, n}. Columns: token, p, q, min(p, q), p − q where p is larger, q − p where q is larger. */
export function stackedRows({ columns, labels, n }) {
  const rows = tokenColumns(stackedColumns(columns, n)).map((c) => `<tr><td>${tokenSpan(labels, c.id)}</td>` +
    [c.p, c.q, c.overlap, c.residual, c.excess].map((v) => `<td>${prob(v)}</td>`).join("") + "</tr>");
  return `<tbody>${rows.join("")}</tbody>`;
}

/** This module's figures by the name generator/pages/figure_table.py and the tests draw them by. */
export const FIGURES = { stacked: stackedPicture, stacked_rows: stackedRows, histogram: outputHistogram };
