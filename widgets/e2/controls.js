// E2's controls: the prefix, the draft and the seed shared by every run; the three tabs; the prediction asked
// before the big run ("after a rejection, resample from where?").
import { el, promptBox, rovingKey, seedField } from "../c13-util.js";

const TAB_NAMES = ["① 朴素方案", "② 它在哪失败", "③ 改进方案"];

function radios(legend, name, values, label, onChange) {
  return el("fieldset", { class: "c13-radios" }, el("legend", { text: legend }),
    values.map((value, i) => el("label", null,
      el("input", { type: "radio", name, value, checked: i === 0,
        onchange: (event) => { if (event.target.checked) onChange(value); } }),
      " ", label(value))));
}

/** Prefix and draft radios and the seed field. onPrefix / onDraft get the chosen value. */
export function sharedControls(group, data, { onPrefix, onDraft }) {
  const { node: seedRow, seed } = seedField(group);
  const node = el("div", { class: "c13-controls" },
    radios("前缀", `${group}-prefix`, data.prefixes, (prefix) => promptBox(prefix), onPrefix),
    radios("草稿", `${group}-draft`, data.drafts, (draft) => `${draft}（${data.roles[draft]}）`, onDraft),
    seedRow);
  return { node, seed };
}

/** The tab list and its panels (arrow keys, Home and End move between tabs). */
export function tabs(group) {
  const list = el("div", { role: "tablist", "aria-label": "三种方案", class: "c13-tabs" });
  const buttons = [];
  const panels = [];
  function select(index) {
    buttons.forEach((tab, j) => { tab.setAttribute("aria-selected", j === index ? "true" : "false"); tab.tabIndex = j === index ? 0 : -1; });
    panels.forEach((panel, j) => { panel.hidden = j !== index; });
  }
  TAB_NAMES.forEach((name, i) => {
    const tab = el("button", { type: "button", role: "tab", id: `${group}-tab-${i}`, "aria-controls": `${group}-panel-${i}`,
      "aria-selected": i === 0 ? "true" : "false", tabindex: i === 0 ? 0 : -1, text: name });
    const panel = el("div", { role: "tabpanel", id: `${group}-panel-${i}`, "aria-labelledby": `${group}-tab-${i}`,
      tabindex: 0, class: "c13-panel", hidden: i !== 0 });
    tab.addEventListener("click", () => select(i));
    tab.addEventListener("keydown", (event) => {
      const next = rovingKey(event, i, TAB_NAMES.length);
      if (next >= 0) { event.preventDefault(); select(next); buttons[next].focus(); }
    });
    buttons.push(tab);
    panels.push(panel);
    list.append(tab);
  });
  return { list, panels };
}

/** "Predict first": onChoose gets "resample_p" or "correct"; the hint says what the run will use. */
export function prediction(group, onChoose) {
  const name = `${group}-predict`;
  const hint = el("p", { class: "c13-hint", id: `${group}-predict-hint`,
    text: "先选一个答案，再跑：你的答案决定这次运行用哪种抽法。" });
  const choose = (scheme) => {
    hint.textContent = scheme === "correct" ? "你的答案：从残差重抽。运行将用改进方案。"
      : "你的答案：从目标分布 p 重抽。运行将用这个答案（“从 p 重抽”）。";
    onChoose(scheme);
  };
  const node = el("fieldset", { class: "c13-radios c13-predict" },
    el("legend", { text: "先预测：草稿 token 被拒之后，应该从哪个分布重抽？" }),
    el("label", null, el("input", { type: "radio", name, value: "resample_p", onchange: () => choose("resample_p") }),
      " 目标分布 p"),
    el("label", null, el("input", { type: "radio", name, value: "correct", onchange: () => choose("correct") }),
      " 残差 residual(x)"));
  return { node, hint };
}
