// E2's pictures: the stacked p/q picture and a run's output histogram, both drawn by
// widgets/figures/stacked.mjs (the stacked one is the build-time figure's function), and the table of tab ②.
import { el, fill, fromMarkup, num, prob, pct, tok, uid } from "../c13-util.js";
import { outputHistogram, stackedColumns, stackedPicture } from "../figures/stacked.mjs";

const NARROW_WIDTH = 560;   // below this width (px) the picture shows fewer tokens one by one
const NARROW_TOP_N = 7;
const FAIL_TABLE_ROWS = 8;  // tokens listed in tab ②'s table

/** How many tokens the picture shows one by one in a container this wide. */
export function columnsFor(width, topN) {
  return (width || 800) < NARROW_WIDTH ? NARROW_TOP_N : topN;
}

function swatch(cls, text) {
  return el("span", { class: "c13-sw-item" }, el("span", { class: `c13-sw ${cls}`, "aria-hidden": "true" }), text);
}

/** The legend as HTML, for a narrow picture (the wide one draws it inside, as the build-time picture does). */
function htmlLegend() {
  return el("p", { class: "c13-legend" },
    swatch("c13-sw-shared", "绿 min(p, q)：两边共有"), swatch("c13-sw-resid", "条纹蓝 p − q（p 更大处）"),
    swatch("c13-sw-excess", "交叉红 q − p（草稿多给处）"), swatch("c13-sw-p", "虚线框 = p"));
}

/** The stacked picture into `figure`: marked = the last drafted token (or null), highlight = a part or null. */
export function drawStacked(figure, { dist, labels, n, topN, marked, highlight, target }) {
  const wide = n === topN;
  const svg = fromMarkup(stackedPicture({ columns: dist.columns, labels, n, id: uid("e2-stack"), prefix: dist.prefix,
    draft: dist.draft, marked, legend: wide }));
  if (highlight) svg.dataset.hl = highlight;
  figure.dataset.columns = String(n);
  fill(figure, wide ? null : htmlLegend(), svg, el("figcaption", { text: `前缀「${dist.prefix}」，目标 ${target} 对 ${dist.draft}：两边概率最高的 ${n} 个 token，` +
    "其余折叠为一列（太高时截断，数字照写）。绿 + 蓝 = p；绿 + 红 = q。" +
    (marked !== null ? "标着 x 的一列是最近一轮草稿抽到的 token。" : "") }));
}

/** A run's histogram into `figure`, over the same columns as the picture above it. */
export function drawHistogram(figure, { dist, labels, n, counts, total, title }) {
  fill(figure, fromMarkup(outputHistogram({ columns: dist.columns, labels, n, counts, total, id: uid("e2-hist"), title })),
    el("figcaption", { text: "实心柱 = 这次运行里各 token 的输出比例；虚线框 = p。柱子落在框上，输出就是 p。" }));
}

/** Tab ②: what each scheme keeps of the top tokens, and the sums over the whole vocabulary. */
export function drawFailTable(tableBox, textBox, dist, labels) {
  const body = el("tbody");
  for (const column of stackedColumns(dist.columns, FAIL_TABLE_ROWS).slice(0, -1)) {
    body.append(el("tr", null, el("td", null, tok(labels, column.id)), el("td", { text: prob(column.p * column.q) }),
      el("td", { text: prob(column.overlap) })));
  }
  body.append(el("tr", { class: "c13-sum" }, el("th", { scope: "row", text: `全部 ${num(dist.p.length)} 个 token 之和` }),
    el("td", { text: `Σ p·q = ${prob(dist.sumPQ)}` }), el("td", { text: `α = ${prob(dist.alpha)}` })));
  fill(tableBox, el("table", { class: "c13-mini" },
    el("caption", { text: `前缀「${dist.prefix}」，${dist.draft}：概率最高的 ${FAIL_TABLE_ROWS} 个 token` }),
    el("thead", null, el("tr", null, el("th", { scope: "col", text: "token" }),
      el("th", { scope: "col", text: "朴素：提出且撞上 q·p" }), el("th", { scope: "col", text: "min 规则：提出且接受 min(p, q)" }))),
    body));
  textBox.textContent = `在这一对分布上，按 min(1, p/q) 接受能留下 ${pct(dist.alpha)} 的草稿 token，朴素方案只留下 ` +
    `${prob(dist.sumPQ)}，相差 ${Math.round(dist.alpha / dist.sumPQ)} 倍。`;
}
