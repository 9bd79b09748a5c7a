// Small helpers shared by the five experiments: building DOM without markup strings (token labels are corpus
// text and always go in through textContent), putting a figure module's markup into the page, the number
// formats (re-exported from widgets/figures/formats.mjs), and a decoder for the compact probabilities that
// generator/pages/widget_payload.py embeds.

import { FORMATS } from "./figures/formats.mjs";

/** An HTML element: el("p", {class: "x", "aria-live": "polite"}, "text", child, ...). */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

/** A prompt as the prose shows it (generator/pages/formats.py `prompt`): in a code box, never between 「」,
 * which a prompt that ends in 「 would leave unbalanced. */
export function promptBox(prompt) {
  return el("code", { class: "c13-prompt", text: prompt });
}

/** The element that a figure module's markup describes (the modules escape every label they write). */
export function fromMarkup(markup) {
  const template = document.createElement("template");
  template.innerHTML = markup;
  const node = template.content.firstElementChild;
  if (!node || template.content.childElementCount !== 1) throw new Error("a figure module returned no single element");
  return node;
}

function setAttrs(node, attrs) {
  if (!attrs) return;
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = String(value);
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Words the page writes for a widget to say (docs/index.md, <div data-words>; generator/pages/templates.py Live):
 * the paragraph under [data-say=NAME] in the widget's section, cloned, each blank ([data-run]: a path into `values`)
 * filled through the format the page names (FORMATS), each pick ([data-pick]: a path too; true/false are the cases
 * yes/no) down to the case its value takes. → the paragraph, with class `cls` and the picks it took in
 * data-picked ("bound=compute agrees=yes"). A paragraph, value or case the page lacks throws, naming it. */
export function say(inside, name, values, cls) {
  const words = pageWords(inside, name);
  const node = (words.querySelector("p") ?? words).cloneNode(true);
  node.dataset.picked = fillWords(node, name, values).join(" ");
  node.className = cls;
  return node;
}

/** A table the page writes for a widget: under [data-say=NAME], a paragraph (the caption) and a Markdown table
 * whose header names the columns and whose first column names each row, filled as say() fills. → {caption, head,
 * labels, picked}: the caption's text, the header cells' texts, the first cell of each body row as text, the picks
 * taken. A block without its caption or table, or whose table is not `rows` × `cols` (the widget's shape of it),
 * throws, naming it. */
export function sayTable(inside, name, values, rows, cols) {
  const block = pageWords(inside, name).cloneNode(true);
  const picked = fillWords(block, name, values).join(" ");
  const caption = block.querySelector("p"), table = block.querySelector("table");
  if (!caption || !table) throw new Error(`页面里“${name}”这张表缺少标题或表格`);
  const text = (node) => node.textContent.replace(/\s+/g, " ").trim();
  const head = [...table.querySelectorAll("thead th")].map(text);
  const labels = [...table.querySelectorAll("tbody tr")].map((tr) => text(tr.cells[0]));
  if (labels.length !== rows || head.length !== cols) {
    throw new Error(`页面里“${name}”这张表写了 ${labels.length} 行 ${head.length} 列，这里有 ${rows} 行 ${cols} 列`);
  }
  return { caption: text(caption), head, labels, picked };
}

function pageWords(inside, name) {
  const words = inside.closest("section")?.querySelector(`[data-words] [data-say="${name}"]`);
  if (!words) throw new Error(`页面里缺少“${name}”这段话`);
  return words;
}

/** Each pick of `node` down to its case and each blank filled (say); → the picks taken, "path=case". */
function fillWords(node, name, values) {
  const get = (path) => path.split(".").reduce((v, key) => v?.[key], values);
  const picked = [];
  for (const pick of node.querySelectorAll("[data-pick]")) {
    if (!node.contains(pick) || !pick.parentNode) continue; // inside a case already dropped, or already done
    const path = pick.dataset.pick, value = get(path);
    const key = typeof value === "boolean" ? (value ? "yes" : "no") : value;
    const group = [...pick.parentNode.children].filter((c) => c.dataset.pick === path);
    if (!group.some((c) => c.dataset.case === key)) throw new Error(`“${name}”这段话没有为 ${path} = ${key} 写措辞`);
    for (const c of group) c.dataset.case === key ? c.replaceWith(...c.childNodes) : c.remove();
    picked.push(`${path}=${key}`);
  }
  for (const blank of node.querySelectorAll("[data-run]")) {
    const path = blank.dataset.run, value = get(path), format = blank.dataset.format;
    if (value === undefined || value === null || (typeof value === "number" && !Number.isFinite(value))) {
      throw new Error(`“${name}”这段话缺少数值 ${path}`);
    }
    if (format && !FORMATS[format]) throw new Error(`“${name}”这段话用了没有的格式 ${format}`);
    blank.replaceWith(format ? FORMATS[format](value, ...JSON.parse(blank.dataset.args || "[]")) : String(value));
  }
  return picked;
}

export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

/** A token shown as text in its box (the label comes from the corpus: never parsed as markup). */
export function tok(labels, id) {
  const span = document.createElement("span");
  span.className = "c13-tok";
  span.textContent = labels[id] ?? `#${id}`;
  return span;
}

let uidCounter = 0;
/** An id unique on this page view. */
export function uid(prefix) {
  uidCounter += 1;
  return `${prefix}-${uidCounter}`;
}

// the number formats: one module, shared with the figures (widgets/figures/formats.mjs)
export { chineseUnits, fixed, gb, gflop, ms, num, pct, prob, speed, times, trim } from "./figures/formats.mjs";

// ---------------------------------------------------------------------------------------------------
// encoded probabilities (generator/pages/widget_payload.py encode_probs): value = m × 10^-e written as the digits of m and one letter for e (a = 0 … Z = 51),
// larger e as "-e." — decoded with Number(m + "e-" + e), a correctly rounded parse of the same decimal that
// Python's float() reads, so the browser holds the very doubles of c13.json.
// ---------------------------------------------------------------------------------------------------

const EXPONENTS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** The probabilities of an encoded text, in order; an Error names where the text stops being one. */
export function decodeProbs(text) {
  const out = [];
  const re = /(\d+)(?:([a-zA-Z])|-(\d+)\.)/g;
  let match;
  let expected = 0;
  while ((match = re.exec(text)) !== null) {
    if (match.index !== expected) throw new Error(`encoded probabilities: unexpected text at ${expected}`);
    expected = re.lastIndex;
    const exponent = match[2] ? EXPONENTS.indexOf(match[2]) : Number(match[3]);
    out.push(Number(`${match[1]}e-${exponent}`));
  }
  if (expected !== text.length) throw new Error(`encoded probabilities: unexpected text at ${expected}`);
  return out;
}

// ---------------------------------------------------------------------------------------------------
// statistics used by E2
// ---------------------------------------------------------------------------------------------------

function logGamma(x) {
  // Lanczos approximation (g = 7, 9 terms); x > 0
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
    1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/**
 * The expected TV distance between p and the histogram of n direct draws from p: the noise floor a
 * scheme's TV is compared with. Each count is binomial, and De Moivre's closed form gives its mean
 * absolute deviation exactly: E|X − np| = 2m·C(n, m)·p^m·(1 − p)^(n − m + 1) with m = ⌊np⌋ + 1.
 */
export function expectedNoiseTV(p, n) {
  let total = 0;
  const lgN1 = logGamma(n + 1);
  for (const pi of p) {
    if (!(pi > 0) || pi >= 1) continue;
    const m = Math.floor(n * pi) + 1;
    if (m > n) continue;
    const logMad = Math.log(2 * m) + lgN1 - logGamma(m + 1) - logGamma(n - m + 1) + m * Math.log(pi) +
      (n - m + 1) * Math.log1p(-pi);
    total += Math.exp(logMad);
  }
  return total / (2 * n);
}

/** Arrow keys, Home and End over a group of elements with a roving tabindex. Returns the new index. */
export function rovingKey(event, index, count) {
  switch (event.key) {
    case "ArrowRight":
    case "ArrowDown":
      return (index + 1) % count;
    case "ArrowLeft":
    case "ArrowUp":
      return (index - 1 + count) % count;
    case "Home":
      return 0;
    case "End":
      return count - 1;
    default:
      return -1;
  }
}

/** Move the static version of an experiment into a closed <details>, kept for reference. */
export function stash(section, nodes, summary) {
  const box = el("details", { class: "c13-static-box" }, el("summary", { text: summary }));
  const list = nodes.filter(Boolean);
  if (!list.length) return null;
  list[0].before(box);
  for (const node of list) box.append(node);
  return box;
}

/** The live container of an experiment, right under its heading and notice. */
export function mount(section, cls) {
  const live = el("div", { class: `c13-live ${cls || ""}`.trim() });
  const notice = section.querySelector(":scope > .c13-exp-notice");
  const head = section.querySelector(":scope > h2, :scope > h3");  // the lab's E6 is a section of its own (h2)
  const after = notice || head;
  if (after) after.after(live);
  else section.prepend(live);
  return live;
}

/** The static children of an experiment: everything but its heading, its notice and the live part. */
export function staticChildren(section) {
  return [...section.children].filter((c) => !c.matches("h2, h3, .c13-exp-notice, .c13-live, .c13-static-box"));
}

const MAX_SEED = 99_999_999; // a fresh random seed is at most this (short enough to read and retype)
const LARGEST_SEED = 4_294_967_295; // the field's max: the largest seed a reader may type

export function randomSeed() {
  const word = new Uint32Array(1);
  crypto.getRandomValues(word);
  return 1 + (word[0] % MAX_SEED);
}

/** The seed row of an experiment (E2, E6): a number field, "换一个种子" and a note. seed() reads it; a value that is
 * not a whole number from 0 to LARGEST_SEED is replaced by a fresh random one, and the note says so. */
export function seedField(group) {
  const input = el("input", { type: "number", id: `${group}-seed`, min: 0, max: LARGEST_SEED, step: 1,
    value: randomSeed(), inputmode: "numeric", class: "c13-seed", "aria-describedby": `${group}-seed-note` });
  const note = el("span", { class: "c13-seed-note", id: `${group}-seed-note`, "aria-live": "polite" });
  const node = el("div", { class: "c13-seed-row" }, el("label", { for: input.id, text: "种子 " }), input,
    el("button", { type: "button", class: "md-button c13-small", text: "换一个种子",
      onclick: () => { input.value = randomSeed(); note.textContent = ""; } }), note);
  function seed() {
    const typed = input.value.trim();
    const value = Number(typed);
    if (typed === "" || !Number.isInteger(value) || value < 0 || value > LARGEST_SEED) {
      const fresh = randomSeed();
      input.value = fresh;
      note.textContent = (typed === "" ? "种子框是空的（或填的不是数字）" : `「${typed}」不是 0 到 ${LARGEST_SEED} 之间的整数`) +
        `，这次改用随机种子 ${fresh}。`;
      note.dataset.replaced = "true";
    } else {
      note.textContent = "";
      delete note.dataset.replaced;
    }
    return Number(input.value);
  }
  return { node, seed };
}
