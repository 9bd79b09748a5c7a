// E4 · replay of a real run recorded by the generator (target ref_baseline, draft c1_dim64, k = 4, T = 1):
// step round by round with buttons, the arrow keys, or "play"; each round's drafted tokens with p, q, the
// acceptance probability, the uniform number used and the decision; the residual or bonus token; running
// totals; and the text so far with accepted, resampled and bonus tokens marked by different line styles.
import { el, fill, fixed, mount, pct, prob, staticChildren, stash, tok, uid } from "./c13-util.js";

const VISIBLE = { "⏎": "\n", "␠": " ", "⇥": "\t", "␍": "\r" };
const SHOWN = { "\n": "⏎", "\t": "⇥", "\r": "␍" };

/** A display label back to its bytes (‹E6 98› → those bytes, ‹U+0008› → that character, ⏎ → newline). */
function labelBytes(label) {
  const out = [];
  const enc = new TextEncoder();
  for (const part of label.split(/(‹[^›]*›)/)) {
    if (!part) continue;
    if (part.startsWith("‹") && part.endsWith("›")) {
      const inner = part.slice(1, -1);
      if (inner.startsWith("U+")) out.push(...enc.encode(String.fromCodePoint(parseInt(inner.slice(2), 16))));
      else out.push(...inner.split(/\s+/).filter(Boolean).map((h) => parseInt(h, 16)));
    } else {
      out.push(...enc.encode([...part].map((c) => VISIBLE[c] ?? c).join("")));
    }
  }
  return out;
}

/** Bytes as text; bytes that make no whole UTF-8 character stay visible as ‹hex›, never as U+FFFD. */
function readable(bytes) {
  const dec = new TextDecoder("utf-8", { fatal: true });
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    let ok = false;
    for (let w = 1; w <= 4 && i + w <= bytes.length; w++) {
      try {
        out += dec.decode(new Uint8Array(bytes.slice(i, i + w)));
        i += w;
        ok = true;
        break;
      } catch {
        // not a whole character yet: try a longer slice
      }
    }
    if (!ok) {
      out += `‹${bytes[i].toString(16).toUpperCase().padStart(2, "0")}›`;
      i += 1;
    }
  }
  return [...out].map((c) => SHOWN[c] ?? (/\p{Cc}/u.test(c) ? `‹U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}›` : c)).join("");
}

export function render(section, data) {
  const rep = data.replay;
  const labels = data.labels;
  const rounds = rep.rounds;
  const k = rep.k;
  const R = rounds.length;
  const state = { step: 0, timer: null };
  const gid = uid("e4");

  const live = mount(section, "c13-e4");
  stash(section, staticChildren(section), "静态版本：整次运行的文字与全部轮次的表");

  const info = el("p", { class: "c13-hint", text: `目标 ${data.target}，草稿 ${rep.draft}，k = ${k}，温度 T = ${rep.temperature}，` +
    `提示「${rep.prompt}」，种子 ${rep.seed}。共 ${R} 轮。` });
  const btn = (text, onclick) => el("button", { type: "button", class: "md-button c13-small", text, onclick });
  const first = btn("从头", () => go(0));
  const prev = btn("◀ 上一轮", () => go(state.step - 1));
  const play = btn("▶ 播放", () => toggle());
  const next = btn("下一轮 ▶", () => go(state.step + 1));
  const last = btn("到最后", () => go(R));
  const bar = el("div", { class: "c13-buttons c13-e4-bar", role: "group", tabindex: 0, id: `${gid}-bar`,
    "aria-label": "回放控制：方向键 ← → 换一轮，Home / End 到开头或最后，空格播放或暂停",
    "aria-describedby": `${gid}-keys` }, first, prev, play, next, last);
  const keys = el("p", { class: "c13-hint", id: `${gid}-keys`, text: "键盘：焦点在这组按钮上时，← → 换一轮，Home / End 到开头或最后，P 播放或暂停。" });
  const totals = el("p", { class: "c13-totals", role: "status" });
  const legend = el("p", { class: "c13-legend" },
    el("span", { class: "c13-t-acc" }, "接受的草稿 token（实线下划线）"), "　",
    el("span", { class: "c13-t-res" }, "残差重抽（点线底纹）"), "　",
    el("span", { class: "c13-t-bonus" }, "赠送（双线底纹）"), "　｜ 分隔各轮，方框标出当前一轮");
  const text = el("p", { class: "c13-replay-text" });
  const plain = el("p", { class: "c13-replay-plain" });
  const roundBox = el("div", { class: "c13-scroll" });
  const outcome = el("p", { class: "c13-outcome" });
  live.append(info, bar, keys, totals, legend, text, plain, el("h4", { text: "这一轮" }), outcome, roundBox);

  bar.addEventListener("keydown", (event) => {
    const map = { ArrowRight: state.step + 1, ArrowDown: state.step + 1, ArrowLeft: state.step - 1, ArrowUp: state.step - 1,
      Home: 0, End: R };
    if (event.key in map) {
      event.preventDefault();
      stop();
      go(map[event.key]);
    } else if (event.key === "p" || event.key === "P" || (event.key === " " && event.target === bar)) {
      event.preventDefault();
      toggle();
    }
  });

  function stop() {
    if (state.timer) clearInterval(state.timer);
    state.timer = null;
    play.textContent = "▶ 播放";
  }
  function toggle() {
    if (state.timer) { stop(); return; }
    if (state.step >= R) go(0);
    play.textContent = "❚❚ 暂停";
    state.timer = setInterval(() => {
      if (state.step >= R) { stop(); return; }
      go(state.step + 1);
      if (state.step >= R) stop();
    }, 1100);
  }

  function go(step) {
    state.step = Math.max(0, Math.min(R, step));
    draw();
  }

  function draw() {
    const s = state.step;
    let tokens = 0;
    for (let i = 0; i < s; i++) tokens += rounds[i].yield;
    totals.textContent = s === 0 ? `第 0 / ${R} 轮：还没有开始。按“下一轮”。`
      : `第 ${s} / ${R} 轮 · 已产出 ${tokens} 个 token · 目标前向 ${s} 次 · 每次目标前向 ${(tokens / s).toFixed(2)} 个 token（普通解码永远是 1）`;
    section.dataset.step = String(s);
    section.dataset.tokens = String(tokens);

    // the text so far
    const parts = [el("span", { class: "c13-prompt" }, rep.prompt_tokens.map((t) => tok(labels, t)))];
    const ids = [...rep.prompt_tokens];
    for (let i = 0; i < s; i++) {
      const rd = rounds[i];
      const group = el("span", { class: i === s - 1 ? "c13-round-now" : "c13-round-old" });
      for (const t of rd.draft.slice(0, rd.accepted)) { group.append(el("span", { class: "c13-t-acc" }, tok(labels, t))); ids.push(t); }
      group.append(el("span", { class: rd.kind === "bonus" ? "c13-t-bonus" : "c13-t-res" }, tok(labels, rd.token)));
      ids.push(rd.token);
      parts.push(group, el("span", { class: "c13-round-sep", "aria-hidden": "true", text: "|" }));
    }
    fill(text, parts);
    fill(plain, "连起来读：", el("span", { class: "c13-plain", text: readable(ids.flatMap((t) => labelBytes(labels[t]))) }));

    // the current round
    if (s === 0) {
      fill(outcome, "每一轮：草稿连猜 k 个 token，目标用一次前向把它们全部检查完。");
      fill(roundBox);
      prev.disabled = first.disabled = true;
      next.disabled = last.disabled = false;
      return;
    }
    prev.disabled = first.disabled = false;
    next.disabled = last.disabled = s >= R;
    const rd = rounds[s - 1];
    const tested = rd.u.length;
    const body = el("tbody");
    for (let i = 0; i < k; i++) {
      const cells = [el("td", { text: String(i + 1) }), el("td", null, tok(labels, rd.draft[i]))];
      if (i < tested) {
        const ok = i < rd.accepted;
        cells.push(el("td", { text: prob(rd.p[i]) }), el("td", { text: prob(rd.q[i]) }), el("td", { text: pct(rd.accept_prob[i]) }),
          el("td", { text: fixed(rd.u[i], 3) }),
          el("td", null, el("span", { class: ok ? "c13-yes" : "c13-no", text: ok ? "✓ 接受（u < 接受概率）" : "✗ 拒绝（u ≥ 接受概率）" })));
      } else {
        cells.push(el("td", { colspan: 5, class: "c13-muted", text: "前面已拒绝，不再检验" }));
      }
      body.append(el("tr", null, cells));
    }
    fill(roundBox, el("table", { class: "c13-mini c13-replay" },
      el("caption", { text: `第 ${s} 轮：草稿猜的 ${k} 个 token` }),
      el("thead", null, el("tr", null, ["位置", "草稿 token", "p(x)", "q(x)", "接受概率", "u", "判定"].map((h) => el("th", { scope: "col", text: h })))),
      body));
    const kind = rd.kind === "bonus" ? `${k} 个全部接受，目标那次前向的最后一行分布白送一个 token：`
      : `在第 ${rd.accepted + 1} 个位置被拒，从残差里重抽一个 token：`;
    fill(outcome, `接受 ${rd.accepted} 个。`, kind, tok(labels, rd.token), `。本轮产出 ${rd.yield} 个 token（= 接受的个数 + 1）。`);
  }

  draw();
  section.classList.add("c13-is-live");
}
