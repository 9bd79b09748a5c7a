// E6's question, asked before the run: 你的机器上，投机解码会更快吗？ The reader picks a guess (like E2's prediction,
// the same fieldset.c13-radios.c13-predict), at the top of the form; 开始 acts, but before a guess it only says, in a
// polite live region under it, that a guess comes first (and marks the question); after the run the guess stays
// beside the report (.c13-e6-guess, data-guess ∈ faster | same | slower).
//
// The section carries the current choice as data-guess and fires "c13-e6-guess" ({detail: {guess}}) when it changes;
// guessOf(section) reads the guess the shown run was started with, for the report to set beside its verdict.
import { el } from "../c13-util.js";

// value → the words of the choice; the order they are offered in
export const GUESSES = { faster: "会更快", same: "差不多", slower: "会更慢" };

const WAITING = "先在上面回答问题，再按“开始”：跑完后，你的猜测会留在结果旁边。";
// 开始 pressed before a guess: two wordings in turn, so that a second press changes the text and is read out again
const ASKED = ["还没有猜：请先在上面的问题里选“会更快”“差不多”或“会更慢”，再按“开始”。",
  "请先猜一猜：在上面的问题里选“会更快”“差不多”或“会更慢”，再按“开始”。"];

/** The guess the shown run was started with (null before a run has started). */
export function guessOf(section) {
  return section.querySelector(".c13-e6-guess")?.dataset.guess || null;
}

/** The question as a choice. `question` is the page's own question (docs/lab.md, .c13-e6-question): its words become
 * the legend, and the paragraph is hidden while the live choice stands in for it. */
export function guessGate(group, section, question) {
  const name = `${group}-guess`;
  const hint = el("p", { class: "c13-hint c13-e6-guess-hint", id: `${group}-guess-hint`, "aria-live": "polite",
    text: WAITING });
  const words = question?.querySelector("strong")?.textContent || "你的机器上，投机解码会更快吗？";
  const node = el("fieldset", { class: "c13-radios c13-predict c13-e6-gate" }, el("legend", { text: words }),
    Object.entries(GUESSES).map(([value, text]) => el("label", null,
      el("input", { type: "radio", name, value, onchange: () => choose(value) }), " ", text)));
  const choose = (value) => {
    section.dataset.guess = value;
    delete hint.dataset.asked;
    delete node.dataset.asked;
    hint.textContent = `你猜：${GUESSES[value]}。按“开始”，看看你的机器怎么说。`;
    section.dispatchEvent(new CustomEvent("c13-e6-guess", { bubbles: true, detail: { guess: value } }));
  };
  if (question) question.hidden = true;
  const chosen = () => node.querySelector("input:checked")?.value || null;
  /** 开始 without a guess: say (again) that one comes first. */
  const ask = () => {
    hint.dataset.asked = node.dataset.asked = "true";
    hint.textContent = hint.textContent === ASKED[0] ? ASKED[1] : ASKED[0];
  };
  return { node, hint, chosen, ask };
}

/** The line beside the report: the guess a run was started with (empty, and so hidden, before any run). */
export function guessLine() {
  const node = el("p", { class: "c13-e6-guess" });
  const show = (value) => {
    if (!value) { node.textContent = ""; delete node.dataset.guess; return; }
    node.dataset.guess = value;
    node.textContent = `跑之前你猜：${GUESSES[value]}。`;
  };
  return { node, show };
}
