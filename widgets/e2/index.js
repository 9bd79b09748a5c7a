// E2 · three schemes (朴素方案 / 它在哪失败 / 改进方案) — the Pyodide experiment.
//
// The stacked picture is drawn by widgets/figures/stacked.mjs (the build-time figure's own function); every
// random draw is made by widgets/sampler.py running in Pyodide in a Web Worker (data.python), the same file and
// the same PRNG (random.Random) the generator used offline, so a run with the offline check's seed and size
// reproduces the offline TV exactly. This module wires the parts: controls.js, pictures.js, formula.js,
// rounds.js, runs.js, status.js.
import { el, fill, fixed, mount, num, prob, pct, promptBox, say, staticChildren, stash, uid } from "../c13-util.js";
import { prediction, sharedControls, tabs } from "./controls.js";
import { distributionStore } from "./distributions.js";
import { formulaBlock, highlightOf, pageFormulas } from "./formula.js";
import { columnsFor, drawFailTable, drawStacked } from "./pictures.js";
import { emptyTally, showNaiveRound, showRound } from "./rounds.js";
import { clearArea, execute, markStale, runArea, showReproduction, showRun } from "./runs.js";
import { pythonStatus, startWhenReached } from "./status.js";

const SCHEME_LABELS = {
  naive: "朴素方案（两边各抽一个，相等才留下）",
  correct: "被拒从残差抽（改进方案）",
  resample_p: "被拒从 p 重抽（错误的变体）",
  direct: "直接从 p 抽（噪声基准）",
};

/** The reader-facing name of each scheme the data names (constants.schemes); an unnamed one is an error. */
function schemeNames(schemes) {
  const unnamed = schemes.filter((s) => !(s in SCHEME_LABELS));
  if (unnamed.length) throw new Error(`E2: no name for the scheme(s) ${unnamed.join(", ")}`);
  return Object.fromEntries(schemes.map((s) => [s, SCHEME_LABELS[s]]));
}

function naivePanel(widget) {
  const out = el("div", { class: "c13-round", "aria-live": "polite" });
  const tally = el("p", { class: "c13-tally" });
  const area = runArea("naive", widget.python);
  widget.areas.push(area);
  widget.panels[0].append(
    say(widget.section, "naive_how", {}, ""),
    el("div", { class: "c13-buttons" }, widget.button("跑一轮（朴素）", () => widget.oneRound("naive", out, tally)),
      widget.button(`跑 ${num(widget.liveSizes[0])} 轮（朴素）`,
        () => widget.bigRun("naive", widget.liveSizes[0], area, false))),
    out, tally, area.node);
  return { out, tally };
}

function failPanel(widget) {
  const table = el("div", { class: "c13-scroll" });
  const text = el("p");
  widget.panels[1].append(
    say(widget.section, "fail_why", {}, ""),
    text, table,
    say(widget.section, "fail_next", {}, ""));
  return { table, text };
}

function reproductionBox(widget, data) {
  const offlineSchemes = data.constants.schemes.filter((s) => s !== "naive");
  const select = el("select", { id: `${widget.group}-repro-scheme` },
    offlineSchemes.map((s) => el("option", { value: s, text: widget.schemeNames[s] })));
  const info = el("p", { class: "c13-hint" });
  const area = runArea("repro", widget.python);
  widget.areas.push(area);
  const button = widget.button("按离线检验重跑", () => widget.reproduce(select.value, area));
  const update = () => {
    const dist = widget.current();
    const reference = dist.offline[select.value];
    button.textContent = `按离线检验重跑（种子 ${reference.seed}，${num(reference.n)} 轮）`;
    fill(info, "c13.json 里的离线数字：前缀 ", promptBox(dist.prefix), `，${dist.draft}，${widget.schemeNames[select.value]}，` +
      `TV = ${fixed(reference.tv, 4)}（种子 ${reference.seed}）`);
  };
  select.addEventListener("change", update);
  const node = el("div", { class: "c13-repro-box" },
    say(widget.section, "repro_how", {}, ""),
    el("div", { class: "c13-seed-row" }, el("label", { for: select.id, text: "抽法 " }), select, button),
    info, el("div", { class: "c13-repro", "aria-live": "polite" }, area.node));
  return { node, update };
}

function improvedPanel(widget, data) {
  const out = el("div", { class: "c13-round", "aria-live": "polite" });
  const tally = el("p", { class: "c13-tally" });
  const area = runArea("main", widget.python);
  widget.areas.push(area);
  const guess = prediction(widget.group, (scheme) => { widget.state.prediction = scheme; widget.setRunning(widget.state.running); });
  const bigButtons = widget.liveSizes.map((n, i) => {
    const button = widget.button(i === 0 ? `跑 ${num(n)} 轮` : `×${num(n)}：跑 ${num(n)} 轮`,
      () => widget.bigRun(widget.state.prediction, n, area, true));
    button.setAttribute("aria-describedby", guess.hint.id);
    button.dataset.n = n;
    return button;
  });
  const explain = el("div", { class: "c13-term-explain", "aria-live": "polite" });
  const formula = formulaBlock(say(widget.section, "terms", {}, "c13-formula-intro"), widget.formulaMaths, widget.page,
    (term) => widget.chooseTerm(term));
  const reproduction = reproductionBox(widget, data);
  widget.panels[2].append(
    say(widget.section, "correct_how", {}, ""),
    el("div", { class: "c13-buttons" }, widget.button("跑一轮", () => widget.oneRound("correct", out, tally))),
    out, tally, guess.node, guess.hint, el("div", { class: "c13-buttons" }, ...bigButtons), area.node,
    reproduction.node, formula.node, explain);
  return { out, tally, bigButtons, explain, formula, reproduction, guessHint: guess.hint };
}

/** The runs through the worker: one round of a seeded stream, a big run, the reproduction of an offline figure. */
function attachRuns(widget, { data, store, seed: seedOf, drawPicture, guessHint }) {
  const { state } = widget;
  widget.oneRound = async (scheme, out, tallyLine) => {
    const dist = widget.current();
    const seed = seedOf();
    const key = `${dist.key}|${scheme}|${seed}`;
    const index = state.roundIndex.get(key) ?? 0;
    widget.setRunning(true);
    try {
      const record = await data.python.round({ key: dist.key, p: dist.pJSON, q: dist.qJSON, scheme, seed, index });
      state.roundIndex.set(key, index + 1);
      if (widget.current() !== dist) return; // the reader chose another prefix or draft meanwhile
      const args = { record, dist, labels: data.labels, seed, index, tally: state.tally };
      if (scheme === "naive") {
        showNaiveRound(out, tallyLine, args);
      } else {
        showRound(out, tallyLine, args);
        state.marked = record.x;
        drawPicture();
      }
    } catch (err) {
      if (!err.cancelled) fill(out, el("p", { class: "c13-error", text: `这一轮没能跑完：${err.message}` }));
    } finally {
      widget.setRunning(false);
    }
  };
  widget.bigRun = async (scheme, n, area, withFeedback) => {
    if (!scheme) { guessHint().focus?.(); return; }
    const dist = widget.current();
    const options = { schemeNames: widget.schemeNames, noise: store.noise, labels: data.labels, withFeedback,
      columns: widget.columns(), largeRun: Math.max(...widget.liveSizes), limit: data.thresholds.clear_of_noise };
    await execute(widget, area, { dist, scheme, n, seed: seedOf(), chunk: n >= 100_000 ? 10_000 : 2_000 },
      (result, wallMs) => {
        showRun(area, result, dist, wallMs, options);
        if (widget.current() !== dist) markStale(area, dist);
      });
  };
  widget.reproduce = async (scheme, area) => {
    const dist = widget.current();
    const reference = dist.offline[scheme];
    await execute(widget, area, { dist, scheme, n: reference.n, seed: reference.seed, chunk: 20_000 },
      (result, wallMs) => {
        showReproduction(area, result, reference, wallMs, scheme);
        if (widget.current() !== dist) markStale(area, dist);
      });
  };
}

/** Buttons that turn themselves off while a run goes on stay focusable (aria-disabled, not disabled), so the
 * keyboard focus never falls to <body>; a press while off does nothing. */
function buttonMaker(widget) {
  return (text, onclick) => {
    const button = el("button", { type: "button", class: "md-button", text });
    button.addEventListener("click", (event) => {
      if (button.getAttribute("aria-disabled") === "true") { event.preventDefault(); return; }
      onclick(event);
    });
    widget.runButtons.push(button);
    return button;
  };
}

export function render(section, data) {
  const store = distributionStore(data);
  const state = { prefix: data.prefixes[0], draft: data.drafts[0], prediction: null, running: false,
    roundIndex: new Map(), tally: emptyTally(), marked: null, term: null };
  const page = section.closest("article") ?? section.ownerDocument; // the proof's formulas and explanations
  const live = mount(section, "c13-e2");
  const box = stash(section, staticChildren(section), "静态版本：构建时的叠放图与离线数字");
  const widget = { python: data.python, state, group: uid("e2"), schemeNames: schemeNames(data.constants.schemes),
    liveSizes: data.constants.e2_live_sizes, // the live runs' sizes, from precomputed/lesson.toml
    current: () => store.get(state.prefix, state.draft), runButtons: [], areas: [], section, page,
    formulaMaths: pageFormulas(page) };
  const controls = sharedControls(widget.group, data, { onPrefix: (v) => { state.prefix = v; redraw(); },
    onDraft: (v) => { state.draft = v; redraw(); } });
  const stats = el("p", { class: "c13-e2-stats" });
  const picture = el("figure", { class: "c13-fig c13-e2-picture" });
  const status = el("div", { class: "c13-py", role: "status" });
  const tabList = tabs(widget.group);
  widget.panels = tabList.panels;
  // the picture's box stays on screen (sticky) above the tabs, the formula and the runs: see css/e2.css
  live.append(controls.node, stats, picture, status, tabList.list, ...tabList.panels);

  widget.button = buttonMaker(widget);
  widget.setRunning = (on) => {
    state.running = on;
    for (const b of widget.runButtons) {
      const off = on || (improved.bigButtons.includes(b) && !state.prediction);
      b.setAttribute("aria-disabled", off ? "true" : "false");
    }
    section.dataset.running = on ? "true" : "false";
  };
  widget.columns = () => Number(picture.dataset.columns);
  const columns = () => columnsFor(live.clientWidth, data.constants.top_n);
  const drawPicture = () => drawStacked(picture, { dist: widget.current(), labels: data.labels, target: data.target,
    n: columns(), marked: state.marked, highlight: highlightOf(state.term) });

  attachRuns(widget, { data, store, seed: controls.seed, drawPicture, guessHint: () => improved.guessHint });
  widget.chooseTerm = (term) => {
    state.term = state.term === term ? null : term;
    improved.formula.press(state.term);
    fill(improved.explain, improved.formula.explain(state.term, widget.current()));
    improved.explain.dataset.term = state.term || "";
    drawPicture();
  };

  const naive = naivePanel(widget);
  const fail = failPanel(widget);
  const improved = improvedPanel(widget, data);
  pythonStatus(section, status, data.python, { steps: data.pyodideSteps || [], sizes: data.pyodide_bytes },
    () => { if (box) box.open = true; });
  startWhenReached(section, data.python);
  keepPinned(live, picture, () => { if (columns() !== widget.columns()) drawPicture(); });

  /** A new prefix or draft: everything shown for the old one goes (runs still going say so when they end). */
  function redraw() {
    const dist = widget.current();
    state.marked = null;
    stats.textContent = `α = Σ min(p, q) = ${pct(dist.alpha)}（改进方案里每个草稿 token 的接受率）；` +
      `Σ p·q = ${prob(dist.sumPQ)}（朴素方案的接受率）。`;
    drawPicture();
    drawFailTable(fail.table, fail.text, dist, data.labels);
    improved.reproduction.update();
    if (state.term) fill(improved.explain, improved.formula.explain(state.term, dist));
    for (const roundBox of [improved.out, naive.out]) {
      fill(roundBox);
      for (const key of Object.keys(roundBox.dataset)) delete roundBox.dataset[key];
    }
    for (const area of widget.areas) clearArea(area);
    improved.tally.textContent = "";
    naive.tally.textContent = "";
    state.tally = emptyTally();
  }

  redraw();
  widget.setRunning(false);
  section.classList.add("c13-is-live");
}

/** The height of the pinned picture, for the scroll margin of what lies under it (a focused control is never
 * scrolled behind the picture), and a redraw when the experiment's width changes. */
function keepPinned(live, picture, onResize) {
  if (!("ResizeObserver" in window)) return;
  const observer = new ResizeObserver(() => {
    if (!live.isConnected) { observer.disconnect(); return; }
    const pin = picture.querySelector(".c13-e2-pin");
    if (pin) live.style.setProperty("--c13-e2-pin", `${Math.ceil(pin.getBoundingClientRect().height)}px`);
    onResize();
  });
  observer.observe(live);
}
