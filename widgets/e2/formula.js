// E2's formula of lesson section 6: the page's own KaTeX formula (docs/index.md, rendered at build time), whose
// terms carry data-term="A" … "G" (\htmlData); each term becomes a toggle button that explains it and
// highlights its part of the stacked picture (the picture's data-hl attribute, styled in c13-widgets.css).
import { el, fixed, pct } from "../c13-util.js";

const TERMS = {
  A: ["q(x)·min(1, p(x)/q(x))", "shared"], B: ["(1 − α)", "excess"], C: ["residual(x)", "resid"],
  D: ["min(p, q)(x)", "shared"], E: ["(p(x) − min(p, q)(x))", "resid"],
  F: ["min(p, q)(x)", "shared"], G: ["(1 − α)·p(x)", "p"],
};

/** The part of the stacked picture a term stands for. */
export function highlightOf(term) {
  return term ? TERMS[term][1] : null;
}

/** What a term means, with the α and the closed-form TV of the chosen pair. */
export function termText(term, dist) {
  const alpha = pct(dist.alpha, 1);
  const rejected = pct(1 - dist.alpha, 1);
  return {
    A: `(A) 草稿提出 x 并被接受：提出的概率 q(x) 乘接受的概率 min(1, p(x)/q(x))，等于 min(p(x), q(x))——两个分布共有的部分，图里的绿色。所有绿色加起来就是 α = ${alpha}。`,
    B: `(B) 这一轮被拒的概率 1 − α = ${rejected}。它等于所有红色（草稿多给的）之和，也等于所有蓝色（目标多要的）之和：p 和 q 的总和都是 1，两者必然一样大。`,
    C: `(C) 被拒之后抽中 x 的概率：残差分布 max(0, p − q)/(1 − α)，只在 p > q 的地方有质量，形状就是图里的蓝色，除以总量 ${rejected} 归一。`,
    D: "(D) 等于 (A)：绿色，min(p, q)(x)。",
    E: "(E) 等于 (B) × (C)：1 − α 与残差分母里的 1 − α 约掉，剩下 max(0, p(x) − q(x)) = p(x) − min(p, q)(x)，x 处的蓝色。绿 + 蓝 = p。",
    F: "(F) 错误的变体里，接受的部分不变：仍是绿色。",
    G: `(G) 错误的变体被拒后从 p 重抽，给 x 的是 (1 − α)·p(x)：按整个 p（虚线框）的比例再分一遍 ${rejected} 的质量。共有的部分被算了两次，蓝色却给少了——TV 偏差的闭式是 ${fixed(dist.closedTV, 4)}。`,
  }[term];
}

/** Turn one KaTeX term span into a toggle button (keyboard: Tab to it, Enter or Space to press it). */
function termButton(span, onChoose) {
  const key = span.dataset.term;
  Object.assign(span, { tabIndex: 0 });
  span.classList.add("c13-term");
  span.setAttribute("role", "button");
  span.setAttribute("aria-pressed", "false");
  span.setAttribute("aria-label", `(${key}) ${TERMS[key][0]}`);
  span.addEventListener("click", () => onChoose(key));
  span.addEventListener("keydown", (event) => {
    if (event.key === "Enter") { event.preventDefault(); onChoose(key); }
    if (event.key === " ") event.preventDefault(); // no page scroll; Space acts on release, as on a button
  });
  span.addEventListener("keyup", (event) => {
    if (event.key === " ") { event.preventDefault(); onChoose(key); }
  });
  return span;
}

/**
 * The formula block around `math` (the page's KaTeX formula, a copy of its .arithmatex node); onChoose(term) is
 * called with the term pressed. Returns {node, press(term)}. The terms are inside KaTeX's HTML rendering, which
 * KaTeX hides from assistive technology in favour of its MathML: here the HTML carries the buttons, so it is the
 * part that is exposed and the MathML copy is hidden instead.
 */
export function formulaBlock(math, onChoose) {
  const buttons = [...math.querySelectorAll("[data-term]")].filter((span) => span.dataset.term in TERMS)
    .map((span) => termButton(span, onChoose));
  if (buttons.length !== Object.keys(TERMS).length) {
    throw new Error(`E2: the page's formula marks ${buttons.length} terms, the widget knows ${Object.keys(TERMS).length}`);
  }
  for (const node of math.querySelectorAll(".katex-html")) node.removeAttribute("aria-hidden");
  for (const node of math.querySelectorAll(".katex-mathml")) node.setAttribute("aria-hidden", "true");
  math.classList.add("c13-formula");
  const node = el("div", { class: "c13-formula-box" },
    el("p", null, el("strong", { text: "为什么输出恰好是 p。" }),
      "点公式里带下划线的项（或用 Tab 移到它上面按 Enter），看它的意思和它在叠放图里是哪一块："),
    math);
  /** Mark `chosen` (or none) as pressed. */
  const press = (chosen) => {
    for (const button of buttons) button.setAttribute("aria-pressed", button.dataset.term === chosen ? "true" : "false");
  };
  return { node, press };
}
