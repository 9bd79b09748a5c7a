// E2's single rounds: what sampler.py drew in one round of a seeded stream (naive: x and y; the correct scheme:
// x, p(x), q(x), the acceptance probability, u, the decision, the residual draw), and the running tallies.
import { el, fill, fixed, prob, promptBox, tok, trim } from "../c13-util.js";

export function emptyTally() {
  return { naive: [0, 0], lower: [0, 0], higher: [0, 0], higherExpected: 0 };
}

function recordData(out, record, seed, index) {
  Object.assign(out.dataset, { accepted: String(record.accepted), record: JSON.stringify(record), seed: String(seed),
    index: String(index) });
}

/** One naive round into `out`; the tally line says how often a guess was kept so far. */
export function showNaiveRound(out, tallyLine, { record, dist, labels, seed, index, tally }) {
  const list = el("dl", { class: "c13-dl" });
  const row = (term, ...value) => list.append(el("dt", { text: term }), el("dd", null, ...value));
  recordData(out, record, seed, index);
  row("草稿抽到 x", tok(labels, record.x), `　q(x) = ${prob(record.q_x)}`);
  row("目标抽到 y", tok(labels, record.y), `　p(y) = ${prob(dist.p[record.y])}`);
  row("x = y？", el("strong", { text: record.accepted ? "相等：猜中，留下" : "不相等：没猜中，取 y" }));
  tally.naive[0] += record.accepted ? 1 : 0;
  tally.naive[1] += 1;
  const [kept, rounds] = tally.naive;
  tallyLine.textContent = `到目前为止：${rounds} 轮里猜中 ${kept} 轮。长期来看，猜中的比例是 Σ p·q = ${prob(dist.sumPQ)}。`;
  fill(out, roundHead(seed, index, dist), list);
}

function roundHead(seed, index, dist) {
  return el("p", { class: "c13-round-head" }, `种子 ${seed} 的第 ${index + 1} 轮（前缀 `, promptBox(dist.prefix),
    `，${dist.draft}）`);
}

/** One round of the correct scheme into `out`; the tally line compares q ≤ p and q > p rounds. */
export function showRound(out, tallyLine, { record, dist, labels, seed, index, tally }) {
  const list = el("dl", { class: "c13-dl" });
  const row = (term, ...value) => list.append(el("dt", { text: term }), el("dd", null, ...value));
  recordData(out, record, seed, index);
  const lower = record.q_x <= record.p_x;
  const accept = fixed(record.accept_prob, 4);
  row("草稿抽到 x", tok(labels, record.x));
  row("p(x)、q(x)", `p(x) = ${prob(record.p_x)}，q(x) = ${prob(record.q_x)}`);
  row("接受概率", lower ? "q(x) ≤ p(x)，所以 min(1, p/q) = 1" : `q(x) > p(x)，所以 p(x)/q(x) = ${accept}`);
  row("均匀随机数 u", fixed(record.u, 4));
  row("判定", el("strong", { text: record.accepted ? `u < ${accept}：✓ 接受，输出 x` : `u ≥ ${accept}：✗ 拒绝` }));
  if (!record.accepted) {
    row("从残差里抽到", tok(labels, record.resampled),
      `　p = ${prob(dist.p[record.resampled])}，q = ${prob(dist.q[record.resampled])}`);
  }
  const counts = lower ? tally.lower : tally.higher;
  counts[0] += record.accepted ? 1 : 0;
  counts[1] += 1;
  if (!lower) tally.higherExpected += record.accept_prob;
  const higher = tally.higher;
  tallyLine.textContent = `q ≤ p 的轮：${tally.lower[1]} 轮里接受 ${tally.lower[0]} 轮（总是接受）；` +
    `q > p 的轮：${higher[1]} 轮里接受 ${higher[0]} 轮` +
    (higher[1] ? `（按 p/q 的期望是 ${trim(tally.higherExpected, 2)} 轮）。` : "。");
  fill(out, roundHead(seed, index, dist), list);
}
