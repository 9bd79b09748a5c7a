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

export function render(section, data) {
  const curve = readCurve(section);
  const entry = data.distributions[curve.prefix];
  const p = decodeProbs(entry.p);
  const q = decodeProbs(entry.q[curve.draft]);
  const pair = { key: `${curve.prefix}|${curve.draft}`, p: JSON.stringify(p), q: JSON.stringify(q) };
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
  const label = () => {
    const jobs = jobsUpTo(curve, Number(ui.select.value));
    ui.run.textContent = `在浏览器里重跑（${jobs.length} 个点，共 ${num(jobs.reduce((s, j) => s + j.n, 0))} 次抽样）`;
  };
  ui.select.addEventListener("change", label);
  ui.cancel.addEventListener("click", () => state.task?.cancel());
  ui.run.addEventListener("click", () => {
    if (!state.running) rerun(Number(ui.select.value));
  });

  const setRunning = (on) => running(section, ui, state, on);

  async function rerun(upto) {
    const jobs = jobsUpTo(curve, upto);
    const total = jobs.reduce((s, j) => s + j.n, 0);
    const trigger = document.activeElement;
    state.live = emptyLive(curve);
    draw();
    fill(ui.summary);
    Object.assign(ui.progress, { max: total, value: 0 });
    ui.summary.dataset.state = "running";
    setRunning(true);
    ui.progressText.textContent = data.python.state === "ready" ? `开始：${jobs.length} 个点` : "等待 Python 抽样器载入……";
    const started = performance.now();
    let drawn = 0;
    let equal = 0;
    let count = 0;
    const task = (state.task = data.python.task());
    try {
      for (const job of jobs) {
        const result = await data.python.run({ key: pair.key, p: pair.p, q: pair.q, scheme: job.scheme, seed: job.seed,
          n: job.n, chunk: Math.min(job.n, CHUNK) }, (m) => {
          ui.progress.value = drawn + m.done;
          ui.progressText.textContent = `第 ${count + 1} / ${jobs.length} 个点：已抽 ${num(drawn + m.done)} / ${num(total)} 次`;
        }, task);
        drawn += job.n;
        count += 1;
        state.live[job.scheme][job.s][job.i] = result.tv;
        if (result.tv === curve.tv[job.scheme][job.s][job.i]) equal += 1;
        draw();
        report(ui, state.live, count, equal, performance.now() - started);
      }
      ui.progressText.textContent = `完成：${jobs.length} 个点，${num(total)} 次抽样。`;
      ui.summary.dataset.state = "done";
    } catch (err) {
      ui.progressText.textContent = err.cancelled ? `${cancelledNote(data.python).replace("已取消。", `已取消（算完 ${count} 个点）。`)}`
        : `运行失败：${err.message}`;
      ui.summary.dataset.state = err.cancelled ? "cancelled" : "failed";
    } finally {
      if (state.task === task) state.task = null;
      const onCancel = document.activeElement === ui.cancel;
      setRunning(false);
      if (onCancel || !(document.activeElement instanceof HTMLElement) || document.activeElement === document.body) {
        (trigger instanceof HTMLElement && trigger.isConnected && !trigger.hidden ? trigger : ui.run).focus();
      }
    }
  }

  label();
  draw();
  setRunning(false);
  section.classList.add("c13-is-live");
}
