// E5 · tokens per round, formula vs real runs. Sliders α ∈ [0, 1), c ∈ [0, 1], k ∈ 1…8 drive the closed form
// E[N] = (1 − α^(k+1)) / (1 − α) and the speedup (1 − α^(k+1)) / ((1 − α)(c·k + 1)) live, with a small plot of
// speedup against k; buttons load a draft's measured α and c. The measured tables (best k marked) are the
// build-time ones, kept as they are.
import { el, fill, mount, sv, times, trim, uid } from "./c13-util.js";

const KS = [1, 2, 3, 4, 5, 6, 7, 8];
const ROLE = ["小草稿", "大草稿"];

/** 1 + α + … + α^k: the same number as (1 − α^(k+1)) / (1 − α), summed so that α = 0.8, k = 1 gives 1.8 exactly. */
export function expectedYield(alpha, k) {
  let total = 0;
  let term = 1;
  for (let i = 0; i <= k; i++) {
    total += term;
    term *= alpha;
  }
  return total;
}

export function speedup(alpha, c, k) {
  return expectedYield(alpha, k) / (c * k + 1);
}

function plot(alpha, c, kNow) {
  const id = uid("e5-live");
  const W = 520, H = 260, left = 52, right = 24, top = 26, bottom = 44;
  const pw = W - left - right, ph = H - top - bottom;
  const values = KS.map((k) => speedup(alpha, c, k));
  let ymax = Math.max(1.25, ...values) * 1.1;
  const step = ymax > 5 ? 1 : ymax > 2.5 ? 0.5 : 0.25;
  ymax = step * Math.ceil(ymax / step);
  const px = (k) => left + ((k - 1) / 7) * pw;
  const py = (v) => top + ph - (v / ymax) * ph;
  const best = KS.reduce((b, k) => (values[k - 1] > values[b - 1] ? k : b), 1);
  const svg = sv("svg", { class: "c13-svg", viewBox: `0 0 ${W} ${H}`, style: `max-width:${W}px`, role: "img",
    "aria-labelledby": `${id}-t ${id}-d`, id },
  sv("title", { id: `${id}-t`, text: `理论加速随 k 变化：α = ${alpha}，c = ${c}` }),
  sv("desc", { id: `${id}-d`, text: KS.map((k) => `k = ${k}：${times(values[k - 1])}`).join("；") + `。最佳 k = ${best}。` }));
  for (let t = 0; t <= ymax + 1e-9; t += step) {
    svg.append(sv("line", { x1: left, y1: py(t), x2: left + pw, y2: py(t), class: "c13-grid" }),
      sv("text", { x: left - 6, y: py(t) + 4, "text-anchor": "end", class: "c13-muted c13-fs11", text: `${trim(t, 2)}×` }));
  }
  for (const k of KS) svg.append(sv("text", { x: px(k), y: top + ph + 18, "text-anchor": "middle", class: "c13-muted c13-fs11", text: String(k) }));
  svg.append(sv("text", { x: left + pw / 2, y: H - 6, "text-anchor": "middle", class: "c13-fs12", text: "k（每轮草稿 token 数）" }),
    sv("line", { x1: left, y1: py(1), x2: left + pw, y2: py(1), class: "c13-baseline" }),
    sv("text", { x: left + pw - 4, y: py(1) - 6, "text-anchor": "end", class: "c13-muted c13-fs11", text: "1× = 不投机" }),
    sv("polyline", { points: KS.map((k) => `${px(k).toFixed(1)},${py(values[k - 1]).toFixed(1)}`).join(" "), class: "c13-series c13-series-0" }));
  for (const k of KS) {
    const now = k === kNow;
    svg.append(sv("circle", { cx: px(k), cy: py(values[k - 1]), r: now ? 7 : 4, class: now ? "c13-mark-hollow c13-series-0 c13-now" : "c13-mark c13-series-0" }));
  }
  svg.append(sv("text", { x: px(best), y: py(values[best - 1]) - 12, "text-anchor": "middle", class: "c13-strong c13-fs11 c13-series-text-0",
    text: `最佳 k=${best}` }));
  svg.append(sv("line", { x1: left, y1: top + ph, x2: left + pw, y2: top + ph, class: "c13-axis" }),
    sv("line", { x1: left, y1: top, x2: left, y2: top + ph, class: "c13-axis" }));
  return { svg, best };
}

export function render(section, data) {
  const acc = data.accounting.drafts;
  const drafts = data.drafts;
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
    slider("k", "每轮草稿数 k", { min: 1, max: 8, step: 1 }, (v) => String(v)));
  const presets = el("div", { class: "c13-buttons" }, el("span", { class: "c13-hint", text: "用真实数字：" }),
    drafts.map((d, i) => el("button", { type: "button", class: "md-button c13-small",
      text: `${d}（${ROLE[i] || "草稿"}）在当前 k 的实测 α 和 c`, onclick: () => preset(d) })),
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
      drafts.map((d, i) => `${ROLE[i] || d} c = ${acc[d].c.toFixed(3)}`).join("，") + "。下面两张表是 12 次真实运行的实测。" }));

  function set(values) {
    Object.assign(state, values);
    for (const [key, s] of Object.entries(sliders)) s.input.value = String(state[key]);
    draw();
  }
  function preset(d) {
    const row = acc[d].rows.find((r) => r.k === state.k) || acc[d].rows[0];
    set({ alpha: Math.min(0.99, Math.round(row.acceptance_rate * 100) / 100), c: Math.round(acc[d].c * 100) / 100, k: row.k });
    note.textContent = `${d}，k = ${row.k}：实测 α = ${row.acceptance_rate.toFixed(3)}（滑块取两位小数），c = ${acc[d].c.toFixed(3)}；` +
      `12 次运行实测每次目标前向 ${row.tokens_per_target_forward.toFixed(2)} 个 token，公式 ${row.formula.toFixed(2)}，理论加速 ${times(row.speedup)}。`;
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
    const p = plot(alpha, c, k);
    fill(figure, p.svg, el("figcaption", { text: `α = ${trim(alpha, 2)}、c = ${trim(c, 2)} 时理论加速随 k 的变化；大圆圈是当前的 k = ${k}，` +
      `这组参数下最快的是 k = ${p.best}。虚线 1× 是不投机。` }));
  }
  draw();
  section.classList.add("c13-is-live");
}
