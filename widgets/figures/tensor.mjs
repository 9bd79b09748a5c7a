// E3 · one target forward verifies k draft tokens: the tensor shapes of P = softmax(f_target([x0 … xk]) / T),
// Q and the accept mask. Scores are gradient blocks, indices numbered slots, the mask is dotted (accepted),
// solid (the rejection) or a dashed empty box (never read). Edges are log-scaled — the same n gives the same
// length everywhere in a drawing — with the real number written on them.
// Two layouts in one element, one shown by a container query (widgets/css/e3.css): the wide one (positions down,
// the vocabulary across) and the narrow one for phones (drawn transposed: one column per position).
import { num } from "./formats.mjs";
import { line, patterns, rect, svg, text, twoLayouts } from "./svg.mjs";

const SLOT = 26;
const X_INPUT = 84;   // room on the left for the "k+1 = 5" written along the inputs
const X_SCORES = 214;
const SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉";
const NARROW_WIDTH = 264;  // drawn at full size in a 271 px column (the closed static box on a 375 px phone)
const NARROW_UNIT = 22;

/** Length of an edge of n elements: log-scaled (`unit` per doubling). */
export function edgeLength(n, unit = 20) {
  return unit * (1 + Math.log2(n));
}

function subscript(i) {
  return String(i).replace(/\d/g, (digit) => SUBSCRIPTS[Number(digit)]);
}

/** The accept mask of a round for k drafted tokens: true (accepted), false (the rejection), null (not read). */
export function maskFor(accepted, k) {
  return Array.from({ length: k }, (_, i) => (i < accepted ? true : i === accepted ? false : null));
}

/** E3's mask for k drafted tokens. At the recorded run's own k: its first round that shows all three cases
 * (accepted, the rejection, not read), else one with a rejection after an acceptance, else its first round.
 * At another k there is no recorded round: an illustration (one accepted, then the rejection, the rest unread).
 * Returns {mask, round (1-based, null for an illustration), replayK}. */
export function replayMask(replay, k) {
  const rounds = replay.rounds || [];
  if (k === replay.k && rounds.length) {
    const tests = [(r) => r.accepted > 0 && r.accepted <= k - 2, (r) => r.accepted > 0 && r.accepted < k, () => true];
    const index = tests.map((test) => rounds.findIndex(test)).find((i) => i >= 0);
    return { mask: maskFor(rounds[index].accepted, k), round: index + 1, replayK: replay.k };
  }
  return { mask: maskFor(Math.min(1, k - 1), k), round: null, replayK: replay.k };
}

/** Where the drawn mask comes from, in one short line. */
export function maskSource({ round, replayK }, k) {
  if (round) return `掩码：回放第 ${round} 轮的真实判定（k = ${k}）`;
  if (replayK) return `掩码只是示意（回放的 k = ${replayK}）`;
  return "掩码只是示意";
}

const maskWord = (m) => (m === null ? "—" : m ? "是" : "否");

function maskCell(id, x, y, width, height, accepted) {
  if (accepted === null) return rect(x, y, width, height, "c13-mask-blank");
  return accepted ? rect(x, y, width, height, "c13-mask c13-mask-yes", { fill: `url(#${id}-dots)` })
    : rect(x, y, width, height, "c13-mask c13-mask-no");
}

function slots(x, y, n, names) {
  const height = edgeLength(n) / n;
  const parts = [];
  for (let i = 0; i < n; i++) {
    parts.push(rect(x, y + i * height, SLOT, height, "c13-index"));
    if (height >= 13) parts.push(text(x + SLOT / 2, y + i * height + height / 2 + 4, names[i], { size: 11 }));
  }
  return parts.join("");
}

function scoreGrid(id, x, y, width, height, rows, columns) {
  const parts = [rect(x, y, width, height, "c13-score", { fill: `url(#${id}-score)` })];
  if (columns <= 32) {
    for (let c = 1; c < columns; c++) {
      parts.push(line(x + (width * c) / columns, y, x + (width * c) / columns, y + height, "c13-cellline"));
    }
  }
  if (rows <= 32) {
    for (let r = 1; r < rows; r++) parts.push(line(x, y + (height * r) / rows, x + width, y + (height * r) / rows, "c13-cellline"));
  }
  return parts.join("");
}

function horizontalDimension(from, to, y, label, size = 11) {
  return line(from, y, to, y, "c13-dim") + text((from + to) / 2, y - 4, label, { cls: "c13-dimtext", size });
}

function verticalDimension(x, from, to, label, side, size = 11) {
  const left = side === "left";
  return line(x, from, x, to, "c13-dim") +
    text(x + (left ? -4 : 4), (from + to) / 2 + 4, label, { cls: "c13-dimtext", anchor: left ? "end" : "start", size });
}

function positionNames(k) {
  return ["x₀", ...Array.from({ length: k }, (_, i) => `x${subscript(i + 1)}`)];
}

function inputsAndScores(id, { V, k, yP, yQ }) {
  const k1 = k + 1;
  const [eV, ek1, ek] = [edgeLength(V), edgeLength(k1), edgeLength(k)];
  const arrow = { "marker-end": `url(#${id}-arrow)` };
  const middle = (X_INPUT + SLOT + X_SCORES) / 2;
  const names = positionNames(k);
  return [
    text(X_INPUT + SLOT / 2, yP - 30, "输入 x", { cls: "c13-strong", size: 12 }),
    text(X_INPUT + SLOT / 2, yP - 14, "索引", { cls: "c13-muted", size: 11 }),
    slots(X_INPUT, yP, k1, names), verticalDimension(X_INPUT - 6, yP, yP + ek1, `k+1 = ${k1}`, "left"),
    line(X_INPUT + SLOT + 6, yP + ek1 / 2, X_SCORES - 8, yP + ek1 / 2, "c13-edge", arrow),
    text(middle, yP + ek1 / 2 - 8, "f_target ÷ T", { size: 11 }), text(middle, yP + ek1 / 2 + 16, "softmax", { size: 11 }),
    scoreGrid(id, X_SCORES, yP, eV, ek1, k1, V),
    text(X_SCORES, yP - 30, "P：目标的 k+1 个分布（分数，连续值）", { cls: "c13-strong", anchor: "start", size: 12 }),
    horizontalDimension(X_SCORES, X_SCORES + eV, yP - 8, `V = ${num(V)}`),
    verticalDimension(X_SCORES + eV + 8, yP, yP + ek1, `k+1 = ${k1}`, "right"),
    scoreGrid(id, X_SCORES, yQ, eV, ek, k, V),
    text(X_SCORES, yQ - 30, "Q：草稿逐个给出的 k 个分布（分数）", { cls: "c13-strong", anchor: "start", size: 12 }),
    horizontalDimension(X_SCORES, X_SCORES + eV, yQ - 8, `V = ${num(V)}`),
    verticalDimension(X_SCORES + eV + 8, yQ, yQ + ek, `k = ${k}`, "right"),
    slots(X_INPUT, yQ, k, names.slice(1)),
    text(X_INPUT + SLOT / 2, yQ - 14, "草稿 token", { cls: "c13-muted", size: 11 }),
    verticalDimension(X_INPUT - 6, yQ, yQ + ek, `k = ${k}`, "left"),
    line(X_SCORES - 8, yQ + ek / 2, X_INPUT + SLOT + 6, yQ + ek / 2, "c13-edge", arrow),
    text(middle, yQ + ek / 2 - 8, "抽样", { size: 11 }),
  ].join("");
}

function acceptMask(id, { k, mask, xM, yQ }) {
  const height = edgeLength(k) / k;
  const parts = [text(xM + SLOT / 2, yQ - 30, "接受掩码", { cls: "c13-strong", size: 12 }),
    text(xM + SLOT / 2, yQ - 14, "是 / 否", { cls: "c13-muted", size: 11 })];
  mask.forEach((accepted, i) => {
    const y = yQ + i * height;
    parts.push(maskCell(id, xM, y, SLOT, height, accepted));
    if (height >= 13) parts.push(text(xM + SLOT + 6, y + height / 2 + 4, maskWord(accepted), { anchor: "start", size: 11 }));
  });
  return parts.join("");
}

/** The title of the diagram at the real scale (the anchor's vocabulary) or the small one. */
export function tensorTitle(scale, V) {
  return scale === "real" ? "真实规模的张量形状：P、Q、x 与接受掩码" : `小规模的张量形状：V = ${num(V)}`;
}

function description({ V, k, mask }, source, transposed) {
  const words = mask.map((m) => (m === null ? "未读" : m ? "是" : "否")).join("、");
  return `输入 x 是 ${k + 1} 个索引；P 是 ${k + 1} × ${num(V)} 的分数矩阵，Q 是 ${k} × ${num(V)}；` +
    `接受掩码有 ${k} 格：${words}。${source}。边长按对数画${transposed ? "；窄屏版转置画，每一列是一个位置" : ""}。`;
}

function wideLayout(args, source) {
  const { V, k, mask, scale } = args;
  const id = `${args.id}-wide`;
  const span = Math.max(edgeLength(V), 250);
  const yP = 70;
  const yQ = yP + edgeLength(k + 1) + 66;
  const xM = X_SCORES + span + 72;
  const bottom = yQ + edgeLength(k);
  const middle = X_SCORES + span / 2;
  const body = patterns(id) + inputsAndScores(id, { V, k, yP, yQ }) + acceptMask(id, { k, mask, xM, yQ }) +
    text(middle, bottom + 28, "取 P 与 Q 在 xᵢ 处的值：min(1, P[i, xᵢ] / Q[i, xᵢ]) → 掩码", { cls: "c13-muted", size: 11 }) +
    text(middle, bottom + 46, "掩码：圆点 = 接受，实心 = 拒绝，留白（虚线框）= 前面已被拒，这一格不再读", { cls: "c13-muted", size: 11 }) +
    text(middle, bottom + 64, source, { cls: "c13-muted c13-mask-source", size: 11 });
  return svg(id, Math.round(X_SCORES + span + 150), Math.round(bottom + 90), tensorTitle(scale, V), body,
    description(args, source, false));
}

/** A row of n equal cells across `width` (columns of the transposed drawing), labelled when there is room. */
function cellRow(x, y, width, n, height, draw, labels) {
  const w = width / n;
  const parts = [];
  for (let i = 0; i < n; i++) {
    parts.push(draw(x + i * w, y, w, height, i));
    if (labels && w >= 14) parts.push(text(x + (i + 0.5) * w, y + height / 2 + 4, labels[i], { size: 12 }));
  }
  return parts.join("");
}

function narrowColumns(id, { V, k, mask }, ys) {
  const u = NARROW_UNIT;
  const [eV, ek1, ek] = [edgeLength(V, u), edgeLength(k + 1, u), edgeLength(k, u)];
  const xP = 64;
  const xQ = xP + ek1 + 20;
  const names = positionNames(k);
  const arrow = { "marker-end": `url(#${id}-arrow)` };
  const { yX, yM } = ys;
  const yBelow = yM + eV;
  const below = (i) => yBelow + 34 + i * 40;
  const end = xQ - 8;
  return [
    text(xP, yX - 26, "输入 x（索引）", { cls: "c13-strong", anchor: "start", size: 13 }),
    horizontalDimension(xP, xP + ek1, yX - 6, `k+1 = ${k + 1}`, 12),
    cellRow(xP, yX, ek1, k + 1, 24, (x, y, w, h) => rect(x, y, w, h, "c13-index"), names),
    line(xP + ek1 / 2, yX + 28, xP + ek1 / 2, yM - 42, "c13-edge", arrow),
    text(xP + ek1 / 2 + 8, yX + 46, "f_target ÷ T，softmax", { anchor: "start", size: 12 }),
    text(xP, yM - 26, "P：目标", { cls: "c13-strong", anchor: "start", size: 13 }),
    text(xQ, yM - 26, "Q：草稿", { cls: "c13-strong", anchor: "start", size: 13 }),
    horizontalDimension(xP, xP + ek1, yM - 6, `k+1 = ${k + 1}`, 12),
    horizontalDimension(xQ, xQ + ek, yM - 6, `k = ${k}`, 12),
    scoreGrid(id, xP, yM, ek1, eV, V, k + 1),
    scoreGrid(id, xQ, yM, ek, eV, V, k),
    line(xP - 8, yM, xP - 8, yBelow, "c13-dim"),
    text(xP - 12, yM + eV / 2 - 4, "V =", { cls: "c13-dimtext", anchor: "end", size: 12 }),
    text(xP - 12, yM + eV / 2 + 12, num(V), { cls: "c13-dimtext", anchor: "end", size: 12 }),
    line(xQ + ek / 2, yBelow + 4, xQ + ek / 2, below(0) - 4, "c13-edge", arrow),
    text(end, below(0) - 10, "抽样 ↓", { anchor: "end", size: 12 }),
    text(end, below(0) + 16, "草稿 token", { anchor: "end", size: 12 }),
    cellRow(xQ, below(0), ek, k, 24, (x, y, w, h) => rect(x, y, w, h, "c13-index"), names.slice(1)),
    text(end, below(1) + 16, "接受掩码", { cls: "c13-strong", anchor: "end", size: 12 }),
    cellRow(xQ, below(1), ek, k, 24, (x, y, w, h, i) => maskCell(id, x, y, w, h, mask[i])),
    cellRow(xQ, below(1) + 26, ek, k, 18, () => "", mask.map(maskWord)),
  ].join("");
}

function narrowLayout(args, source) {
  const { V, k, scale } = args;
  const id = `${args.id}-narrow`;
  const ys = { yX: 70, yM: 172 };
  const top = ys.yM + edgeLength(V, NARROW_UNIT) + 34 + 2 * 40 + 24;
  const notes = ["第 i 列：取 P、Q 在 xᵢ 处的值，", "min(1, P / Q) → 掩码的第 i 格", "圆点 = 接受，实心 = 拒绝，",
    "虚线空格 = 前面已被拒，不再读", source];
  const body = patterns(id) + text(8, 18, "窄屏版：转置画，每一列是一个位置", { cls: "c13-muted", anchor: "start", size: 12 }) +
    narrowColumns(id, args, ys) +
    notes.map((note, i) => text(8, top + 20 * i, note, { cls: i === notes.length - 1 ? "c13-muted c13-mask-source" : "c13-muted",
      anchor: "start", size: 12 })).join("");
  return svg(id, NARROW_WIDTH, Math.round(top + 20 * notes.length), tensorTitle(scale, V), body,
    description(args, source, true));
}

/** The diagram in its two layouts. args: {V, k, replay (its k and rounds: the mask is read from it) or mask
 * (k entries of true/false/null, drawn as given), id, scale ("real" | "small")}. */
export function tensorShapes({ V, k, mask = null, replay = null, id, scale }) {
  if (!mask && !replay) throw new Error("tensor: give the replay (or a mask)");
  const chosen = mask ? { mask, round: null, replayK: null } : replayMask(replay, k);
  if (chosen.mask.length !== k) throw new Error(`tensor: the mask has ${chosen.mask.length} entries for k = ${k}`);
  const args = { V, k, mask: chosen.mask, id, scale };
  const source = maskSource(chosen, k);
  return twoLayouts(id, (layout) => (layout === "wide" ? wideLayout : narrowLayout)(args, source),
    { cls: "c13-tensor", extra: { "data-k": k, "data-mask-round": chosen.round ?? "" } });
}

/** This module's figures by the name generator/pages/figure_table.py and the tests draw them by. */
export const FIGURES = { tensor: tensorShapes };
