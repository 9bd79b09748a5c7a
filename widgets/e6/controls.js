// E6's controls: the prompt (typed, or one of the lesson's), the draft, k, the temperature, how many new tokens,
// the seed; and the check, before anything loads, that the prompt cannot fit the context.
import { el, num, promptBox, seedField } from "../c13-util.js";
import { labelBytes } from "../figures/replay.mjs";

function radios(legend, name, values, label, checked) {
  return el("fieldset", { class: "c13-radios" }, el("legend", { text: legend }),
    values.map((value) => el("label", null,
      el("input", { type: "radio", name, value, checked: String(value) === String(checked) }), " ", label(value))));
}

function select(id, label, values, chosen, text) {
  const box = el("select", { id }, values.map((v) => el("option", { value: v, text: text(v), selected: v === chosen })));
  return { box, node: el("span", { class: "c13-e6-field" }, el("label", { for: id, text: label }), box) };
}

/** The longest token in bytes, from the display labels of the whole vocabulary (the payload's labels): a prompt
 * of b UTF-8 bytes is at least ⌈b / longest⌉ tokens. */
export function longestToken(labels) {
  return labels.reduce((most, label) => Math.max(most, labelBytes(label).length), 1);
}

/** Why the run cannot fit the context, before the tokenizer is loaded (null when it may fit: the worker checks
 * the exact count once it has encoded the prompt). */
export function contextProblem({ prompt, nNew, k }, { context, longest }) {
  if (!prompt) return "提示是空的：请输入一段文字，或点一个课上的提示。";
  const bytes = new TextEncoder().encode(prompt).length;
  const least = Math.ceil(bytes / longest);
  const total = least + nNew + k;
  if (total <= context) return null;
  return `提示至少 ${num(least)} 个 token（${num(bytes)} 个字节，一个 token 最多 ${longest} 个字节）+ 新 ${nNew} 个 + ` +
    `k = ${k}，共至少 ${num(total)} 个位置，超过上下文 ${context}。请缩短提示，或少写几个新 token。`;
}

/** Why the chosen temperature cannot run (only those the payload offers can: 0 and 1), or null. */
export function temperatureProblem(temperature, temperatures) {
  if (temperatures.includes(temperature)) return null;
  return `温度 T = ${temperature} 不能用：这里只有 ${temperatures.map((t) => `T = ${t}`).join(" 和 ")}。请选其中一个。`;
}

/** The form. values() reads it (a seed that is not a whole number in range is replaced, and the note says so). */
export function e6Controls(group, e6, roles) {
  const d = e6.defaults;
  const prompt = el("textarea", { id: `${group}-prompt`, class: "c13-e6-prompt", rows: 2, spellcheck: "false",
    "aria-describedby": `${group}-check` });
  prompt.value = d.prompt;
  const lesson = el("div", { class: "c13-e6-lesson", role: "group", "aria-label": "课上的提示" },
    el("span", { text: "课上的提示：" }),
    e6.prompts.map((text) => el("button", { type: "button", class: "md-button c13-small",
      "aria-label": `用提示 ${text}`, onclick: () => { prompt.value = text; prompt.dispatchEvent(new Event("input")); } },
    promptBox(text))));
  const check = el("p", { class: "c13-e6-check", id: `${group}-check`, "aria-live": "polite" });
  const k = select(`${group}-k`, "k（每轮猜几个） ", e6.ks, d.k, String);
  const nNew = select(`${group}-new`, "新 token ", e6.new_tokens, d.nNew, (n) => `${n} 个`);
  const { node: seedRow, seed } = seedField(group);
  const node = el("div", { class: "c13-e6-form" },
    el("label", { for: prompt.id, class: "c13-e6-label", text: "提示（输入一段文字，或点下面一个课上的提示）" }),
    prompt, lesson, check,
    el("div", { class: "c13-controls" },
      radios("草稿", `${group}-draft`, e6.drafts, (name) => `${name}（${roles[name]}）`, d.draft),
      radios("温度", `${group}-temp`, e6.temperatures, (t) => (t === 0 ? "T = 0（每步取最大）" : "T = 1（按分布抽）"),
        d.temperature),
      k.node, nNew.node),
    seedRow);

  const checked = (name) => node.querySelector(`input[name="${name}"]:checked`).value;
  function values() {
    return { prompt: prompt.value, draft: checked(`${group}-draft`), k: Number(k.box.value),
      temperature: Number(checked(`${group}-temp`)), nNew: Number(nNew.box.value), seed: seed() };
  }
  /** What the context check needs, without touching the seed. */
  function sizes() {
    return { prompt: prompt.value, k: Number(k.box.value), nNew: Number(nNew.box.value) };
  }
  const temperature = () => Number(checked(`${group}-temp`));
  return { node, values, sizes, temperature, check, prompt, onChange: (fn) => node.addEventListener("input", fn) };
}
