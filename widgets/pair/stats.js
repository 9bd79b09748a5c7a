// The pair's three numbers — α = Σ min(p, q), Σ p·q and the closed-form TV of resample-from-p — from sampler.py
// in Pyodide (the worker's "pair-stats" request). One request at a time: while one is out, only the latest pair
// waits, so a drag never queues up a backlog. Until Pyodide answers (still loading, or unable to start here), a
// preset shows the numbers the build computed with the same sampler.py in CPython; an edited pair says it waits.
import { el, fill, fixed, pct, prob } from "../c13-util.js";

/** The stats line: update(pair, p, q, preset) asks for the numbers of a new pair. */
export function pairStats(python) {
  const node = el("p", { class: "c13-pair-stats", "aria-live": "polite" });
  let latest = null;  // {pair, p, q, preset, seq}
  let inFlight = false;
  let seq = 0;

  function show(values, source) {
    const { alpha, sum_pq: sumPQ, tv } = values;
    fill(node, el("span", { class: "c13-pair-stat" }, "α = Σ min(p, q) = ", el("strong", { text: pct(alpha) })),
      "；", el("span", { class: "c13-pair-stat" }, "Σ p·q = ", el("strong", { text: prob(sumPQ) })),
      "；", el("span", { class: "c13-pair-stat" }, "从 p 重抽的闭式 TV = ", el("strong", { text: fixed(tv, 4) })),
      el("span", { class: "c13-pair-source", text: source === "sampler" ? "（sampler.py 在浏览器里算出）" :
        "（构建时 sampler.py 算出的预设数字；Python 抽样器还没就绪）" }));
    Object.assign(node.dataset, { alpha: String(alpha), sumPq: String(sumPQ), tv: String(tv), source });
  }

  function waiting() {
    const failed = python.state === "failed";
    fill(node, el("span", { text: failed ? "这一对分布的 α、Σ p·q 和闭式 TV 要由 sampler.py 算，可这里 Python 抽样器没能启动" +
      "（见下面的状态行）；预设的数字在静态版本的表里。" : "α、Σ p·q 和闭式 TV 等 Python 抽样器载入后由 sampler.py 算出……" }));
    for (const key of ["alpha", "sumPq", "tv"]) delete node.dataset[key];
    node.dataset.source = failed ? "none" : "pending";
  }

  async function ask() {
    if (inFlight || !latest || latest.done) return;
    const job = latest;
    inFlight = true;
    try {
      const result = await python.request({ type: "pair-stats", p: JSON.stringify(job.p), q: JSON.stringify(job.q) });
      job.done = true;
      if (job === latest) show({ alpha: result.alpha, sum_pq: result.sum_pq, tv: result.tv_resample_p }, "sampler");
    } catch (err) {
      // a cancel elsewhere ended the worker: the next request starts a new one; a failed start leaves the fallback
      if (!err.cancelled) {
        job.done = true;
        if (job === latest && !job.preset) waiting();
      }
    } finally {
      inFlight = false;
    }
    if (latest !== job) ask();
  }

  /** A new pair. `start`: the reader changed it, so Pyodide may be started for its numbers; on the first drawing
   * only a Pyodide already loading or ready is asked (it starts when the reader reaches the experiment). */
  function update(p, q, preset, start = true) {
    seq += 1;
    latest = { p, q, preset, seq, done: false };
    node.dataset.seq = String(seq);
    if (preset) show(preset, "build");
    else waiting();
    const going = python.state === "ready" || python.state === "loading";
    if (going || (start && python.state === "idle" && !python.obstacle())) ask();
  }

  /** Pyodide's state changed: a pair still without its sampler numbers asks once Pyodide is ready (or says it
   * cannot). Never from inside the host's notification itself: the host is between two states there. */
  function onPython(state) {
    if (!latest || latest.done) return;
    if (state === "ready") setTimeout(ask, 0);
    else if (state === "failed" && !latest.preset) waiting();
  }

  return { node, update, onPython };
}
