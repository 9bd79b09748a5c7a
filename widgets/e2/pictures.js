// E2's pictures: the stacked p/q picture and a run's output histogram, both drawn by
// widgets/figures/stacked.mjs (the stacked one is the build-time figure's function), and the table of tab ②.
// Each picture comes in its two layouts (wide: columns; narrow: one row per token, for a phone), and the page's
// CSS shows the one that fits; a highlight or the marked x goes into both.
import { el, fill, fromMarkup, num, prob, pct, promptBox, tok, uid } from "../c13-util.js";
import { outputHistogram, stackedColumns, stackedPicture } from "../figures/stacked.mjs";

// below this width (px) the picture (then in its narrow layout, a row per token) shows fewer tokens one by one, so
// that the pinned picture leaves a phone's screen room for the controls under it
const NARROW_WIDTH = 560;
const NARROW_TOP_N = 7;
const FAIL_TABLE_ROWS = 8;  // tokens listed in tab ②'s table

/** How many tokens the picture shows one by one in a container this wide. */
export function columnsFor(width, topN) {
  return (width || 800) < NARROW_WIDTH ? NARROW_TOP_N : topN;
}

/** What the caption says of the last drafted token: its column is marked x, or it is folded into the rest. */
function markedText(marked, dist, labels, n) {
  if (marked === null) return null;
  const label = labels[marked] ?? `#${marked}`;
  if (stackedColumns(dist.columns, n).some((column) => column.id === marked)) {
    return `标着 x 的是最近一轮草稿抽到的 token「${label}」。`;
  }
  return `最近一轮草稿抽到的 x =「${label}」不在单独画出的 ${n} 个 token 里，归在最后的“其余”里，所以图里没有标 x。`;
}

/** The stacked picture into `figure`: marked = the last drafted token (or null), highlight = a part or null (set
 * on the svg of both layouts). The picture goes in a box (.c13-e2-pin) that stays on screen while the reader works
 * below it. */
export function drawStacked(figure, { dist, labels, n, marked, highlight, target }) {
  const picture = fromMarkup(stackedPicture({ columns: dist.columns, labels, n, id: uid("e2-stack"),
    prefix: dist.prefix, draft: dist.draft, marked }));
  if (highlight) for (const svg of picture.querySelectorAll("svg")) svg.dataset.hl = highlight;
  figure.dataset.columns = String(n);
  const note = markedText(marked, dist, labels, n);
  figure.dataset.marked = marked === null ? "" : String(marked);
  fill(figure, el("div", { class: "c13-e2-pin" }, picture),
    el("figcaption", null, "前缀 ", promptBox(dist.prefix), `，目标 ${target} 对 ${dist.draft}：两边概率最高的 ${n} 个 token，` +
      "其余折叠在一起（超出画幅时截断，数字照写）。绿 + 蓝 = p；绿 + 红 = q。",
    note ? el("span", { class: "c13-e2-marked", text: note }) : null));
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
    el("caption", null, "前缀 ", promptBox(dist.prefix), `，${dist.draft}：概率最高的 ${FAIL_TABLE_ROWS} 个 token`),
    el("thead", null, el("tr", null, el("th", { scope: "col", text: "token" }),
      el("th", { scope: "col", text: "朴素：提出且撞上 q·p" }), el("th", { scope: "col", text: "min 规则：提出且接受 min(p, q)" }))),
    body));
  textBox.textContent = `在这一对分布上，按 min(1, p/q) 接受能留下 ${pct(dist.alpha)} 的草稿 token，朴素方案只留下 ` +
    `${prob(dist.sumPQ)}，相差 ${Math.round(dist.alpha / dist.sumPQ)} 倍。`;
}
