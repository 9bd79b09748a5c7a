// E5 · tokens per round, formula vs real runs. Sliders α ∈ [0, 1), c ∈ [0, 1], k over constants.ks drive the
// closed form E[N] = (1 − α^(k+1)) / (1 − α) and the speedup (1 − α^(k+1)) / ((1 − α)(c·k + 1)) live, with the
// plot of speedup against k drawn by widgets/figures/speedup.mjs (the module that drew the build-time plot).
// Buttons load a draft's α (one per draft, pooled over every k, as the tables and the prose use it) and c, and
// draw that draft's measured points; a third loads DeepSeek-V3's reported acceptance (the section's data-mtp-*,
// from precomputed/papers.json through the page). It starts on the small draft at the current k slider.
import { el, fill, fromMarkup, mount, num, pct, times, trim, uid } from "./c13-util.js";
import { bestK, expectedYield, rowPoint, sliderPlot, speedup } from "./figures/speedup.mjs";

export function render(section, data) {
  const acc = data.accounting.drafts;
  const drafts = data.drafts;
  const ks = data.constants.ks;
  const runs = data.accounting.prompts.length * data.accounting.seeds.length;
  const mtp = { low: Number(section.dataset.mtpAlpha), high: Number(section.dataset.mtpAlphaHigh) };
  const first = acc[drafts[0]];
  const state = { alpha: first.alpha, c: first.c, k: first.best_k, draft: drafts[0] };
  const gid = uid("e5");
  const live = mount(section, "c13-e5");

  const sliders = {};
  const slider = (key, label, attrs) => {
    const input = el("input", { type: "range", id: `${gid}-${key}`, ...attrs, value: state[key] });
    const out = el("output", { for: input.id, id: `${gid}-${key}-out` });
    input.addEventListener("input", () => {
      state[key] = Number(input.value);
      if (key !== "k") state.draft = null;  // α or c moved: no longer a draft's measured values
      draw();
    });
    sliders[key] = { input, out };
    return el("div", { class: "c13-slider" }, el("label", { for: input.id, text: label }), input, out);
  };
  const controls = el("div", { class: "c13-controls c13-e5-sliders" },
    slider("alpha", "接受率 α", { min: 0, max: 0.99, step: 0.01 }),
    slider("c", "草稿代价 c", { min: 0, max: 1, step: 0.01 }),
    slider("k", "每轮草稿数 k", { min: Math.min(...ks), max: Math.max(...ks), step: 1 }));
  const button = (text, onclick) => el("button", { type: "button", class: "md-button c13-small", text, onclick });
  const presets = el("div", { class: "c13-buttons c13-e5-presets" }, el("span", { class: "c13-hint", text: "用真实数字：" }),
    drafts.map((d) => button(`${data.roles[d]} ${d} 的实测`, () => set({ alpha: acc[d].alpha, c: acc[d].c, draft: d }))),
    Number.isFinite(mtp.low) && button(`DeepSeek-V3（α = ${trim(mtp.low, 2)}，c = 0，k = 1）`,
      () => set({ alpha: mtp.low, c: 0, k: 1, draft: "mtp" })));
  const yieldOut = el("output", { class: "c13-big", id: `${gid}-yield`, for: `${gid}-alpha ${gid}-k` });
  const speedOut = el("output", { class: "c13-big", id: `${gid}-speedup`, for: `${gid}-alpha ${gid}-c ${gid}-k` });
  const readout = el("div", { class: "c13-readout", "aria-live": "polite" },
    el("p", null, "每轮期望产出 E[N] = (1 − α", el("sup", { text: "k+1" }), ") / (1 − α) = ", yieldOut, " 个 token"),
    el("p", null, "理论加速 = E[N] / (c·k + 1) = ", speedOut));
  const note = el("p", { class: "c13-hint c13-e5-note" });
  const figure = el("figure", { class: "c13-fig" });
  live.append(controls, presets, readout, note, figure,
    el("p", { class: "c13-hint", text: "c 在我们的模型上的定义：草稿一次前向读的权重 ÷ 目标一次前向读的权重（按参数量）。" +
      drafts.map((d) => `${data.roles[d]} c = ${acc[d].c.toFixed(3)}`).join("，") + `。下面两张表是 ${runs} 次真实运行的实测。` }));

  function set(values) {
    Object.assign(state, values);
    for (const [key, s] of Object.entries(sliders)) s.input.value = String(state[key]);
    draw();
  }

  function draw() {
    const { alpha, c, k, draft } = state;
    sliders.alpha.out.textContent = trim(alpha, 3);
    sliders.c.out.textContent = trim(c, 3);
    sliders.k.out.textContent = String(k);
    const y = expectedYield(alpha, k);
    const s = speedup(alpha, c, k);
    yieldOut.textContent = trim(y, 3);
    speedOut.textContent = times(s);
    yieldOut.dataset.value = String(y);
    speedOut.dataset.value = String(s);
    note.textContent = noteText(state, data, mtp);
    const measured = draft && acc[draft];
    const points = measured ? measured.rows.map((r) => rowPoint(r, measured.c, measured.alpha)) : null;
    const best = bestK(alpha, c, ks);
    const plot = fromMarkup(sliderPlot({ alpha, c, k, ks, id: uid("e5-live"), points, pointsName: data.roles[draft] }));
    fill(figure, plot, el("figcaption", { text: caption(state, best, measured && data.roles[draft]) }));
    figure.dataset.bestK = String(best);
  }
  draw();
  section.classList.add("c13-is-live");
}

/** The line under the readout: what the loaded preset is, from the data (the draft's row at the current k). */
function noteText(state, data, mtp) {
  const { draft, k } = state;
  const runs = data.accounting.prompts.length * data.accounting.seeds.length;
  if (draft === "mtp") {
    return `DeepSeek-V3 报告第二个 token 的接受率在 ${pct(mtp.low, 0)}～${pct(mtp.high, 0)}：α 取下端，c = 0、k = 1 时 ` +
      `E[N] = ${trim(expectedYield(mtp.low, 1), 3)}；把 α 拖到 ${trim(mtp.high, 2)}，是 ${trim(expectedYield(mtp.high, 1), 3)}。`;
  }
  if (!draft) return "";
  const a = data.accounting.drafts[draft];
  const row = a.rows.find((r) => r.k === k);
  return `${data.roles[draft]} ${draft}：α = ${pct(a.alpha)}（全部 k 合并，${num(a.positions_tested)} 个位置），` +
    `c = ${a.c.toFixed(3)}，公式最快的是 k = ${a.best_k}（${times(a.best_speedup)}）。` +
    (row ? `k = ${k}：${runs} 次运行实测每次目标前向 ${row.tokens_per_target_forward.toFixed(2)} 个 token，` +
      `公式 ${row.formula.toFixed(2)}；只看这个 k 的运行，α = ${pct(row.acceptance_rate)}` +
      `（95% 区间 ${pct(row.alpha_low)}～${pct(row.alpha_high)}）。` : "");
}

function caption({ alpha, c, k }, best, measuredName) {
  return `α = ${trim(alpha, 3)}、c = ${trim(c, 3)} 时理论加速随 k 的变化；大圆圈是当前的 k = ${k}，` +
    `这组参数下最快的是 k = ${best}。虚线 1× 是不投机。` +
    (measuredName ? `方块是${measuredName}各 k 的实测折算，竖线是只用那个 k 的运行算出的 α 的 95% 区间代入公式的范围。` : "");
}
