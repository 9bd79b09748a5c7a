// E5 · tokens per round, formula vs real runs. Sliders α ∈ [0, 1), c ∈ [0, 1], k over constants.ks drive the
// closed form E[N] = (1 − α^(k+1)) / (1 − α) and the speedup (1 − α^(k+1)) / ((1 − α)(c·k + 1)) live, with the
// plot of speedup against k drawn by widgets/figures/speedup.mjs (the module that drew the build-time plot).
// Buttons load a draft's α (one per draft, pooled over every k, as the tables and the prose use it) and c, and
// draw that draft's measured points; a third loads DeepSeek-V3's reported acceptance (the section's data-mtp-*,
// from precomputed/papers.json through the page). It starts on the small draft at the current k slider. Every
// speedup it prints says what it is (data-kind, title): the lesson's formula (v = 1) by default. Beside the sliders a
// choice of costs (COSTS) puts the build machine's measured c and v(k) into the formula instead, E[N] / (k·c + v(k))
// (data.e5_costs, from measured.json: PyTorch's, with its measured wall-clock speedups drawn on the curve for a loaded
// draft; the payload's WebAssembly costs are E6's, not offered here): the c slider then stands still at the measured c of the loaded draft (the
// last one loaded when α was moved by hand). The reader's own costs are E6's, on the lab page (docs/lab.md). The
// static version (the build-time plot) stays the lesson's formula.
import { el, fill, fixed, fromMarkup, mount, num, pct, speed, stash, times, trim, uid } from "../c13-util.js";
import { bestK, expectedYield, measuredSpeedup, rowPoint, sliderPlot, sliderValues, speedup, wallClockPoint }
  from "../figures/speedup.mjs";

// the two choices of costs: the lesson's (v = 1, c from the slider) against the build machine's measured ones
// (data.e5_costs.torch); `name` goes into the sentences ("公式代入{name}实测的 c 和 v(k)")
const COSTS = [
  { key: "lesson", label: "课上：v = 1，c 用滑块" },
  { key: "torch", label: "构建机实测（PyTorch）", name: "构建机 PyTorch " },
];

/** Why a choice of costs cannot be made here (Chinese), or null: no measured.json or a stale one. */
export function costsProblem(costs, key) {
  if (key === "lesson") return null;
  if (!costs || costs.reason) return costs?.reason ?? "这次构建没有构建机的实测。";
  return costs[key] ? null : costs[`${key}Reason`] ?? "没有这组实测。";
}

export function render(section, data) {
  const acc = data.accounting.drafts;
  const drafts = data.drafts;
  const ks = data.constants.ks;
  const mtp = { low: Number(section.dataset.mtpAlpha), high: Number(section.dataset.mtpAlphaHigh) };
  const first = acc[drafts[0]];
  const state = { alpha: first.alpha, c: first.c, k: first.best_k, draft: drafts[0], costs: "lesson",
    costDraft: drafts[0] };
  const costs = data.e5_costs;
  const gid = uid("e5");
  const live = mount(section, "c13-e5");

  const { controls, sliders } = sliderControls(gid, state, ks, () => draw());
  const choice = costChoice(gid, state, () => draw());
  controls.append(choice.box);
  const presets = presetButtons(data, mtp, set);
  const { readout, yieldOut, speedParts } = readoutBox(gid);
  const noteBox = el("p", { class: "c13-hint c13-e5-note" });
  const figure = el("figure", { class: "c13-fig" });
  live.append(controls, presets, readout, noteBox, figure);
  // the live plot draws what the build-time one drew (and more): that one folds away, the tables stay
  const builtPlot = section.querySelector(":scope figure.c13-fig:has(#e5-plot)");
  if (builtPlot) stash(section, [builtPlot], "静态版本：构建时的图");

  function set(values) {
    Object.assign(state, values);
    for (const [key, s] of Object.entries(sliders)) s.input.value = String(state[key]);
    choice.check(state.costs);
    draw();
  }

  function draw() {
    const { alpha, k } = state;
    choice.refresh(costs);
    const cost = measuredCosts(state, costs, ks, data.roles);
    const c = cost ? cost.c : state.c;
    sliders.c.input.disabled = Boolean(cost);  // changed only by the choice of costs, never while focused
    sliders.alpha.out.textContent = trim(alpha, 3);
    sliders.c.out.textContent = trim(c, 3);
    sliders.k.out.textContent = String(k);
    const y = expectedYield(alpha, k);
    yieldOut.textContent = trim(y, 3);
    yieldOut.dataset.value = String(y);
    showSpeed(speedParts, state, c, cost);
    fill(noteBox, ...(cost ? costNote(state, cost, acc, data.roles) : [formulaNote(noteText(state, data, mtp))]));
    noteBox.hidden = !noteBox.textContent;
    drawPlot(figure, state, c, cost, data);
  }
  draw();
  section.classList.add("c13-is-live");
}

/** The sliders α, c and k with their labels and outputs: {controls, sliders}; moving one sets state, then onChange. */
function sliderControls(gid, state, ks, onChange) {
  const sliders = {};
  const slider = (key, label, attrs) => {
    const input = el("input", { type: "range", id: `${gid}-${key}`, ...attrs, value: state[key] });
    const out = el("output", { for: input.id, id: `${gid}-${key}-out` });
    input.addEventListener("input", () => {
      state[key] = Number(input.value);
      if (key !== "k") state.draft = null;  // α or c moved: no longer a draft's measured values
      onChange();
    });
    sliders[key] = { input, out };
    return el("div", { class: "c13-slider" }, el("label", { for: input.id, text: label }), input, out);
  };
  const controls = el("div", { class: "c13-controls c13-e5-sliders" },
    slider("alpha", "接受率 α", { min: 0, max: 0.99, step: 0.01 }),
    slider("c", "草稿代价 c", { min: 0, max: 1, step: 0.01 }),
    slider("k", "每轮草稿数 k", { min: Math.min(...ks), max: Math.max(...ks), step: 1 }));
  return { controls, sliders };
}

/** The preset buttons: each draft's measured α and c, DeepSeek-V3's reported α when the page has it; set(values). */
function presetButtons(data, mtp, set) {
  const acc = data.accounting.drafts;
  const button = (text, onclick) => el("button", { type: "button", class: "md-button c13-small", text, onclick });
  return el("div", { class: "c13-buttons c13-e5-presets" }, el("span", { class: "c13-hint", text: "用真实数字：" }),
    data.drafts.map((d) => button(presetLabel(data.roles[d], d),
      () => set({ alpha: acc[d].alpha, c: acc[d].c, draft: d, costDraft: d }))),
    // DeepSeek-V3's acceptance goes with its own c = 0: the lesson's costs
    Number.isFinite(mtp.low) && button(`DeepSeek-V3（α = ${trim(mtp.low, 2)}，c = 0，k = 1）`,
      () => set({ alpha: mtp.low, c: 0, k: 1, draft: "mtp", costs: "lesson" })));
}

/** The readout of E[N] and the speedup: {readout, yieldOut, speedParts (what showSpeed fills)}. */
function readoutBox(gid) {
  const yieldOut = el("output", { class: "c13-big", id: `${gid}-yield`, for: `${gid}-alpha ${gid}-k` });
  const speedOut = el("output", { class: "c13-big", id: `${gid}-speedup`, for: `${gid}-alpha ${gid}-c ${gid}-k` });
  const speedLabel = el("span");
  const speedLine = el("p", null, speedLabel, speedOut);
  const readout = el("div", { class: "c13-readout", "aria-live": "polite" },
    el("p", null, "每轮期望产出 E[N] = (1 − α", el("sup", { text: "k+1" }), ") / (1 − α) = ", yieldOut, " 个 token"),
    speedLine);
  return { readout, yieldOut, speedParts: { speedLine, speedLabel, speedOut } };
}

/** The speed readout: the lesson's formula, or the formula with the chosen measured costs (none at a k they lack). */
function showSpeed({ speedLine, speedLabel, speedOut }, { alpha, k }, c, cost) {
  const vk = cost ? cost.v[cost.ks.indexOf(k)] : 1;
  const s = vk === undefined ? null : cost ? measuredSpeedup(alpha, c, k, vk) : speedup(alpha, c, k);
  speedOut.textContent = s === null ? `—（构建机没有量 k = ${k} 的 v(k)：换一个 k）` : times(s);
  if (s === null) delete speedOut.dataset.value;
  else speedOut.dataset.value = String(s);
  // the readout's kind, once for every value it shows
  const kind = fromMarkup(cost ? speed("", "formula-measured", cost.where) : speed("", "formula"));
  kind.append(speedOut);
  speedLabel.textContent = cost ? `公式代入${cost.name}实测的 c 和 v(k)：E[N] / (k·c + v(k)) = ` :
    "课上公式的加速 = E[N] / (c·k + 1) = ";
  fill(speedLine, speedLabel, kind);
}

/** The radio group of COSTS: {box, check(key), refresh(costs)}; a choice that cannot be made is disabled, with why
 *  under the choices. */
function costChoice(gid, state, onChange) {
  const choices = COSTS.map((ch) => ({ ...ch, input: el("input", { type: "radio", name: `${gid}-costs`,
    value: ch.key, checked: ch.key === state.costs, onchange: () => { state.costs = ch.key; onChange(); } }) }));
  const why = el("p", { class: "c13-hint c13-e5-costs-why" });
  const box = el("fieldset", { class: "c13-radios c13-e5-costs" }, el("legend", { text: "代价 c 和 v(k) 用谁的" }),
    choices.map((ch) => el("label", null, ch.input, ` ${ch.label}`)), why);
  return {
    box,
    check: (key) => { for (const ch of choices) ch.input.checked = ch.key === key; },
    refresh: (costs) => {
      const problems = new Set();
      for (const ch of choices) {
        const problem = costsProblem(costs, ch.key);
        ch.input.disabled = Boolean(problem);
        if (problem) problems.add(problem);
      }
      why.textContent = [...problems].join("");
      why.hidden = !problems.size;
    },
  };
}

/** The live plot and its caption: the lesson's formula with the loaded draft's rows, or the formula with the chosen
 *  measured costs (cost, measuredCosts) over the ks they have, with their measured wall-clock points. */
function drawPlot(figure, state, c, cost, data) {
  const { alpha, k, draft } = state;
  const acc = data.accounting.drafts;
  const ks = cost ? cost.ks : data.constants.ks;
  const lessonPoints = !cost && draft && acc[draft];
  const { values, best: costBest } = sliderValues({ alpha, c, ks, v: cost?.v });
  const points = cost ? cost.points?.map((p) => wallClockPoint(p, values[ks.indexOf(p.k)])) ?? null :
    lessonPoints ? lessonPoints.rows.map((r) => rowPoint(r, lessonPoints.c, lessonPoints.alpha)) : null;
  const best = cost ? costBest : bestK(alpha, c, ks);
  const pointsName = cost ? `构建机实测的墙钟加速（${data.roles[cost.draft]}，中位数，竖线最小–最大）` : data.roles[draft];
  const plot = fromMarkup(sliderPlot({ alpha, c, k, ks, id: uid("e5-live"), points, pointsName, v: cost?.v,
    costs: cost?.name }));
  fill(figure, plot, el("figcaption", { text: cost ? costCaption(state, c, best, cost, data.roles) :
    caption(state, best, lessonPoints && data.roles[draft]) }));
  figure.dataset.bestK = String(best);
  figure.dataset.costs = state.costs;
}

/** The measured costs the choice puts into the formula, or null for the lesson's: the loaded draft's c (the last
 *  one loaded when α was moved by hand), v(k) over ks, where they come from; with torch, the draft's measured
 *  wall-clock speedups when a draft is loaded (α is then its α). */
export function measuredCosts(state, costs, ks, roles) {
  if (state.costs === "lesson" || costsProblem(costs, state.costs)) return null;
  const name = COSTS.find((ch) => ch.key === state.costs).name;
  const chosen = costs[state.costs];
  const v = ks.map((k) => chosen.v[costs.ks.indexOf(k)]);
  const points = state.draft === state.costDraft ? chosen.points?.[state.costDraft] ?? null : null;
  return { key: state.costs, name, draft: state.costDraft, role: roles[state.costDraft], c: chosen.c[state.costDraft],
    ks, v, where: chosen.where, wallClock: chosen.wallClock, points };
}

function formulaNote(text) {
  const node = fromMarkup(speed("", "formula"));  // the sentence names its α and c
  node.textContent = text;
  return node;
}

/** The line under the readout with measured costs: whose c and v(k); the measured wall clock at this k. */
function costNote({ k, draft }, cost, acc, roles) {
  const parts = [`c = ${fixed(cost.c, 3)} 是${cost.role} ${cost.draft} 的实测中位数（参数比 ${fixed(acc[cost.draft].c, 3)}），` +
    `v(k) 是目标验 k + 1 个位置 ÷ 一次前向的实测中位数（${cost.where}）。`];
  const point = cost.points?.find((p) => p.k === k);
  if (point) {
    parts.push(`k = ${k} 时构建机实测的墙钟加速：`,
      speed(times(point.median), "wall-clock", cost.wallClock),
      `（最小–最大 ${fixed(point.min, 2)}–${fixed(point.max, 2)}）。`);
  } else if (cost.key === "torch" && draft !== cost.draft) {
    parts.push(`α 不是${roles[cost.draft]}的实测 α：只画公式，不画构建机实测的点。`);
  }
  return parts.map((p) => (p.startsWith?.("<span") ? fromMarkup(p) : p));
}

function costCaption({ alpha, k }, c, best, cost, roles) {
  return `α = ${trim(alpha, 3)}、c = ${trim(c, 3)}（${roles[cost.draft]}实测）时，公式代入${cost.name}实测的 c 和 v(k) ` +
    `的加速 E[N] / (k·c + v(k)) 随 k 的变化；大圆圈是当前的 k = ${k}，这样算最快的是 k = ${best}。虚线 1× 是不投机。` +
    (cost.points ? "方块是构建机实测的墙钟加速（中位数），竖线是最小–最大。" : "");
}

/** A preset's button: the draft's measured α, with the lesson's c (the parameter ratio), not a measured speed. */
export function presetLabel(role, draft) {
  return `${role} ${draft}：实测 α，c = 参数比`;
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
  return `α = ${trim(alpha, 3)}、c = ${trim(c, 3)} 时课上公式（v = 1）的加速随 k 的变化；大圆圈是当前的 k = ${k}，` +
    `这组参数下最快的是 k = ${best}。虚线 1× 是不投机。` +
    (measuredName ? `方块是把${measuredName}各 k 实测的 N 代入同一公式，竖线是只用那个 k 的运行算出的 α 的 95% 区间代入公式的范围。` : "");
}
