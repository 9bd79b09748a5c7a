// E5 · tokens per round, formula vs real runs. Sliders α ∈ [0, 1), c ∈ [0, 1], k over constants.ks drive the
// closed form E[N] = (1 − α^(k+1)) / (1 − α) and the speedup (1 − α^(k+1)) / ((1 − α)(c·k + 1)) live, with the
// plot of speedup against k drawn by widgets/figures/speedup.mjs (the module that drew the build-time plot of
// the measured runs); buttons load a draft's measured α and c. The measured tables (best k marked) and that
// plot are the build-time ones, kept as they are.
import { el, fill, fromMarkup, mount, times, trim, uid } from "./c13-util.js";
import { bestK, expectedYield, sliderPlot, speedup } from "./figures/speedup.mjs";

export function render(section, data) {
  const acc = data.accounting.drafts;
  const drafts = data.drafts;
  const ks = data.constants.ks;
  const runs = data.accounting.prompts.length * data.accounting.seeds.length;
  const state = { alpha: 0.8, c: 0, k: 1 };
  const gid = uid("e5");
  const live = mount(section, "c13-e5");

  const sliders = {};
  const slider = (key, label, attrs, format) => {
    const input = el("input", { type: "range", id: `${gid}-${key}`, ...attrs, value: state[key] });
    const out = el("output", { for: input.id, id: `${gid}-${key}-out`, text: format(state[key]) });
    input.addEventListener("input", () => { state[key] = Number(input.value); draw(); });
    sliders[key] = { input, out, format };
    return el("div", { class: "c13-slider" }, el("label", { for: input.id, text: label }), input, out);
  };
  const controls = el("div", { class: "c13-controls c13-e5-sliders" },
    slider("alpha", "接受率 α", { min: 0, max: 0.99, step: 0.01 }, (v) => trim(v, 2)),
    slider("c", "草稿代价 c", { min: 0, max: 1, step: 0.01 }, (v) => trim(v, 2)),
    slider("k", "每轮草稿数 k", { min: Math.min(...ks), max: Math.max(...ks), step: 1 }, (v) => String(v)));
  const presets = el("div", { class: "c13-buttons" }, el("span", { class: "c13-hint", text: "用真实数字：" }),
    drafts.map((d, i) => el("button", { type: "button", class: "md-button c13-small",
      text: `${d}（${data.roles[d]}）在当前 k 的实测 α 和 c`, onclick: () => preset(d) })),
    el("button", { type: "button", class: "md-button c13-small", text: "α = 0.8，c = 0，k = 1（DeepSeek-V3 的情形）",
      onclick: () => set({ alpha: 0.8, c: 0, k: 1 }) }));
  const yieldOut = el("output", { class: "c13-big", id: `${gid}-yield`, for: `${gid}-alpha ${gid}-k` });
  const speedOut = el("output", { class: "c13-big", id: `${gid}-speedup`, for: `${gid}-alpha ${gid}-c ${gid}-k` });
  const readout = el("div", { class: "c13-readout", "aria-live": "polite" },
    el("p", null, "每轮期望产出 E[N] = (1 − α", el("sup", { text: "k+1" }), ") / (1 − α) = ", yieldOut, " 个 token"),
    el("p", null, "理论加速 = E[N] / (c·k + 1) = ", speedOut));
  const note = el("p", { class: "c13-hint" });
  const figure = el("figure", { class: "c13-fig" });
  live.append(controls, presets, readout, note, figure,
    el("p", { class: "c13-hint", text: `c 在我们的模型上的定义：草稿一次前向读的权重 ÷ 目标一次前向读的权重（按参数量）。` +
      drafts.map((d) => `${data.roles[d]} c = ${acc[d].c.toFixed(3)}`).join("，") + `。下面两张表是 ${runs} 次真实运行的实测。` }));

  function set(values) {
    Object.assign(state, values);
    for (const [key, s] of Object.entries(sliders)) s.input.value = String(state[key]);
    draw();
  }
  function preset(d) {
    const row = acc[d].rows.find((r) => r.k === state.k) || acc[d].rows[0];
    set({ alpha: Math.min(0.99, Math.round(row.acceptance_rate * 100) / 100), c: Math.round(acc[d].c * 100) / 100, k: row.k });
    note.textContent = `${d}，k = ${row.k}：实测 α = ${row.acceptance_rate.toFixed(3)}（滑块取两位小数），c = ${acc[d].c.toFixed(3)}；` +
      `${runs} 次运行实测每次目标前向 ${row.tokens_per_target_forward.toFixed(2)} 个 token，公式 ${row.formula.toFixed(2)}，理论加速 ${times(row.speedup)}。`;
  }

  function draw() {
    const { alpha, c, k } = state;
    for (const [key, sl] of Object.entries(sliders)) sl.out.textContent = sl.format(state[key]);
    const y = expectedYield(alpha, k);
    const s = speedup(alpha, c, k);
    yieldOut.textContent = trim(y, 3);
    speedOut.textContent = times(s);
    yieldOut.dataset.value = String(y);
    speedOut.dataset.value = String(s);
    const plot = fromMarkup(sliderPlot({ alpha, c, k, ks, id: uid("e5-live") }));
    fill(figure, plot, el("figcaption", { text: `α = ${trim(alpha, 2)}、c = ${trim(c, 2)} 时理论加速随 k 的变化；大圆圈是当前的 k = ${k}，` +
      `这组参数下最快的是 k = ${bestK(alpha, c, ks)}。虚线 1× 是不投机。` }));
  }
  draw();
  section.classList.add("c13-is-live");
}
