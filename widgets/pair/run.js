// The run on the reader's pair (its size: run_size of the pair's data, generator/pages/pair_presets.py RUN_SIZE): sampler.run_chunks in Pyodide (python.run with the pair, as E2's runs), its
// progress and cancel (E2's run area, widgets/e2/runs.js), then the output's TV to p beside the noise floor of
// direct sampling, and the histogram over p drawn by widgets/figures/stacked.mjs.
import { el, expectedNoiseTV, fill, fixed, fromMarkup, num, pct, seedField, uid } from "../c13-util.js";
import { outputHistogram } from "../figures/stacked.mjs";
import { clearArea, execute, noiseOrBias, runArea } from "../e2/runs.js";

const SCHEMES = [
  ["correct", "被拒从残差抽（改进方案）"],
  ["resample_p", "被拒从 p 重抽（错误的变体）"],
  ["direct", "直接从 p 抽（噪声基准）"],
];

/** What the run says, by the lesson's one rule (noiseOrBias, widgets/e2/runs.js). */
function verdict(result, stats, floor, limit) {
  if (!(floor > 0)) {
    // p on one token: direct sampling gives that token every time, so the noise floor is 0 and no ratio exists
    const one = "p 只有一个 token：直接从 p 抽每次都得到它，噪声基准是 0。";
    return one + (result.tv === 0 ? "这次的输出也每次都是它（TV = 0）：输出就是 p。"
      : `这次的 TV 是 ${fixed(result.tv, 4)}，不是 0：输出不是 p。`);
  }
  const { bias, head } = noiseOrBias(result.tv, floor, limit);
  if (result.scheme !== "resample_p") {
    return head + (bias ? "：这样的种子很少见，换一个再跑。" : "：和直接从 p 抽分不开，差别只是抽样噪声，输出就是 p。");
  }
  return head + (bias ? "：是偏差，输出不是 p。" : "：这么多次还分不出偏差和噪声。") +
    `抽样无穷多次时，它停在闭式 TV ${fixed(stats.tv, 4)}，不会随次数变小。`;
}

/** The run's summary and histogram for the pair it ran on. */
function showResult(area, result, job, labels, limit) {
  const floor = expectedNoiseTV(job.p, result.n);
  const list = el("dl", { class: "c13-dl" });
  const row = (term, value) => list.append(el("dt", { text: term }), el("dd", null, value));
  row("抽法、种子", `${Object.fromEntries(SCHEMES)[result.scheme]}，种子 ${result.seed}，${num(result.n)} 轮`);
  row("输出与 p 的 TV 距离", el("strong", { text: fixed(result.tv, 4) }));
  row("噪声基准", `直接从 p 抽 ${num(result.n)} 次，TV 的期望 ≈ ${fixed(floor, 4)}`);
  if (result.scheme !== "direct") row("接受率", `${pct(result.acceptance_rate, 1)}（α = ${pct(result.alpha, 1)}）`);
  // the closed-form TV: a preset's from the build, any pair's (an edited one too) from this run's sampler.py
  const tv = Number.isFinite(job.tv) ? job.tv : result.tv_resample_p;
  fill(area.summary, list, el("p", { class: "c13-hint", text: verdict(result, { tv }, floor, limit) }));
  Object.assign(area.summary.dataset, { state: "done", tv: String(result.tv), n: String(result.n),
    seed: String(result.seed), scheme: result.scheme, noise: String(floor), counts: JSON.stringify(result.counts) });
  fill(area.figure, fromMarkup(outputHistogram({ columns: job.columns, labels, n: labels.length, counts: result.counts,
    total: result.n, id: uid("pair-hist"), title: `${num(result.n)} 轮的输出直方图与目标分布 p（${job.name}）` })),
  el("figcaption", { text: "实心柱 = 这次运行里各 token 的输出比例；虚线框 = p。柱子落在框上，输出就是 p。" }));
}

/** The run controls. current() gives the pair now shown: {key, p, q, pJSON, qJSON, columns, name, tv}; limit: the
 *  noise-or-bias rule's threshold (verdict). */
export function pairRun(python, labels, runSize, current, limit) {
  const group = uid("pair");
  const select = el("select", { id: `${group}-scheme`, class: "c13-pair-scheme" },
    SCHEMES.map(([value, text]) => el("option", { value, text })));
  const seed = seedField(group);
  const area = runArea("pair", python);
  const widget = {
    python, runButtons: [],
    setRunning(on) {
      for (const b of widget.runButtons) b.setAttribute("aria-disabled", on ? "true" : "false");
      area.node.closest("section")?.setAttribute("data-running", on ? "true" : "false");
    },
  };
  const button = el("button", { type: "button", class: "md-button c13-pair-run", text: `跑 ${num(runSize)} 轮` });
  widget.runButtons.push(button);
  button.addEventListener("click", async () => {
    if (button.getAttribute("aria-disabled") === "true") return;
    const job = current();
    const dist = { key: job.key, pJSON: job.pJSON, qJSON: job.qJSON };
    await execute(widget, area, { dist, scheme: select.value, n: runSize, seed: seed.seed(), chunk: 2_000 },
      (result) => {
        showResult(area, result, job, labels, limit);
        if (current().key !== job.key) {
          area.summary.prepend(el("p", { class: "c13-stale", text: "这次运行属于改动之前的那一对分布：它开始之后你又改了柱子。" }));
          area.summary.dataset.stale = "true";
        }
      });
  });
  widget.setRunning(false);
  const node = el("div", { class: "c13-pair-runbox" },
    el("div", { class: "c13-seed-row" }, el("label", { for: select.id, text: "抽法 " }), select, button),
    seed.node, area.node);
  return { node, area, clear: () => clearArea(area) };
}
