// E4 · replay of a real run recorded by the generator (the target, the replay's draft, k, T and prompt from the
// data): step round by round with buttons, the arrow keys, or "play"; each round's drafted tokens with p, q, the
// acceptance probability, the uniform number used and the decision; the residual or bonus token; running
// totals; and the text so far. The text is drawn once by widgets/figures/replay.mjs (the build-time version's
// function); stepping shows its rounds up to the current one ([data-round]) and marks the current one.
import { el, fill, fixed, fromMarkup, mount, pct, prob, promptBox, staticChildren, stash, tok, uid } from "../c13-util.js";
import { mountVerifyMotion } from "./motion.js";
import { BYTES_NOTE, isByteLabel, plainText, replayText } from "../figures/replay.mjs";

const PLAY_INTERVAL_MS = 1100;
// what the keys do, written once: the hint under the buttons says it and the group is described by that hint
const KEYS = "键盘：焦点在这组按钮上时，← → 换一轮，Home / End 到开头或最后，P 播放或暂停（焦点在按钮组本身时，空格也播放或暂停）。";

/** A token in its box; a byte token (‹E6 A2›) carries the explanation of bytes as its tooltip. */
function token(labels, id) {
  const span = tok(labels, id);
  if (isByteLabel(labels[id])) {
    span.classList.add("c13-bytes");
    span.title = BYTES_NOTE;
  }
  return span;
}

function controlBar(gid, actions) {
  const button = (text, onclick) => el("button", { type: "button", class: "md-button c13-small", text, onclick });
  const buttons = {
    first: button("从头", actions.first), prev: button("◀ 上一轮", actions.prev), play: button("▶ 播放", actions.toggle),
    next: button("下一轮 ▶", actions.next), last: button("到最后", actions.last),
  };
  const bar = el("div", { class: "c13-buttons c13-e4-bar", role: "group", tabindex: 0, id: `${gid}-bar`,
    "aria-label": "回放控制", "aria-describedby": `${gid}-keys` }, Object.values(buttons));
  return { bar, buttons };
}

function roundTable(labels, round, step, k) {
  const tested = round.u.length;
  const body = el("tbody");
  for (let i = 0; i < k; i++) {
    const cells = [el("td", { text: String(i + 1) }), el("td", null, token(labels, round.draft[i]))];
    if (i < tested) {
      const ok = i < round.accepted;
      cells.push(el("td", { text: prob(round.p[i]) }), el("td", { text: prob(round.q[i]) }),
        el("td", { text: pct(round.accept_prob[i]) }), el("td", { text: fixed(round.u[i], 3) }),
        el("td", null, el("span", { class: ok ? "c13-yes" : "c13-no", text: ok ? "✓ 接受（u < 接受概率）" : "✗ 拒绝（u ≥ 接受概率）" })));
    } else {
      cells.push(el("td", { colspan: 5, class: "c13-muted", text: "前面已拒绝，不再检验" }));
    }
    body.append(el("tr", null, cells));
  }
  return el("table", { class: "c13-mini c13-replay" },
    el("caption", { text: `第 ${step} 轮：草稿猜的 ${k} 个 token` }),
    el("thead", null, el("tr", null, ["位置", "草稿 token", "p(x)", "q(x)", "接受概率", "u", "判定"]
      .map((h) => el("th", { scope: "col", text: h })))),
    body);
}

/** Show the rounds of the drawn text before `step`, the last of them marked; the plain reading up to there. */
function showTextUpTo(textBox, replay, labels, step) {
  for (const node of textBox.querySelectorAll("[data-round]")) {
    const round = Number(node.dataset.round);
    node.hidden = round >= step;
    if (node.classList.contains("c13-round-tokens")) node.classList.toggle("c13-round-now", round === step - 1);
  }
  const plain = textBox.querySelector(".c13-plain");
  if (plain) plain.textContent = plainText(replay, labels, step);
}

function legend() {
  return el("p", { class: "c13-legend" },
    el("span", { class: "c13-t-acc" }, "接受的草稿 token（实线下划线）"), "　",
    el("span", { class: "c13-t-res" }, "残差重抽（点线底纹）"), "　",
    el("span", { class: "c13-t-bonus" }, "赠送（双线底纹）"), "　｜ 分隔各轮，方框标出当前一轮",
    el("span", { class: "c13-bytes-note" }, "形如 ‹E6 A2› 的是 UTF-8 字节：几个字节合起来才是一个完整的字符（连起来读时已拼好）"));
}

/** The line above the buttons: the run replayed (target, draft, k, T, prompt, seed) and how many rounds it took. */
function runInfo(data) {
  const replay = data.replay;
  return el("p", { class: "c13-hint" }, `目标 ${data.target}，草稿 ${replay.draft}，k = ${replay.k}，` +
    `温度 T = ${replay.temperature}，提示 `, promptBox(replay.prompt), `，种子 ${replay.seed}。共 ${replay.rounds.length} 轮。`);
}

/** Play and pause: {stop, toggle}; playing steps one round every PLAY_INTERVAL_MS (from the start if at the end). */
function player(state, play, go, total) {
  function stop() {
    if (state.timer) clearInterval(state.timer);
    state.timer = null;
    play.textContent = "▶ 播放";
  }
  function toggle() {
    if (state.timer) { stop(); return; }
    if (state.step >= total) go(0);
    play.textContent = "❚❚ 暂停";
    state.timer = setInterval(() => {
      if (state.step < total) go(state.step + 1);
      if (state.step >= total) stop();
    }, PLAY_INTERVAL_MS);
  }
  return { stop, toggle };
}

/** The keys on the button group (KEYS): arrows step, Home / End jump (each stops playing), P or space plays. */
function bindKeys(bar, state, total, go, playback) {
  bar.addEventListener("keydown", (event) => {
    const moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    if (event.key in moves || event.key === "Home" || event.key === "End") {
      event.preventDefault();
      playback.stop();
      go(event.key === "Home" ? 0 : event.key === "End" ? total : state.step + moves[event.key]);
    } else if (event.key === "p" || event.key === "P" || (event.key === " " && event.target === bar)) {
      event.preventDefault();
      playback.toggle();
    }
  });
}

/** The running totals after `step` rounds that yielded `tokens`: tokens per target forward (plain decoding: 1).
 * Before the first round, which round the verify motion below shows meanwhile (`example`, from 1; none: no motion). */
function totalsText(step, total, tokens, example) {
  return step === 0 ? `第 0 / ${total} 轮：还没有开始。按“下一轮”。` +
      (example ? `下面的慢动作先放第 ${example} 轮。` : "")
    : `第 ${step} / ${total} 轮 · 已产出 ${tokens} 个 token · 目标前向 ${step} 次 · ` +
      `每次目标前向 ${(tokens / step).toFixed(2)} 个 token（普通解码永远是 1）`;
}

/** The buttons that cannot act at this step, marked aria-disabled. */
function markEnds(buttons, step, total) {
  // aria-disabled, not disabled: a button that cannot act now keeps the keyboard focus (a disabled one would drop
  // it to <body>); pressing it does nothing, as go() clamps the step
  const ends = [["first", step === 0], ["prev", step === 0], ["next", step >= total], ["last", step >= total]];
  for (const [name, off] of ends) {
    buttons[name].setAttribute("aria-disabled", off ? "true" : "false");
  }
}

/** The round just played: its table and what it yielded; before the first round, what a round is. */
function showRound(outcome, roundBox, labels, rounds, step, k) {
  if (step === 0) {
    fill(outcome, "每一轮：草稿连猜 k 个 token，目标用一次前向把它们全部检查完。");
    fill(roundBox);
    return;
  }
  const round = rounds[step - 1];
  fill(roundBox, roundTable(labels, round, step, k));
  const kind = round.kind === "bonus" ? `${k} 个全部接受，目标那次前向的最后一行分布白送一个 token：`
    : `在第 ${round.accepted + 1} 个位置被拒，从残差里重抽一个 token：`;
  fill(outcome, `接受 ${round.accepted} 个。`, kind, token(labels, round.token),
    `。本轮产出 ${round.yield} 个 token（= 接受的个数 + 1）。`);
}

export function render(section, data) {
  const replay = data.replay;
  const labels = data.labels;
  const { rounds, k } = replay;
  const total = rounds.length;
  const state = { step: 0, timer: null };
  const gid = uid("e4");

  const live = mount(section, "c13-e4");
  const motionBlock = section.querySelector(":scope > .c13-verify-block"); // stays: the verify motion (motion.js)
  stash(section, staticChildren(section).filter((c) => c !== motionBlock), "静态版本：整次运行的文字与全部轮次的表");
  const go = (step) => { state.step = Math.max(0, Math.min(total, step)); draw(); };
  const { bar, buttons } = controlBar(gid, { first: () => go(0), prev: () => go(state.step - 1),
    toggle: () => playback.toggle(), next: () => go(state.step + 1), last: () => go(total) });
  const playback = player(state, buttons.play, go, total);
  const info = runInfo(data);
  const keys = el("p", { class: "c13-hint", id: `${gid}-keys`, text: KEYS });
  const totals = el("p", { class: "c13-totals", role: "status" });
  const textBox = fromMarkup(replayText({ replay, labels }));
  const roundBox = el("div", { class: "c13-scroll" });
  const outcome = el("p", { class: "c13-outcome" });
  live.append(info, bar, keys, totals, legend(), textBox, el("h4", { text: "这一轮" }), outcome, roundBox);
  bindKeys(bar, state, total, go, playback);
  // the verify motion below follows this replay's round (before the first round: the round it was built on)
  const motion = motionBlock ? mountVerifyMotion(motionBlock, data) : null;
  const builtRound = motionBlock ? Number(motionBlock.querySelector(".c13-verify")?.dataset.round ?? 0) : 0;
  const example = motionBlock ? builtRound + 1 : null; // the round the motion shows before the first (from 1)

  function draw() {
    const step = state.step;
    const tokens = rounds.slice(0, step).reduce((sum, r) => sum + r.yield, 0);
    totals.textContent = totalsText(step, total, tokens, example);
    section.dataset.step = String(step);
    section.dataset.tokens = String(tokens);
    showTextUpTo(textBox, replay, labels, step);
    markEnds(buttons, step, total);
    showRound(outcome, roundBox, labels, rounds, step, k);
    motion?.showRound(step > 0 ? step - 1 : builtRound);
  }

  draw();
  section.classList.add("c13-is-live");
}
