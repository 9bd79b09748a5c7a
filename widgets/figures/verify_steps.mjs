// E4 · the verify motion, one round of the recorded replay step by step: the draft proposes its k tokens one by one, the target's
// one forward lights up all k + 1 positions at once, acceptance goes left to right (u against the recorded
// min(1, p/q)) and stops at the first rejection, which is replaced from the residual (or, all accepted, the last
// position's distribution gives a bonus token). Every figure and verdict is the generator's record; nothing is
// decided here. `verifySteps` is the picture of one round at step s (1 … N): the build draws the last step,
// the verify motion (widgets/e4/motion.js) draws every step with this same function.
import { fixed, pct, prob } from "./formats.mjs";
import { attrs, escapeText, tokenSpan } from "./svg.mjs";

/** The round shown when the reader has not picked one: the first that accepts some tokens and then rejects one
 * (it shows both outcomes), else the first with a rejection, else the first. */
export function defaultRound(replay) {
  const rounds = replay.rounds;
  const both = rounds.findIndex((r) => r.kind === "resampled" && r.accepted > 0);
  if (both >= 0) return both;
  return Math.max(0, rounds.findIndex((r) => r.kind === "resampled"));
}

/** The round's steps in order, each {phase, position, text}: k draft steps, one forward, one check per tested
 * position, then the result. Positions count from 0; the text is what the step shows, in words. */
export function roundSteps(replay, labels, index) {
  const round = replay.rounds[index];
  const k = replay.k;
  const label = (id) => `「${labels[id] ?? `#${id}`}」`;
  // p and q are recorded for the positions that were checked; the rest, after a rejection, were never needed
  const steps = round.draft.map((id, i) => ({ phase: "draft", position: i,
    text: `草稿猜第 ${i + 1} 个 token：${label(id)}` + (i < round.q.length ? `，它给这个 token 的概率 q = ${prob(round.q[i])}。` : "。") }));
  steps.push({ phase: "forward", position: null,
    text: `目标只做一次前向，同时算出全部 ${k + 1} 个位置的分布：前 ${k} 个位置给出草稿 token 的 p(x)，` +
      `第 ${k + 1} 个位置的分布留着备用。` });
  round.u.forEach((u, i) => {
    const ok = i < round.accepted;
    const rest = !ok && i + 1 < k ? `后面 ${k - i - 1} 个草稿 token 不再检验。` : "";
    steps.push({ phase: "check", position: i,
      text: `检验位置 ${i + 1}：接受概率 min(1, p/q) = ${pct(round.accept_prob[i], 1)}，u = ${fixed(u, 3)}。` +
        (ok ? "u 小于接受概率：接受。" : `u 不小于接受概率：拒绝，检验到此为止。${rest}`) });
  });
  const tail = round.kind === "bonus"
    ? `${k} 个全部接受，第 ${k + 1} 个位置的分布白送一个 token：${label(round.token)}。`
    : `在位置 ${round.accepted + 1} 从残差重抽一个 token 顶替被拒的草稿：${label(round.token)}。`;
  steps.push({ phase: "result", position: round.kind === "bonus" ? k : round.accepted,
    text: `${tail}本轮产出 ${round.yield} 个 token（接受的 ${round.accepted} 个 + 1）。` });
  return steps;
}

/** How far each kind of thing is shown at step s (1 … N): drafts proposed, forward done, checks done, result. */
function progress(steps, s) {
  const done = steps.slice(0, s);
  return { drafted: done.filter((x) => x.phase === "draft").length, forward: done.some((x) => x.phase === "forward"),
    checked: done.filter((x) => x.phase === "check").length, result: done.some((x) => x.phase === "result"),
    now: steps[s - 1] };
}

/** The bar of one check: the acceptance region [0, min(1, p/q)) filled, u a mark on the same 0…1 scale. */
function checkBar(accept, u) {
  const x = fixed(accept * 100, 2);
  const ux = fixed(u * 100, 2);
  return `<svg class="c13-v-bar" viewBox="0 0 100 12" preserveAspectRatio="none" aria-hidden="true">` +
    `<rect class="c13-v-bar-bg" x="0" y="3" width="100" height="6"/><rect class="c13-v-bar-acc" x="0" y="3" ` +
    `width="${x}" height="6"/><rect class="c13-v-bar-u" x="${ux}" y="0" width="1.6" height="12"/></svg>`;
}

/** One drafted position's box at this step. */
function draftBox(round, labels, i, at) {
  const lines = [];
  const fresh = (phase) => (at.now.phase === phase && (phase === "forward" || at.now.position === i) ? " c13-v-new" : "");
  const known = i < round.q.length; // p and q are recorded for the checked positions only
  lines.push(`<span class="c13-v-line c13-v-draft${fresh("draft")}">草稿 ${tokenSpan(labels, round.draft[i])}` +
    (known ? ` <span class="c13-v-num">q = ${prob(round.q[i])}</span>` : "") + "</span>");
  if (at.forward) {
    lines.push(`<span class="c13-v-line c13-v-target${fresh("forward")}">` +
      (known ? `目标 <span class="c13-v-num">p = ${prob(round.p[i])}</span>` : "目标：已算出（未检验，没有记录）") + "</span>");
  }
  let state = "drafted";
  if (i < at.checked) {
    const ok = i < round.accepted;
    state = ok ? "accepted" : "rejected";
    lines.push(`<span class="c13-v-line c13-v-check${fresh("check")}">${checkBar(round.accept_prob[i], round.u[i])}` +
      `<span class="c13-v-nums"><span class="c13-v-num">u = ${fixed(round.u[i], 3)}</span>，` +
      `min(1, p/q) = <span class="c13-v-num">${pct(round.accept_prob[i], 1)}</span></span>` +
      `<span class="${ok ? "c13-yes" : "c13-no"}">${ok ? "✓ 接受（u &lt; 接受概率）" : "✗ 拒绝（u ≥ 接受概率）"}</span></span>`);
  } else if (at.checked > round.accepted && i > round.accepted) {
    state = "skipped";
    lines.push(`<span class="c13-v-line c13-muted">前面已拒绝，不再检验</span>`);
  }
  if (at.result && round.kind === "resampled" && i === round.accepted) {
    state = "replaced";
    lines.push(`<span class="c13-v-line c13-v-out c13-t-res${fresh("result")}">残差重抽 → ` +
      `${tokenSpan(labels, round.token)}</span>`);
  }
  return { state, lines };
}

/** The (k + 1)-th position: no draft token; the target's last row, which gives the bonus when all are accepted. */
function lastBox(round, labels, k, at) {
  const lines = [`<span class="c13-v-line c13-muted">没有草稿 token</span>`];
  if (at.forward) {
    lines.push(`<span class="c13-v-line c13-v-target${at.now.phase === "forward" ? " c13-v-new" : ""}">目标：` +
      `第 ${k + 1} 行分布</span>`);
  }
  let state = at.forward ? "waiting" : "empty";
  if (at.result && round.kind === "bonus") {
    state = "bonus";
    lines.push(`<span class="c13-v-line c13-v-out c13-t-bonus${at.now.phase === "result" ? " c13-v-new" : ""}">赠送 → ` +
      `${tokenSpan(labels, round.token)}</span>`);
  } else if (at.checked > round.accepted) {
    state = "unused";
    lines.push(`<span class="c13-v-line c13-muted">有拒绝，这一行用不上</span>`);
  }
  return { state, lines };
}

/** The picture of round `round` (0-based; default defaultRound) at step `step` (1 … N; default N, the whole round),
 * with the list of its steps up to there. args: {replay, labels, round, step, id}. */
export function verifySteps({ replay, labels, round = null, step = null, id = "e4-verify" }) {
  const index = round ?? defaultRound(replay);
  const data = replay.rounds[index];
  if (!data) throw new Error(`verifySteps: no round ${index}`);
  const k = replay.k;
  const steps = roundSteps(replay, labels, index);
  const s = Math.max(1, Math.min(steps.length, step ?? steps.length));
  const at = progress(steps, s);
  const boxes = [];
  for (let i = 0; i <= k; i++) {
    const box = i < k ? (i < at.drafted ? draftBox(data, labels, i, at) : { state: "empty",
      lines: ['<span class="c13-v-line c13-muted">（草稿还没猜到这里）</span>'] }) : lastBox(data, labels, k, at);
    const lit = at.forward ? " c13-v-lit" : "";
    const current = at.now.position === i && at.now.phase !== "forward" ? " c13-v-current" : "";
    boxes.push(`<li${attrs({ class: `c13-v-pos${lit}${current}`, "data-pos": i, "data-state": box.state })}>` +
      `<span class="c13-v-head">位置 ${i + 1}</span>${box.lines.join("")}</li>`);
  }
  const list = steps.map((x, j) => `<li${attrs({ "data-step": j + 1, "data-phase": x.phase,
    class: j + 1 === s ? "c13-v-now" : null, hidden: j + 1 > s ? "" : null })}>${escapeText(x.text)}</li>`);
  return `<div${attrs({ class: "c13-verify", id, "data-round": index, "data-step": s, "data-steps": steps.length })}>` +
    `<p class="c13-v-caption">第 ${index + 1} 轮（共 ${replay.rounds.length} 轮）：${k + 1} 个位置，第 ${s} / ${steps.length} 步</p>` +
    `<ol class="c13-v-positions">${boxes.join("")}</ol>` +
    `<ol class="c13-v-steps">${list.join("")}</ol></div>`;
}

/** This module's figures by the name generator/pages/figure_table.py and the tests draw them by. */
export const FIGURES = { verify_steps: verifySteps };
