// E2's runs through the Python worker: a progress line with a cancel button, the run itself, and what a
// finished run shows — its TV against the noise floor, the acceptance rate, the time, the offline reference for
// the large run, the feedback on the prediction, and the histogram; the reproduction of an offline figure.
import { el, fill, fixed, num, pct, prob, promptBox, tok, uid } from "../c13-util.js";
import { drawHistogram } from "./pictures.js";


/** The progress line, the summary and the histogram of one kind of run. */
export function runArea(name, python) {
  const progress = el("progress", { max: 1, value: 0, "aria-label": "运行进度", hidden: true });
  const progressText = el("span", { class: "c13-progress-text" });
  const area = { task: null };
  // this area's run only: the worker, Pyodide and the other experiments' runs (E6's loaded models) stay
  const cancel = el("button", { type: "button", class: "md-button c13-small", text: "取消", hidden: true,
    onclick: () => area.task?.cancel() });
  const summary = el("div", { class: "c13-run-summary", "aria-live": "polite", "data-run": name });
  const figure = el("figure", { class: "c13-fig c13-hist" });
  const node = el("div", { class: "c13-run" }, el("div", { class: "c13-progress" }, progress, progressText, cancel),
    summary, figure);
  return Object.assign(area, { node, progress, progressText, cancel, summary, figure });
}

/** What a cancelled run leaves, in words that are true: only this run stopped. */
export function cancelledNote(python) {
  return python.state === "ready" ? "已取消。只停了这一次运行：Python 抽样器还在后台线程里，下次运行直接开始。"
    : "已取消。Python 抽样器在后台接着载入，下次运行不用从头再来。";
}

/** Empty an area (its run belonged to a prefix or draft no longer chosen); a run still going is left alone. */
export function clearArea(area) {
  if (area.summary.dataset.state === "running") return;
  fill(area.summary);
  fill(area.figure);
  area.progressText.textContent = "";
  for (const key of Object.keys(area.summary.dataset)) if (key !== "run") delete area.summary.dataset[key];
}

/** Say that a finished run belongs to an earlier choice of prefix and draft (chosen while it ran). */
export function markStale(area, dist) {
  area.summary.prepend(el("p", { class: "c13-stale" }, "这次运行属于之前的选择（前缀 ", promptBox(dist.prefix),
    `，${dist.draft}），它开始之后你换了前缀或草稿；上面的叠放图已是新的选择。`));
  area.summary.dataset.stale = "true";
}

/** Run n rounds in the worker, showing progress; done(result, wallMs) on success. */
export async function execute(widget, area, { dist, scheme, n, seed, chunk }, done) {
  const trigger = document.activeElement;
  widget.setRunning(true);
  Object.assign(area.progress, { hidden: false, max: n, value: 0 });
  area.cancel.hidden = false;
  area.progressText.textContent = widget.python.state === "ready" ? `开始：${num(n)} 轮` : "等待 Python 抽样器载入……";
  fill(area.summary);
  delete area.summary.dataset.tv;
  area.summary.dataset.state = "running";
  area.node.dataset.progress = "0";
  const started = performance.now();
  const task = (area.task = widget.python.task());
  try {
    const result = await widget.python.run({ key: dist.key, p: dist.pJSON, q: dist.qJSON, scheme, seed, n, chunk }, (m) => {
      area.node.dataset.progress = String(Number(area.node.dataset.progress) + 1);
      area.progress.value = m.done;
      area.progressText.textContent = `已跑 ${num(m.done)} / ${num(n)} 轮`;
    }, task);
    area.progressText.textContent = `完成：${num(n)} 轮`;
    done(result, performance.now() - started);
  } catch (err) {
    area.progressText.textContent = err.cancelled ? cancelledNote(widget.python) : `运行失败：${err.message}`;
    area.summary.dataset.state = err.cancelled ? "cancelled" : "failed";
  } finally {
    // the cancel button hides: a keyboard focus on it goes back to the control that started the run
    if (area.task === task) area.task = null;
    const onCancel = document.activeElement === area.cancel;
    area.progress.hidden = true;
    area.cancel.hidden = true;
    widget.setRunning(false);
    if (onCancel && trigger instanceof HTMLElement && trigger.isConnected) trigger.focus();
  }
}

/** The lesson's one rule for noise or bias (widgets/thresholds.json clear_of_noise, `limit`): a TV more than `limit`
 *  times the noise floor is bias, one below it cannot be told from noise. {bias, head}: the verdict and the clause
 *  that says it (E2's feedback, the pair's verdict). */
export function noiseOrBias(tv, floor, limit) {
  const ratio = tv / floor;
  const bias = ratio > limit;
  return { bias, head: `TV 是噪声基准的 ${fixed(ratio, 2)} 倍，${bias ? "超过" : "不到"} ${fixed(limit, 0)} 倍` };
}

/** The prediction's feedback by that rule; the scheme only adds why. */
function feedback(result, dist, floor, labels, limit) {
  const { bias, head } = noiseOrBias(result.tv, floor, limit);
  const wrong = result.scheme === "resample_p";
  let mark, text;
  if (wrong) {
    const { token } = dist.deficit;
    const share = result.counts[token] / result.n;
    const example = ["例如 ", tok(labels, token), `：p 给它 ${prob(dist.p[token])}，草稿只给 ${prob(dist.q[token])}，` +
      `这次输出只有 ${prob(share)}。答案应当是残差。`];
    mark = bias ? "✗ 偏了。" : "✗ 还看不出，但偏了。";
    text = [bias ? `${head}：是偏差，输出不是 p。共有的那部分被算了两次，目标喜欢而草稿很少提的 token 出得太少——` :
      `${head}：这么多次还分不出偏差，可闭式算出的偏差是 ${fixed(dist.closedTV, 4)}，抽得再多它也不会退去。` +
      "看差得最多的 token——", ...example];
  } else {
    mark = bias ? "？ 少见。" : "✓ 对了。";
    text = [bias ? `${head}：这样的种子很少见，换一个再跑。` : `${head}：和直接从 p 抽分不开，差别只是抽样噪声，输出就是 p。`];
  }
  return el("p", { class: `c13-feedback ${wrong ? "c13-bad" : bias ? "" : "c13-good"}`.trim() },
    el("strong", { text: mark }), ...text);
}

/** What a finished run shows. options: {schemeNames, noise(dist, n), labels, withFeedback, columns, limit}. */
export function showRun(area, result, dist, wallMs, options) {
  const floor = options.noise(dist, result.n);
  const list = el("dl", { class: "c13-dl" });
  const row = (term, value) => list.append(el("dt", { text: term }), el("dd", null, value));
  row("抽法", options.schemeNames[result.scheme]);
  row("种子、次数", el("span", null, `种子 ${result.seed}，${num(result.n)} 轮（前缀 `, promptBox(dist.prefix),
    `，${dist.draft}）`));
  row("输出与 p 的 TV 距离", el("strong", { text: fixed(result.tv, 4) }));
  row("噪声基准", `直接从 p 抽 ${num(result.n)} 次，TV 的期望 ≈ ${fixed(floor, 4)}`);
  if (result.scheme === "naive") row("猜中率", `${pct(result.acceptance_rate, 2)}（Σ p·q = ${pct(dist.sumPQ, 2)}）`);
  else row("接受率", `${pct(result.acceptance_rate, 1)}（α = ${pct(dist.alpha, 1)}）`);
  row("用时", `${Math.round(result.ms)} ms（Python 内），从点击到结果 ${Math.round(wallMs)} ms`);
  const reference = dist.offline[result.scheme];
  // the largest of the live sizes (c13.json → constants.e2_live_sizes) prints the offline reference beside its figure
  if (result.n >= options.largeRun && reference && (result.scheme === "correct" || result.scheme === "resample_p")) {
    row("离线参考", `${num(reference.n)} 次（种子 ${reference.seed}）：TV = ${fixed(reference.tv, 4)}；` +
      `噪声基准 ≈ ${fixed(options.noise(dist, reference.n), 4)}。` +
      (result.seed === reference.seed && result.n === reference.n ? "" : "种子和次数都与这次不同，两个 TV 只应同一量级；" +
        "要逐位相同，用下面的“按离线检验重跑”。"));
  }
  if (result.scheme === "resample_p") row("闭式偏差", `½·Σ|min(p, q) − α·p| = ${fixed(dist.closedTV, 4)}（无穷多次时的 TV）`);
  fill(area.summary, list, options.withFeedback ? feedback(result, dist, floor, options.labels, options.limit) : null);
  Object.assign(area.summary.dataset, { state: "done", tv: String(result.tv), n: String(result.n), seed: String(result.seed),
    scheme: result.scheme, noise: String(floor), acceptance: String(result.acceptance_rate), ms: String(result.ms) });
  drawHistogram(area.figure, { dist, labels: options.labels, n: options.columns, counts: result.counts, total: result.n,
    title: `${num(result.n)} 轮的输出直方图（${options.schemeNames[result.scheme]}）与目标分布 p` });
}

/** A TV as a reader reads it (4 decimals), with the exact double on demand. */
export function tvFigure(value) {
  const raw = el("code", { class: "c13-raw", text: String(value), hidden: true, id: uid("e2-raw") });
  const toggle = el("button", { type: "button", class: "c13-raw-toggle", "aria-expanded": "false", "aria-controls": raw.id,
    text: "完整数字" });
  toggle.addEventListener("click", () => {
    raw.hidden = !raw.hidden;
    toggle.setAttribute("aria-expanded", raw.hidden ? "false" : "true");
  });
  return el("span", { class: "c13-tv", title: String(value) }, el("strong", { text: fixed(value, 4) }), " ", toggle, " ", raw);
}

/** The browser's run with the offline seed and size beside the offline figure: equal to the last bit, or not. */
export function showReproduction(area, result, reference, wallMs, scheme) {
  const same = result.tv === reference.tv && result.n === reference.n && result.seed === reference.seed;
  const list = el("dl", { class: "c13-dl" },
    el("dt", { text: "浏览器里的 TV" }), el("dd", null, tvFigure(result.tv)),
    el("dt", { text: "离线的 TV（c13.json）" }), el("dd", null, tvFigure(reference.tv)),
    el("dt", { text: "种子、次数" }), el("dd", { text: `种子 ${result.seed}，${num(result.n)} 轮，用时 ${Math.round(result.ms)} ms` +
      `（从点击起 ${Math.round(wallMs)} ms）` }));
  fill(area.summary, list, el("p", { class: `c13-feedback ${same ? "c13-good" : "c13-bad"}` },
    el("strong", { text: same ? "✓ 逐位相同。" : "✗ 不相同。" }),
    same ? "同一个文件、同一个伪随机数生成器、同一个种子，给出同一个数（展开“完整数字”可以逐位对照）。"
      : "这不该发生：浏览器和离线用的不是同一个抽样器或同一份数据。"));
  Object.assign(area.summary.dataset, { state: "done", tv: String(result.tv), offlineTv: String(reference.tv),
    equal: same ? "true" : "false", seed: String(result.seed), n: String(result.n), scheme });
  fill(area.figure);
}
