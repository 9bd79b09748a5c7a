// TV against the number of draws, live: the reader reruns the offline points in the browser. Every point is one
// python.run of widgets/sampler.py in the Pyodide worker with the pair, scheme, seed and n the generator used
// (generator/data/tv_curve.py), so the browser's TV equals the offline one to the last bit; the figure
// (widgets/figures/tv_curve.mjs, the build-time figure's own function) rings each point as it comes back.
// Cancellable (its own task: the worker and the other experiments' runs stay), with progress; the static figure stays the
// first state, and what the page shows without JavaScript.
import { decodeProbs, el, fill, fromMarkup, num, uid } from "../c13-util.js";
import { cancelledNote } from "../e2/runs.js";
import { powerLabel, tvCurve } from "../figures/tv_curve.mjs";

const CHUNK = 50_000; // rounds between two progress reports of one run

/** The offline points, embedded in the section by the page build (c13.json → tv_curve). */
function readCurve(section) {
  const node = section.querySelector("script.c13-tv-data");
  if (!node) throw new Error("tv: the page has no embedded tv_curve data");
  return JSON.parse(node.textContent);
}

/** The shape of curve.tv (scheme → seed → n), every point not yet recomputed. */
function emptyLive(curve) {
  return Object.fromEntries(curve.schemes.map((s) => [s, curve.seeds[s].map(() => curve.ns.map(() => null))]));
}

/** The runs up to n = upto, smallest n first (a cancelled rerun leaves whole columns), each with its place. */
function jobsUpTo(curve, upto) {
  const jobs = [];
  curve.ns.forEach((n, i) => {
    if (n > upto) return;
    for (const scheme of curve.schemes) curve.seeds[scheme].forEach((seed, s) => jobs.push({ n, i, scheme, s, seed }));
  });
  return jobs;
}

function controls(curve, group) {
  const select = el("select", { id: `${group}-upto` },
    curve.ns.map((n) => el("option", { value: n, text: `n = ${powerLabel(n)}` })));
  select.value = String(curve.ns[curve.ns.length - 1]);
  const run = el("button", { type: "button", class: "md-button" });
  const cancel = el("button", { type: "button", class: "md-button c13-small", text: "取消", hidden: true });
  const progress = el("progress", { max: 1, value: 0, "aria-label": "重跑进度", hidden: true });
  const progressText = el("span", { class: "c13-progress-text" });
  const summary = el("div", { class: "c13-run-summary c13-tv-summary", "aria-live": "polite", "data-state": "idle" });
  const node = el("div", { class: "c13-live c13-tv-live" },
    el("div", { class: "c13-seed-row" }, el("label", { for: select.id, text: "重跑到 " }), select, run),
    el("div", { class: "c13-progress" }, progress, progressText, cancel), summary);
  return { node, select, run, cancel, progress, progressText, summary };
}

/** What the rerun has shown so far: how many points came back, how many equal the offline ones to the last bit. */
function report(ui, live, points, equal, ms) {
  const same = equal === points;
  fill(ui.summary, el("p", { class: `c13-feedback ${same ? "c13-good" : "c13-bad"}` },
    el("strong", { text: same ? "✓ 逐位相同。" : "✗ 有不相同的点。" }),
    `浏览器算出的 ${points} 个点里，${equal} 个与离线数字（c13.json）完全相同` +
    (same ? "：同一个 sampler.py、同一个伪随机数生成器、同样的种子和次数。" : "。这不该发生：浏览器和离线用的不是同一个抽样器或同一份数据。") +
    `用时 ${(ms / 1000).toFixed(1)} 秒。`));
  Object.assign(ui.summary.dataset, { points: String(points), equal: String(equal), live: JSON.stringify(live) });
}

/** A rerun starts or ends: the run button stays focusable (aria-disabled), so the focus never drops to <body>. */
function running(section, ui, state, on) {
  state.running = on;
  ui.run.setAttribute("aria-disabled", on ? "true" : "false");
  ui.progress.hidden = !on;
  ui.cancel.hidden = !on;
  section.dataset.running = on ? "true" : "false";
}

/** The pair the points were drawn from (the prefix's p and the draft's q): p for the figure, pair for the sampler. */
function samplerPair(curve, data) {
  const entry = data.distributions[curve.prefix];
  const p = decodeProbs(entry.p);
  const q = decodeProbs(entry.q[curve.draft]);
  return { p, pair: { key: `${curve.prefix}|${curve.draft}`, p: JSON.stringify(p), q: JSON.stringify(q) } };
}

/** The run button's text: how many points and draws a rerun up to the chosen n takes. */
function runLabel(ui, curve) {
  const jobs = jobsUpTo(curve, Number(ui.select.value));
  ui.run.textContent = `在浏览器里重跑（${jobs.length} 个点，共 ${num(jobs.reduce((s, j) => s + j.n, 0))} 次抽样）`;
}

/** A rerun begins: every point cleared from the figure and the summary, the progress at 0 of `total` draws. */
function startRun({ section, data, curve, ui, state, draw }, jobs, total) {
  state.live = emptyLive(curve);
  draw();
  fill(ui.summary);
  Object.assign(ui.progress, { max: total, value: 0 });
  ui.summary.dataset.state = "running";
  running(section, ui, state, true);
  ui.progressText.textContent = data.python.state === "ready" ? `开始：${jobs.length} 个点` : "等待 Python 抽样器载入……";
}

/** One point came back: drawn and counted, compared with the offline one, the summary brought up to date. */
function recordPoint({ curve, ui, state, draw }, job, result, tally) {
  tally.drawn += job.n;
  tally.count += 1;
  state.live[job.scheme][job.s][job.i] = result.tv;
  if (result.tv === curve.tv[job.scheme][job.s][job.i]) tally.equal += 1;
  draw();
  report(ui, state.live, tally.count, tally.equal, performance.now() - tally.started);
}

/** A rerun ends: the focus goes back to what started it (else the run button) when it would drop to <body>. */
function endRun({ section, ui, state }, task, trigger) {
  if (state.task === task) state.task = null;
  const onCancel = document.activeElement === ui.cancel;
  running(section, ui, state, false);
  if (onCancel || !(document.activeElement instanceof HTMLElement) || document.activeElement === document.body) {
    (trigger instanceof HTMLElement && trigger.isConnected && !trigger.hidden ? trigger : ui.run).focus();
  }
}

/** Rerun every point up to n = upto in the Pyodide worker, one after another, with progress; cancellable. */
async function rerun(run, upto) {
  const { data, curve, pair, ui, state } = run;
  const jobs = jobsUpTo(curve, upto);
  const total = jobs.reduce((s, j) => s + j.n, 0);
  const trigger = document.activeElement;
  startRun(run, jobs, total);
  const tally = { started: performance.now(), drawn: 0, equal: 0, count: 0 };
  const task = (state.task = data.python.task());
  try {
    for (const job of jobs) {
      const result = await data.python.run({ key: pair.key, p: pair.p, q: pair.q, scheme: job.scheme, seed: job.seed,
        n: job.n, chunk: Math.min(job.n, CHUNK) }, (m) => {
        ui.progress.value = tally.drawn + m.done;
        ui.progressText.textContent = `第 ${tally.count + 1} / ${jobs.length} 个点：` +
          `已抽 ${num(tally.drawn + m.done)} / ${num(total)} 次`;
      }, task);
      recordPoint(run, job, result, tally);
    }
    ui.progressText.textContent = `完成：${jobs.length} 个点，${num(total)} 次抽样。`;
    ui.summary.dataset.state = "done";
  } catch (err) {
    ui.progressText.textContent = err.cancelled
      ? `${cancelledNote(data.python).replace("已取消。", `已取消（算完 ${tally.count} 个点）。`)}`
      : `运行失败：${err.message}`;
    ui.summary.dataset.state = err.cancelled ? "cancelled" : "failed";
  } finally {
    endRun(run, task, trigger);
  }
}

export function render(section, data) {
  const curve = readCurve(section);
  const { p, pair } = samplerPair(curve, data);
  let figure = section.querySelector("#tv-curve");
  if (!figure) throw new Error("tv: the page has no static figure #tv-curve");
  const state = { live: emptyLive(curve), running: false };
  const ui = controls(curve, uid("tv"));
  figure.closest("figure").after(ui.node);

  const draw = () => {
    const fresh = fromMarkup(tvCurve({ curve, p, id: "tv-curve", live: state.live }));
    figure.replaceWith(fresh);
    figure = fresh;
  };
  const run = { section, data, curve, pair, ui, state, draw };
  const label = () => runLabel(ui, curve);
  ui.select.addEventListener("change", label);
  ui.cancel.addEventListener("click", () => state.task?.cancel());
  ui.run.addEventListener("click", () => {
    if (!state.running) rerun(run, Number(ui.select.value));
  });

  label();
  draw();
  running(section, ui, state, false);
  section.classList.add("c13-is-live");
}
