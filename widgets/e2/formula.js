// E2's formula of lesson section 6: a copy of the page's own KaTeX formulas (docs/index.md, the proof that the
// output is exactly p, the wrong variant after it and the whole output's product, rendered at build time), whose
// terms carry data-term="A" … "I" (\htmlData). Each term becomes a toggle button that highlights its part of the
// stacked picture (the picture's data-hl attribute, styled in c13-widgets.css) and shows the page's own explanation
// of it: the proof's list entry marked { #proof-A } … { #proof-I }, copied, with the chosen pair's figures it speaks
// of as labelled values.
import { el, fixed, pct } from "../c13-util.js";

/** Each term: its formula as read aloud (the button's name), the picture's part, the chosen pair's figures. */
const TERMS = {
  A: ["q(x)·min(1, p(x)/q(x))", "shared", ["alpha"]],
  B: ["(1 − α)", "excess", ["rejected"]],
  C: ["residual(x)", "resid", ["rejected"]],
  D: ["min(p, q)(x)", "shared", ["alpha"]],
  E: ["(p(x) − min(p, q)(x))", "resid", ["rejected"]],
  F: ["min(p, q)(x)", "shared", ["alpha"]],
  G: ["(1 − α)·p(x)", "p", ["rejected", "closed"]],
  H: ["P(x_i | x_<i)", "p", ["alpha", "rejected"]],
  I: ["p(x_i | x_<i)", "p", []],
};

/** The figures a term's explanation speaks of, as label and value for the pair `dist`. */
const FIGURES = {
  alpha: (dist) => `α = ${pct(dist.alpha, 1)}`,
  rejected: (dist) => `1 − α = ${pct(1 - dist.alpha, 1)}`,
  closed: (dist) => `从 p 重抽的闭式 TV = ${fixed(dist.closedTV, 4)}`,
};

/** The part of the stacked picture a term stands for. */
export function highlightOf(term) {
  return term ? TERMS[term][1] : null;
}

/** The page's formulas with terms (each an .arithmatex block whose KaTeX marks data-term), in page order. */
export function pageFormulas(page) {
  const maths = [...page.querySelectorAll(".arithmatex")].filter((m) => m.querySelector(".katex-html [data-term]"));
  if (!maths.length) throw new Error("E2: the page has no KaTeX formula with terms");
  return maths;
}

/** A copy of the page's nodes, without their ids (the page keeps its own). */
function copies(nodes) {
  return [...nodes].map((node) => {
    const copy = node.cloneNode(true);
    if (copy.nodeType === Node.ELEMENT_NODE) {
      copy.removeAttribute("id");
      for (const inner of copy.querySelectorAll("[id]")) inner.removeAttribute("id");
    }
    return copy;
  });
}

/** The page's explanation of `term`: the list entry marked #proof-TERM (its <dt> and the <dd>s after it). */
function pageEntry(page, term) {
  const dt = page.querySelector(`dt#proof-${term}`);
  if (!dt) throw new Error(`E2: the page explains no term (${term}) (dt#proof-${term})`);
  const dds = [];
  for (let next = dt.nextElementSibling; next?.tagName === "DD"; next = next.nextElementSibling) dds.push(next);
  const blocks = dds.flatMap((dd) => (dd.querySelector(":scope > p") ? copies(dd.children) : [el("p", null, copies(dd.childNodes))]));
  return [el("p", { class: "c13-term-head" }, copies(dt.childNodes)), ...blocks];
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
 * The formula block: `intro` (the page's words above it) and a copy of each of `maths` (the page's formulas with
 * terms, pageFormulas); `page` holds the explanations; onChoose(term) is called with the term pressed. Returns
 * {node, press(term), explain(term, dist)}: explain gives the nodes that explain `term` for the pair `dist` (none
 * for no term). The terms are inside KaTeX's HTML rendering, which KaTeX hides from assistive technology in favour
 * of its MathML: here the HTML carries the buttons, so it is the part that is exposed and the MathML copy is hidden.
 */
export function formulaBlock(intro, maths, page, onChoose) {
  const copied = copies(maths);
  const buttons = copied.flatMap((math) => [...math.querySelectorAll(".katex-html [data-term]")])
    .filter((span) => span.dataset.term in TERMS).map((span) => termButton(span, onChoose));
  const keys = buttons.map((b) => b.dataset.term);
  if (keys.join("") !== Object.keys(TERMS).join("")) {
    throw new Error(`E2: the page's formulas mark the terms ${keys.join(", ")}, the widget knows ${Object.keys(TERMS).join(", ")}`);
  }
  const entries = Object.fromEntries(keys.map((key) => [key, pageEntry(page, key)])); // checked now, copied on use
  for (const math of copied) {
    for (const node of math.querySelectorAll(".katex-html")) node.removeAttribute("aria-hidden");
    for (const node of math.querySelectorAll(".katex-mathml")) node.setAttribute("aria-hidden", "true");
    math.classList.add("c13-formula");
  }
  const node = el("div", { class: "c13-formula-box" }, intro, copied);
  /** Mark `chosen` (or none) as pressed. */
  const press = (chosen) => {
    for (const button of buttons) button.setAttribute("aria-pressed", button.dataset.term === chosen ? "true" : "false");
  };
  const explain = (term, dist) => (term ? el("div", { class: "c13-term-entry" }, copies(entries[term]),
    TERMS[term][2].length ? el("p", { class: "c13-term-values" },
      TERMS[term][2].map((name) => el("span", { text: FIGURES[name](dist) }))) : null) : null);
  return { node, press, explain };
}
