// E3 · one target forward verifies k draft tokens: the tensor shapes of P = softmax(f_target([x0 … xk]) / T),
// Q and the accept mask. Scores are gradient blocks, indices numbered slots, masks hatched (blank = not read).
// Edges are log-scaled — the same n gives the same length everywhere — with the real number written on them.
import { num } from "./formats.mjs";
import { line, patterns, rect, svg, text } from "./svg.mjs";

const SLOT = 26;
const X_INPUT = 66;   // room on the left for the "k+1 = 5" written along the inputs
const X_SCORES = 196;
const SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉";

/** Length of an edge of n elements: log-scaled. */
export function edgeLength(n) {
  return 20 * (1 + Math.log2(n));
}

function subscript(i) {
  return String(i).replace(/\d/g, (digit) => SUBSCRIPTS[Number(digit)]);
}

/** The accept mask of a recorded round for k drafted tokens: true (accepted), false (the rejection), null. */
export function maskFor(accepted, k) {
  return Array.from({ length: k }, (_, i) => (i < accepted ? true : i === accepted ? false : null));
}

function slots(x, y, n, names) {
  const height = edgeLength(n) / n;
  const parts = [];
  for (let i = 0; i < n; i++) {
    parts.push(rect(x, y + i * height, SLOT, height, "c13-index"));
    if (height >= 9) {
      parts.push(text(x + SLOT / 2, y + i * height + height / 2 + 4, names[i], { size: Math.min(11, height - 1) }));
    }
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
  for (let r = 1; r < rows; r++) parts.push(line(x, y + (height * r) / rows, x + width, y + (height * r) / rows, "c13-cellline"));
  return parts.join("");
}

function horizontalDimension(from, to, y, label) {
  return line(from, y, to, y, "c13-dim") + text((from + to) / 2, y - 4, label, { cls: "c13-dimtext", size: 11 });
}

function verticalDimension(x, from, to, label, side) {
  const left = side === "left";
  return line(x, from, x, to, "c13-dim") +
    text(x + (left ? -4 : 4), (from + to) / 2 + 4, label, { cls: "c13-dimtext", anchor: left ? "end" : "start", size: 11 });
}

function inputsAndScores(id, { V, k, yP, yQ }) {
  const k1 = k + 1;
  const [eV, ek1, ek] = [edgeLength(V), edgeLength(k1), edgeLength(k)];
  const arrow = { "marker-end": `url(#${id}-arrow)` };
  const middle = (X_INPUT + SLOT + X_SCORES) / 2;
  const names = ["x₀", ...Array.from({ length: k }, (_, i) => `x${subscript(i + 1)}`)];
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
    if (accepted === null) parts.push(rect(xM, y, SLOT, height, "c13-mask-blank"));
    else parts.push(rect(xM, y, SLOT, height, "c13-mask", accepted ? { fill: `url(#${id}-mask)` } : null));
    if (height >= 9) {
      const word = accepted === null ? "—" : accepted ? "是" : "否";
      parts.push(text(xM + SLOT + 6, y + height / 2 + 4, word, { anchor: "start", size: Math.min(11, height - 1) }));
    }
  });
  return parts.join("");
}

/** The title of the diagram at the real scale (the anchor's vocabulary) or the small one. */
export function tensorTitle(scale, V) {
  return scale === "real" ? "真实规模的张量形状：P、Q、x 与接受掩码" : `小规模的张量形状：V = ${num(V)}`;
}

/** The diagram. args: {V, k, mask (k entries of true/false/null), id, scale ("real" | "small")}. */
export function tensorShapes({ V, k, mask, id, scale }) {
  const span = Math.max(edgeLength(V), 250);
  const yP = 70;
  const yQ = yP + edgeLength(k + 1) + 66;
  const xM = X_SCORES + span + 72;
  const bottom = yQ + edgeLength(k);
  const body = patterns(id) + inputsAndScores(id, { V, k, yP, yQ }) + acceptMask(id, { k, mask, xM, yQ }) +
    text(X_SCORES + span / 2, bottom + 28, "取 P 与 Q 在 xᵢ 处的值：min(1, P[i, xᵢ] / Q[i, xᵢ]) → 掩码", { cls: "c13-muted", size: 11 }) +
    text(X_SCORES + span / 2, bottom + 46, "掩码里留白 = 前面已被拒，这一格不再读", { cls: "c13-muted", size: 11 });
  const words = mask.map((m) => (m === null ? "未读" : m ? "是" : "否")).join("、");
  const desc = `输入 x 是 ${k + 1} 个索引；P 是 ${k + 1} × ${num(V)} 的分数矩阵，Q 是 ${k} × ${num(V)}；` +
    `接受掩码有 ${k} 格：${words}。边长按对数画。`;
  return svg(id, Math.round(X_SCORES + span + 150), Math.round(bottom + 84), tensorTitle(scale, V), body, desc);
}
