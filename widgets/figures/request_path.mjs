// E1 · the request path of one decode step, with the anchor's roofline figures in its cells.
// Each cell is <g class="c13-cell" data-cell="…">: the live widget makes them buttons by that attribute.
// Two layouts in one element, one shown by a container query (widgets/css/e1.css): the wide one (the path from
// left to right) and the narrow one for phones (top to bottom, the side paths in a column on the right), both
// drawn at a size where every text is at least 11 px on a 375 px screen.
import { gb, gflop, ms } from "./formats.mjs";
import { attrs, line, patterns, rect, svg, text, twoLayouts } from "./svg.mjs";

const NARROW_WIDTH = 290;

function box(x, y, width, height, cell, lines, cls = "c13-box", sizes = [13, 11]) {
  const parts = [`<g${attrs({ class: "c13-cell", "data-cell": cell })}>`, rect(x, y, width, height, cls, { rx: 6 })];
  lines.forEach(([content, lineClass], i) => {
    parts.push(text(x + width / 2, y + 20 + 17 * i, content, { cls: lineClass, size: sizes[i === 0 ? 0 : 1] }));
  });
  parts.push("</g>");
  return parts.join("");
}

function decodeCells(anchor) {
  const positions = anchor.positions_verified;
  return [
    ["read", "读全部权重", [gb(anchor.bytes_read_per_token), `≥ ${ms(anchor.weight_read_ms_per_token)}`]],
    ["compute", "计算", [`${gflop(anchor.flops_per_position)}/位置`, `≥ ${ms(anchor.compute_ms_per_token)}`,
      `${positions} 个位置 ≥ ${ms(anchor.compute_ms_for_positions)}`]],
    ["sample", "采样", ["按分布抽一个", "token"]],
    ["append", "追加", ["接到序列末尾", "进入下一步"]],
  ];
}

/** The decode loop's frame, its four cells and the loop back; returns the parts and each cell's centre. */
function decodeLoop(anchor, y, arrow) {
  const link = (x1, y1, x2, y2) => line(x1, y1, x2, y2, "c13-edge", { "marker-end": arrow });
  const parts = [rect(240, 44, 500, 150, "c13-loop", { rx: 10 }),
    text(252, 64, "解码循环：每一步只产出一个 token", { cls: "c13-strong", anchor: "start", size: 12 })];
  const centre = {};
  const cells = decodeCells(anchor);
  let x = 252;
  cells.forEach(([cell, name, lines], i) => {
    const width = cell === "compute" ? 128 : 112;
    parts.push(box(x, y - 20, width, 82, cell, [[name, "c13-strong"], ...lines.map((s) => [s, ""])]));
    centre[cell] = x + width / 2;
    if (i < cells.length - 1) parts.push(link(x + width, y + 21, x + width + 10, y + 21));
    x += width + 10;
  });
  parts.push(`<path d="M${Math.round(centre.append)} ${y + 62} V${y + 84} H${Math.round(centre.read)} V${y + 62}" ` +
    `class="c13-edge" fill="none" marker-end="${arrow}"/>`);
  parts.push(text((centre.read + centre.append) / 2, y + 80, "下一个 token", { size: 11 }));
  return { parts, centre };
}

function wideLayout(anchor, id) {
  const arrow = `url(#${id}-arrow)`;
  const link = (x1, y1, x2, y2) => line(x1, y1, x2, y2, "c13-edge", { "marker-end": arrow });
  const dashed = (x1, y1, x2, y2) => line(x1, y1, x2, y2, "c13-edge c13-dashed");
  const y = 100;
  const loop = decodeLoop(anchor, y, arrow);
  const { centre } = loop;
  const parts = [
    patterns(id),
    box(10, y - 4, 80, 66, "tokenize", [["分词", "c13-strong"], ["文字 → id", ""]]),
    link(90, y + 29, 112, y + 29),
    box(114, y - 4, 100, 66, "prefill", [["预填充", "c13-strong"], ["整段提示词", ""], ["一次前向", ""]]),
    link(214, y + 29, 238, y + 29),
    ...loop.parts,
    link(740, y + 29, 764, y + 29),
    box(766, y - 4, 84, 66, "detokenize", [["还原文字", "c13-strong"], ["id → 文字", ""]]),
    box(300, 226, 320, 44, "kv", [["KV 缓存（旁路）", "c13-strong"], ["预填充写入；每步读取，并追加新位置", ""]],
      "c13-box c13-side"),
    dashed(164, y + 62, 300, 248),
    dashed(centre.compute, 194, centre.compute, 226),
    box(centre.sample - 75, 4, 150, 34, "params", [["采样参数（旁路）", "c13-strong"]], "c13-box c13-side"),
    dashed(centre.sample, 38, centre.sample, y - 20),
  ];
  return svg(id, 860, 280, pathTitle(anchor), parts.join(""));
}

function pathTitle(anchor) {
  return `一次请求在服务器上的路径，格子里是锚点模型 ${anchor.model} 在 ${anchor.hardware} 上批量 1 时的下界`;
}

/** The cells of the narrow layout, top to bottom: [cell, y, lines]; a box is 29 + 17 per line high. */
function narrowCells(anchor) {
  const main = [["tokenize", ["分词", "文字 → id"]], ["prefill", ["预填充", "整段提示词", "一次前向"]],
    ...decodeCells(anchor).map(([cell, name, lines]) => [cell, [name, ...lines]]),
    ["detokenize", ["还原文字", "id → 文字"]]];
  main[5][1] = ["追加", "接到序列末尾", "进入下一步"];
  let y = 8;
  return main.map(([cell, lines]) => {
    const top = y;
    y += 29 + 17 * (lines.length - 1) + 22 + (cell === "prefill" ? 58 : cell === "append" ? 64 : 0);
    return [cell, top, lines];
  });
}

/** The narrow layout: the main path down the left, the decode loop framed, the side paths on the right. */
function narrowLayout(anchor, id) {
  const arrow = `url(#${id}-arrow)`;
  const [x, w, xSide, wSide] = [36, 148, 204, 82];
  const height = (lines) => 29 + 17 * (lines.length - 1);
  const cells = narrowCells(anchor);
  const at = Object.fromEntries(cells.map(([cell, y, lines]) => [cell, { y, h: height(lines) }]));
  const mid = (cell) => at[cell].y + at[cell].h / 2;
  const parts = [patterns(id)];
  const [loopTop, loopBottom] = [at.read.y - 52, at.append.y + at.append.h + 42];
  parts.push(rect(12, loopTop, 186, loopBottom - loopTop, "c13-loop", { rx: 10 }),
    text(x + 26, loopTop + 20, "解码循环", { cls: "c13-strong", anchor: "start", size: 13 }),
    text(x + 26, loopTop + 38, "每步只产出一个 token", { anchor: "start", size: 12 }));
  cells.forEach(([cell, y, lines], i) => {
    parts.push(box(x, y, w, height(lines), cell, lines.map((s, j) => [s, j === 0 ? "c13-strong" : ""]), "c13-box", [14, 12]));
    const next = cells[i + 1];
    if (next) parts.push(line(x + 14, y + height(lines), x + 14, next[1] - 2, "c13-edge", { "marker-end": arrow }));
  });
  const back = at.append.y + at.append.h + 12;
  parts.push(`<path d="M${x + w / 2} ${at.append.y + at.append.h} V${back} H24 V${mid("read")} H${x - 2}" ` +
    `class="c13-edge" fill="none" marker-end="${arrow}"/>`, text(x + w / 2 + 8, back + 16, "回到读权重：下一个 token", { size: 12 }));
  const kv = { y: at.read.y - 8, lines: ["KV 缓存", "（旁路）", "预填充写入；", "每步读取，", "追加新位置"] };
  const dashed = (d) => `<path d="${d}" class="c13-edge c13-dashed" fill="none"/>`;
  parts.push(box(xSide, kv.y, wSide, height(kv.lines), "kv", kv.lines.map((s, j) => [s, j < 2 ? "c13-strong" : ""]),
    "c13-box c13-side", [12, 12]),
  dashed(`M${xSide + wSide / 2} ${kv.y} V${mid("prefill")} H${x + w}`),
  dashed(`M${xSide + wSide / 2} ${kv.y + height(kv.lines)} V${mid("compute")} H${x + w}`),
  box(xSide, mid("sample") - 23, wSide, 46, "params", [["采样参数", "c13-strong"], ["（旁路）", "c13-strong"]],
    "c13-box c13-side", [12, 12]),
  dashed(`M${xSide} ${mid("sample")} H${x + w}`));
  const bottom = at.detokenize.y + at.detokenize.h + 8;
  return svg(id, NARROW_WIDTH, bottom, pathTitle(anchor), parts.join(""));
}

/** The whole diagram: tokenize → prefill → decode loop → detokenize, with the KV cache and the sampling
 * parameters as side paths, in its two layouts. args: {anchor, id}. */
export function requestPath({ anchor, id = "e1-path" }) {
  return twoLayouts(id, (layout, svgId) => (layout === "wide" ? wideLayout : narrowLayout)(anchor, svgId),
    { cls: "c13-path" });
}

/** This module's figures by the name generator/pages/figure_table.py and the tests draw them by. */
export const FIGURES = { request_path: requestPath };
