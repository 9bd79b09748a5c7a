// The reader's own measurements after an E6 run: c, v(k), α and tokens per target forward; the time split into
// target forwards, draft forwards and acceptance (Python); the measured speedups beside the predictions from the
// reader's c and v(k) (E[N] ÷ (k·c + v(k)), widgets/figures/speedup.mjs) and from the lesson's v = 1.
import { el, fill, fixed, ms, num, pct, times } from "../c13-util.js";
import { measuredSpeedup } from "../figures/speedup.mjs";

function table(caption, head, rows, cls) {
  // no class on the table itself: the theme styles plain tables (.md-typeset table:not([class])); the box scrolls
  // a table too wide for a phone, so the keyboard reaches it (tabindex) and it has a name
  return el("div", { class: `c13-scroll c13-e6-table ${cls}`, tabindex: 0, role: "region", "aria-label": caption },
    el("table", null,
    el("caption", { text: caption }),
    el("thead", null, el("tr", null, head.map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", null, rows.map(([name, ...cells]) => el("tr", { "data-row": name[0] },
      el("th", { scope: "row", text: name[1] }), cells.map((c) => el("td", { text: c })))))));
}

const msOr = (v) => (typeof v === "number" && Number.isFinite(v) ? ms(v) : "—");

/** The predictions the page computes from the reader's own figures (never part of the worker's result). */
export function predictions(m, k) {
  return { own: measuredSpeedup(m.alpha, m.c, k, m.v), lesson: measuredSpeedup(m.alpha, m.c, k, 1) };
}

export function showReport(box, result, { target, vocab }) {
  const m = result.measured;
  const t = result.target;
  const s = result.speculative;
  const k = result.k;
  const p = predictions(m, k);
  const generated = s.generated ?? s.tokens.length; // the last round may write past nNew: all count per forward
  const costs = table("你的机器上的代价与产出", ["量", "实测"], [
    [["target-ms", `目标一次前向（${target}，一个位置）`], ms(m.targetMs)],
    [["draft-ms", `草稿一次前向（${result.draft}）`], ms(m.draftMs)],
    [["c", "c = 草稿一次前向 ÷ 目标一次前向"], fixed(m.c, 3)],
    [["verify-ms", `目标一次验 k + 1 = ${k + 1} 个位置`], msOr(m.verifyMs)],
    [["v", `v(${k}) = 验 ${k + 1} 个位置 ÷ 一次前向`], fixed(m.v, 2)],
    [["alpha", "α = 接受的草稿 token ÷ 检验的草稿 token"], `${pct(m.alpha)}（${num(m.accepted)} / ${num(m.tested)}）`],
    [["per-forward", "每次目标前向产出的 token"],
      `${fixed(m.tokensPerTargetForward, 2)}（${num(generated)} ÷ ${num(s.targetForwards)}）`],
  ], "c13-e6-costs");
  const split = table("时间花在哪（毫秒，整段运行合计）", ["部分", "目标单独写", "投机解码"], [
    [["target", "目标前向"], msOr(t.ms.target), msOr(s.ms.target)],
    [["draft", "草稿前向"], "—", msOr(s.ms.draft)],
    [["sampler", "接受判定与抽样（Python，sampler.py）"], msOr(t.ms.sampler), msOr(s.ms.sampler)],
    [["total", "端到端合计"], msOr(t.ms.total), msOr(s.ms.total)],
    [["forwards", "目标前向次数"], num(t.forwards), num(s.targetForwards)],
  ], "c13-e6-split");
  const speed = table("加速：目标单独写的时间 ÷ 投机解码的时间", ["比较", "加速"], [
    [["model", "实测，只算模型时间（目标 + 草稿前向）"], times(m.speedupModel)],
    [["end-to-end", "实测，端到端（含 Python 判定）"], times(m.speedupEndToEnd)],
    [["own", "预测：你的 c 与 v(k)，E[N] ÷ (k·c + v(k))"], times(p.own)],
    [["lesson", "预测：正文的公式（v = 1）"], times(p.lesson)],
  ], "c13-e6-speed");
  const why = el("p", { class: "c13-e6-why", text: whyText(m, s, k, vocab) });
  fill(box, el("h4", { text: "你的机器上的实测" }), costs, split, speed, why);
  // the figures shown, for tests: each is checked against the others and against the run
  Object.assign(box.dataset, { c: m.c, v: m.v, alpha: m.alpha, accepted: m.accepted, tested: m.tested,
    tokens: generated, targetForwards: s.targetForwards, rounds: s.rounds,
    tokensPerTargetForward: m.tokensPerTargetForward, speedupModel: m.speedupModel,
    speedupEndToEnd: m.speedupEndToEnd, predictedOwn: p.own, predictedLesson: p.lesson });
}

function whyText(m, s, k, vocab) {
  const perRound = s.rounds > 0 ? s.ms.sampler / s.rounds : 0;
  const vNote = m.v > 1.2
    ? `这里验 ${k + 1} 个位置花的时间是一次前向的 ${fixed(m.v, 2)} 倍，不是正文假设的 1 倍：` +
      "我们的目标只有几 MB 权重，装得进 CPU 缓存，一次前向的时间主要花在计算上，多算几个位置就要多花时间；" +
      "正文的 v = 1 只在读权重是瓶颈时成立（E1 里的大模型）。"
    : `这里验 ${k + 1} 个位置几乎和一次前向一样快（v = ${fixed(m.v, 2)}），接近正文的假设。`;
  return `${vNote}接受判定每轮平均花 ${ms(perRound)}：每一轮都要把 k + 1 行、每行 ${num(vocab)} 个概率从 JavaScript 交给 ` +
    "WebAssembly 里的 Python，再由 sampler.py 逐个比较——这是为了让浏览器和生成器用同一个文件做决定付出的代价。" +
    "公式只数模型的前向，所以“只算模型时间”的那一行才是和预测对应的；真正的推理服务把这一步放在 GPU 上，几乎不花时间。";
}
