// E6 · 在你的机器上跑一次: the reader's prompt, run by the real models in this tab — the target alone, then
// speculative decoding with the same seed — in the tab's one worker (data.python.e6Run; the engine, the models and
// the tokenizer load only when the reader presses 开始), every decision made by sampler.py in Pyodide. This module
// wires the parts: question.js (the guess asked before the run: 你的机器上，投机解码会更快吗？), controls.js (the form
// and the context check), rounds.js (progress, rounds, the two texts), report.js (the reader's measurements beside
// the predictions). 再测一次 runs the worker's measuring phase again with the models it holds and adds its samples
// to the report's (data.python.e6Measure).
//
// The section carries the outcome for tests and styles: data-state ∈ idle | loading | running | done | failed |
// cancelled, data-identical after a T = 0 run, data-temperature, data-k and data-draft of the run; data-measure ∈
// running | done | failed | cancelled for the last 再测一次 (the shown run stays done); data-guess ∈ faster | same |
// slower, the reader's current choice (the run's own guess: .c13-e6-guess[data-guess], question.js guessOf, and
// showReport's options.guess).
import { el, fill, mount, uid } from "../c13-util.js";
import { contextProblem, e6Controls, longestToken, temperatureProblem } from "./controls.js";
import { guessGate, guessLine } from "./question.js";
import { addSamples, showReport } from "./report.js";
import { megabytes, progressLine, roundList, showTexts, token } from "./rounds.js";

/** Buttons that cannot act now stay focusable (aria-disabled), so the keyboard focus never falls to <body>. */
function button(text, onclick) {
  const node = el("button", { type: "button", class: "md-button", text });
  node.addEventListener("click", (event) => {
    if (node.getAttribute("aria-disabled") === "true") { event.preventDefault(); return; }
    onclick(event);
  });
  return node;
}

/** Why E6 cannot run here (file://, no WebAssembly, a build without the model files), or null. */
function obstacle(data) {
  if (location.protocol === "file:") {
    return "直接从磁盘打开（file://）时，浏览器不允许后台线程载入模型和 Python。请在项目目录执行 " +
      `${data.python.serveCommand()}，再用浏览器打开它打印的地址。下面是构建机器上的实测。`;
  }
  const reason = data.python.obstacle();
  if (reason) return reason;
  if (!Object.keys(data.e6.files).length) {
    return "这次构建没有附带模型文件（precomputed/browser/），E6 无法运行。请在项目目录执行 make site 重新构建；" +
      "下面的静态版本（构建机器上的实测）仍然可以读。";
  }
  return null;
}

/** The live part where the static one was, under the prose; the static one is kept, folded, below it. */
function place(section) {
  const staticPart = section.querySelector(":scope > .c13-e6-static");
  const live = staticPart ? el("div", { class: "c13-live c13-e6" }) : mount(section, "c13-e6");
  const box = el("details", { class: "c13-static-box" }, el("summary", { text: "静态版本：构建机器上的实测" }));
  if (staticPart) { staticPart.before(live, box); box.append(staticPart); }
  return { live, box };
}

/** The parts of the live version, in the order they show: the question first, then the form. */
function build(section, live, data, { run, again }) {
  const e6 = data.e6;
  const total = Object.values(e6.files).reduce((a, b) => a + b, 0);
  const group = uid("e6");
  const w = {
    gate: guessGate(group, section, section.querySelector(":scope > .c13-e6-question")),
    guess: guessLine(),
    controls: e6Controls(group, e6, data.roles),
    start: button("开始", run), // pressed before a guess: run() says that one comes first
    cancel: button("取消", () => data.python.e6Cancel()),
    again: button("再测一次", again),
    progress: progressLine(total),
    promptLine: el("p", { class: "c13-e6-prompt-tokens" }),
    texts: el("div", { class: "c13-e6-texts", "aria-live": "polite" }),
    report: el("div", { class: "c13-e6-report" }),
    labels: {},
  };
  w.labelOf = (id) => w.labels[id] ?? data.labels[id] ?? `#${id}`;
  w.rounds = roundList(w.labelOf);
  // a run downloads the tokenizer, the target and the chosen draft: say what each choice of draft costs
  const perDraft = e6.drafts.map((draft) => `用 ${draft} 共 ${megabytes(neededFiles(e6, { draft })
    .reduce((sum, name) => sum + (e6.files[name] || 0), 0))}`).join("，");
  w.start.setAttribute("aria-describedby", w.gate.hint.id);
  live.append(w.gate.node, w.controls.node,
    el("p", { class: "c13-hint c13-e6-weight", text: `按“开始”后才下载目标模型和你选的草稿模型的 float16 权重，以及分词器：` +
      `${perDraft}（还有 Python 抽样器，如果 E2 还没载入它）；同一个页面里每个文件只下载一次。` }),
    el("div", { class: "c13-buttons" }, w.start, w.cancel, w.again), w.gate.hint, w.progress.node, w.promptLine,
    w.rounds.node, w.texts, w.guess.node, w.report);
  w.rounds.clear();
  return w;
}

/** What the worker reports while it runs, shown as it arrives. */
function onEvent(section, w, event) {
  if (event.type === "e6-phase") {
    w.progress.phase(event.phase);
    if (event.phase === "target" || event.phase === "speculative") section.dataset.state = "running";
  } else if (event.type === "e6-bytes") {
    w.progress.bytes(event);
  } else if (event.type === "e6-prompt") {
    event.ids.forEach((id, i) => { w.labels[id] = event.labels[i]; });
    fill(w.promptLine, `提示编码成 ${event.ids.length} 个 token：`, event.ids.map((id) => token(w.labelOf(id))));
  } else if (event.type === "e6-token") {
    w.labels[event.token] = event.label;
    w.progress.note(`目标模型单独写：已写 ${event.index + 1} 个 token`);
  } else if (event.type === "e6-round") {
    event.drafted.forEach((id, i) => { w.labels[id] = event.draftLabels[i]; });
    w.labels[event.token] = event.label;
    w.rounds.add(event, section.dataset.temperature === "0");
  } else if (event.type === "e6-sample") {
    w.progress.note(`计时：第 ${event.round}/${event.rounds} 轮（三种前向各一段）`);
  }
}

/** What a cancelled run leaves, true to what the worker holds (err.kept: the files loaded and checked there). */
export function cancelledText(err, needed, python) {
  const kept = (err?.kept || []).filter((name) => needed.includes(name));
  const missing = needed.filter((name) => !kept.includes(name));
  const pyodide = python.state === "ready" ? "" : "Python 抽样器在后台接着载入。";
  if (!kept.length) return `已取消。还没有下载完任何模型文件，再按“开始”会重新下载。${pyodide}`;
  return `已取消。已经下载并核对过的 ${kept.join("、")} 留在后台线程里，再按“开始”不用重新下载` +
    (missing.length ? `；${missing.join("、")} 还没下载完，会重新下载。` : "。");
}

/** The files a run with these arguments needs: the tokenizer, the target and the chosen draft. */
export function neededFiles(e6, args) {
  return ["tokenizer.json", `${e6.target}.safetensors`, `${args.draft}.safetensors`];
}

/** Empty what the last run showed; the section says which run is on. */
function reset(section, w, args) {
  Object.assign(section.dataset, { state: "loading", temperature: String(args.temperature), k: String(args.k),
    draft: args.draft });
  delete section.dataset.identical;
  delete section.dataset.measure;
  w.labels = {};
  for (const node of [w.promptLine, w.texts, w.report]) fill(node);
  for (const key of Object.keys(w.report.dataset)) delete w.report.dataset[key];
  w.rounds.clear();
  w.progress.node.classList.remove("c13-error");
}

/** Bytes a request with these arguments downloads: the files it needs that the worker does not hold yet. */
function toDownload(data, args) {
  const held = data.python.state === "ready" ? data.python.e6Kept || [] : [];
  return neededFiles(data.e6, args).filter((name) => !held.includes(name))
    .reduce((sum, name) => sum + (data.e6.files[name] || 0), 0);
}

/** A run: the target alone, then speculative, then the measuring phase; the texts and the report, the reader's
 * guess (made before it) beside them. */
async function runOnce(ui, args, guess) {
  const { section, data, w } = ui;
  reset(section, w, args);
  ui.shown = null;
  ui.reportOptions.guess = guess;
  w.guess.show(guess);
  ui.setRunning(true);
  w.progress.begin(toDownload(data, args));
  w.progress.phase(data.python.state === "ready" ? "weights" : "python");
  // a cold start: Pyodide's steps and bytes, as E2's status line shows them
  const unsubscribe = data.python.subscribe((snapshot) =>
    w.progress.python(snapshot, data.pyodideSteps || [], data.pyodide_bytes));
  try {
    const result = await data.python.e6Run(args, (event) => onEvent(section, w, event));
    Object.assign(w.labels, result.labels || {});
    const identical = showTexts(w.texts, result, w.labelOf);
    if (result.temperature === 0) section.dataset.identical = String(identical);
    showReport(w.report, result, ui.reportOptions);
    ui.shown = result;
    w.progress.say(`完成：目标单独写 ${result.target.tokens.length} 个 token，投机解码 ${result.speculative.rounds} 轮，` +
      `计时 ${result.measured.n} 轮。`);
    section.dataset.state = "done";
  } catch (err) {
    section.dataset.state = err?.cancelled ? "cancelled" : "failed";
    w.progress.say(err?.cancelled ? cancelledText(err, neededFiles(data.e6, args), data.python)
      : `没能跑完：${err?.message || err}`);
    w.progress.node.classList.toggle("c13-error", !err?.cancelled);
  } finally {
    unsubscribe();
    ui.setRunning(false);
  }
}

/** 再测一次: the measuring phase again, its samples added to the shown run's; whatever happens the run stays shown
 * and the buttons work again. */
async function measureAgain(ui) {
  const { section, data, w } = ui;
  const base = ui.shown;
  ui.setRunning(true);
  section.dataset.measure = "running";
  w.progress.node.classList.remove("c13-error");
  w.progress.begin(toDownload(data, base));
  w.progress.phase("measure");
  const kept = `表里仍是之前的 ${base.measured.n} 轮样本`;
  try {
    const answer = await data.python.e6Measure({ draft: base.draft, context: base.timing.context,
      drafted: base.timing.drafted }, (event) => onEvent(section, w, event));
    ui.shown = addSamples({ ...base, kernel: answer.kernel, kernelNote: answer.kernelNote }, answer.timing);
    showReport(w.report, ui.shown, ui.reportOptions);
    w.progress.say(`再测完成：加了 ${answer.timing.samples.length} 轮样本，现在共 n = ${ui.shown.measured.n} 轮。`);
    section.dataset.measure = "done";
  } catch (err) {
    section.dataset.measure = err?.cancelled ? "cancelled" : "failed";
    w.progress.say(err?.cancelled ? `已取消再测：${kept}。`
      : `再测没能完成：${err?.message || err}（${kept}；可以再按“再测一次”，或按“开始”重新跑。）`);
    w.progress.node.classList.toggle("c13-error", !err?.cancelled);
  } finally {
    ui.setRunning(false);
  }
}

/** The build machine's roof for the roofline, when the payload carries it (widget_payload.py build_roof, from
 * measured.json → browser_forwards → roof); null when it does not (the figure then draws two roofs). */
export function buildRoof(data) {
  const roof = data.e6?.build_roof;
  if (!(roof?.bandwidth_gbs > 0 && roof?.peak_gflops > 0)) return null;
  return { key: "build", name: "构建机器（WebAssembly SIMD，单核）", short: "构建机器", bandwidthGBs: roof.bandwidth_gbs,
    peakGflops: roof.peak_gflops };
}

export function render(section, data) {
  const { live, box } = place(section);
  section.dataset.state = "idle";
  section.classList.add("c13-is-live");
  const blocked = obstacle(data);
  if (blocked) {
    live.append(el("p", { class: "c13-error c13-e6-blocked", text: blocked }));
    box.open = true;
    section.dataset.state = "failed";
    return;
  }
  const longest = longestToken(data.labels);
  const ui = { section, data, running: false, shown: null,
    reportOptions: { target: data.e6.target, vocab: data.labels.length, anchor: data.anchor, buildRoof: buildRoof(data),
      accounting: data.accounting.drafts, models: data.models, costs: data.e5_costs,
      thresholds: data.thresholds } };
  const w = (ui.w = build(section, live, data, { run: () => run(),
    again: () => { if (!ui.running && ui.shown) measureAgain(ui); } }));
  ui.setRunning = (on) => {
    ui.running = on;
    w.start.setAttribute("aria-disabled", on ? "true" : "false");
    w.cancel.setAttribute("aria-disabled", on ? "false" : "true");
    w.again.setAttribute("aria-disabled", on || !ui.shown ? "true" : "false");
  };
  ui.setRunning(false);
  const check = () => {
    const tooLong = contextProblem(w.controls.sizes(), { context: data.e6.context, longest });
    const temperature = tooLong ? null : temperatureProblem(w.controls.temperature(), data.e6.temperatures);
    const problem = tooLong || temperature;
    w.controls.check.textContent = problem || "";
    w.controls.check.classList.toggle("c13-error", Boolean(problem));
    w.controls.check.dataset.problem = tooLong ? "context" : temperature ? "temperature" : "";
    return problem;
  };
  w.controls.onChange(() => { if (w.controls.check.dataset.problem) check(); });
  const run = () => {
    if (ui.running) return;
    const problem = check(); // an over-long prompt: nothing loads, nothing runs
    const guess = w.gate.chosen();
    if (!guess) w.gate.ask(); // no guess yet: say so under 开始 and mark the question, and wait for one
    if (problem || !guess) return;
    runOnce(ui, w.controls.values(), guess);
  };
}
