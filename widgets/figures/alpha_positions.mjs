// α by position: α = Σ min(p, q) at each position of the text the target wrote itself after each prompt, for both
// drafts (c13.json alpha_positions). One panel per prompt, its positions left to right; each draft's points are one
// path of dots (round for the small draft, square for the large). Each position's token and both α are in the
// table (alphaPositionsTable), which a keyboard reaches, and, in the wide layout, in a <title> shown on hover.
// Two layouts in one wrapper (svg.mjs twoLayouts): 2 × 2 panels for a wide column, one column of panels for a phone (no hover
// there); CSS picks the one that fits (widgets/css/e5.css). Static only: drawn at build time. Kept compact: the
// lesson page has a weight budget.
import { pct } from "./formats.mjs";
import { coord, escapeHtml, escapeText, line, svg, text, tokenSpan, twoLayouts } from "./svg.mjs";

const LAYOUTS = {
  wide: { width: 560, columns: 2, small: 11, label: 12, hover: true },
  narrow: { width: 300, columns: 1, small: 12, label: 13, hover: false },
};
const PANEL = { height: 132, top: 22, plot: 86, left: 40, right: 8 };
const LEGEND = 30;

/** The position's text: which token after the prompt, its label, both drafts' α (short names). */
function positionTip(positions, drafts, short, labels, i) {
  const n = positions.positions_per_prompt;
  const token = labels[positions.tokens[i]] ?? `#${positions.tokens[i]}`;
  const alphas = drafts.map((d) => `${short[d]} ${pct(positions.drafts[d].values[i])}`).join("，");
  return `第 ${(i % n) + 1} 个 token：${token}（${alphas}）`;
}

/** Dots (j = 0: round, j = 1: square) at the points, as one path: a zero-length segment per point. */
function dots(points, j) {
  const d = points.map(([x, y]) => `M${Math.round(x)} ${Math.round(y)}h0`).join("");  // whole pixels: the page's weight
  return `<path d="${d}" class="c13-dots c13-dots-${j} c13-series-${j}"/>`;
}

function panel(args, L, p, x0, y0, panelWidth) {
  const { alpha_positions: positions, drafts, names, labels } = args;
  const n = positions.positions_per_prompt;
  const left = x0 + PANEL.left;
  const width = panelWidth - PANEL.left - PANEL.right;
  const top = y0 + PANEL.top;
  const x = (j) => left + (j + 0.5) * (width / n);
  const y = (v) => top + PANEL.plot - v * PANEL.plot;
  const parts = [text(x0 + 4, y0 + 14, `提示 ${p + 1}：${positions.prompts[p]}`, { anchor: "start", size: L.label })];
  for (const t of [0, 0.5, 1]) {
    parts.push(line(left, y(t), left + width, y(t), t === 0 ? "c13-axis" : "c13-grid"),
      text(left - 4, y(t) + 4, t === 0 ? "0" : pct(t, 0), { cls: "c13-muted", anchor: "end", size: L.small }));
  }
  parts.push(text(x(0), top + PANEL.plot + 16, "1", { cls: "c13-muted", size: L.small }),
    text(x(n - 1), top + PANEL.plot + 16, String(n), { cls: "c13-muted", size: L.small }));
  drafts.forEach((d, j) => {
    const points = positions.drafts[d].values.slice(p * n, (p + 1) * n).map((v, k) => [x(k), y(v)]);
    parts.push(dots(points, j));
  });
  if (L.hover) {  // a column per position over the dots: its <title> shows on hover
    const w = coord(width / n);
    const hits = [];
    for (let k = 0; k < n; k++) {
      const tip = escapeHtml(positionTip(positions, drafts, args.short, labels, p * n + k));
      hits.push(`<rect x="${coord(x(k) - width / n / 2)}" y="${coord(top)}" width="${w}" height="${PANEL.plot}">` +
        `<title>${tip}</title></rect>`);
    }
    parts.push(`<g class="c13-hits" data-prompt="${p}">${hits.join("")}</g>`);
  }
  return parts.join("");
}

function layoutSvg(args, layout, svgId) {
  const { alpha_positions: positions, drafts, names } = args;
  const L = LAYOUTS[layout];
  const panels = positions.prompts.length;
  const rows = Math.ceil(panels / L.columns);
  const panelWidth = L.width / L.columns;
  const height = LEGEND + rows * PANEL.height;
  const legend = drafts.map((d, j) => {
    const x0 = layout === "wide" ? 8 + 200 * j : 8 + 145 * j;
    return dots([[x0 + 4, 14]], j) + text(x0 + 12, 18, names[d], { cls: `c13-series-text-${j}`, anchor: "start", size: L.small });
  });
  const body = [...legend];
  for (let p = 0; p < panels; p++) {
    body.push(panel(args, L, p, (p % L.columns) * panelWidth, LEGEND + Math.floor(p / L.columns) * PANEL.height, panelWidth));
  }
  const title = `逐位置的 α：${panels} 个提示之后目标自己写的各 ${positions.positions_per_prompt} 个 token，两个草稿`;
  const desc = drafts.map((d) => `${names[d]}：${pct(positions.drafts[d].min)} 到 ${pct(positions.drafts[d].max)}，` +
    `平均 ${pct(positions.drafts[d].mean)}`).join("；") + "。";
  return svg(svgId, L.width, height, title, body.join(""), desc);
}

/** The picture. args: {alpha_positions (c13.json's), drafts, names (draft → label), short (draft → a word), labels, id}. */
export function alphaPositions(args) {
  return twoLayouts(args.id || "alpha-positions", (layout, svgId) => layoutSvg(args, layout, svgId));
}

/** The same positions as table rows (<tbody> per prompt): position, token, each draft's α. */
export function alphaPositionsTable({ alpha_positions: positions, drafts, names, labels }) {
  const n = positions.positions_per_prompt;
  const head = `<thead><tr><th scope="col">位置</th><th scope="col">token</th>` +
    drafts.map((d) => `<th scope="col">${escapeText(names[d])} α</th>`).join("") + "</tr></thead>";
  const groups = positions.prompts.map((prompt, p) => {
    const rows = [];
    for (let k = 0; k < n; k++) {
      const i = p * n + k;
      rows.push(`<tr><td>${k + 1}</td><td>${tokenSpan(labels, positions.tokens[i])}</td>` +
        drafts.map((d) => `<td>${pct(positions.drafts[d].values[i])}</td>`).join("") + "</tr>");
    }
    return `<tbody><tr class="c13-group"><th colspan="${2 + drafts.length}">提示 ${p + 1}：<code>${escapeText(prompt)}</code>` +
      "</th></tr>" +
      rows.join("") + "</tbody>";
  });
  return `<table class="c13-mini c13-alpha-table">${head}${groups.join("")}</table>`;
}

/** This module's figures by the name generator/pages/figure_table.py and the tests draw them by. */
export const FIGURES = { alpha_positions: alphaPositions, alpha_positions_table: alphaPositionsTable };
