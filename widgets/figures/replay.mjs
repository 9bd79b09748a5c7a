// E4 · the replay of one real run: the table of every round, the generated text marked token by token
// (accepted, resampled, bonus), and the text read back as one string from the tokens' display labels.
// Each round of the text is <span class="c13-round-tokens" data-round="i">: the live widget shows the rounds up
// to its step and marks the current one through that attribute.
import { fixed, pct, prob } from "./formats.mjs";
import { attrs, escapeHtml, escapeText, tokenSpan } from "./svg.mjs";

const VISIBLE = { "⏎": "\n", "␠": " ", "⇥": "\t", "␍": "\r" };
const SHOWN = { "\n": "⏎", "\t": "⇥", "\r": "␍" };
const BYTES = /‹[0-9A-F]{2}(?: [0-9A-F]{2})*›/;
/** What a byte token is, for its tooltip: the same words as the note beside E4. */
// true of any script: a character of more than one byte (a Han character takes 3) can be split across tokens
export const BYTES_NOTE = "UTF-8 字节：这个 token 只是一个字符的一部分字节，几个字节合起来才是一个完整的字符";
const HEAD = ["轮", "位置", "草稿 token", "p(x)", "q(x)", "接受概率", "u", "判定", "本轮结果", "累计 token", "每次目标前向"];

/** A display label back to its bytes: ‹E6 98› → those bytes, ‹U+0008› → that character, ⏎ → newline. */
export function labelBytes(label) {
  const encoder = new TextEncoder();
  const out = [];
  for (const part of label.split(/(‹[^›]*›)/)) {
    if (!part) continue;
    if (part.startsWith("‹") && part.endsWith("›")) {
      const inner = part.slice(1, -1);
      if (inner.startsWith("U+")) out.push(...encoder.encode(String.fromCodePoint(parseInt(inner.slice(2), 16))));
      else out.push(...inner.split(/\s+/).filter(Boolean).map((hex) => parseInt(hex, 16)));
    } else {
      out.push(...encoder.encode([...part].map((ch) => VISIBLE[ch] ?? ch).join("")));
    }
  }
  return out;
}

function hexByte(byte) {
  return `‹${byte.toString(16).toUpperCase().padStart(2, "0")}›`;
}

/** Bytes as text; bytes that form no whole UTF-8 character stay visible as ‹hex›, never as U+FFFD. */
export function readable(bytes) {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    let width = 1;
    for (; width <= 4 && i + width <= bytes.length; width++) {
      try {
        out += decoder.decode(new Uint8Array(bytes.slice(i, i + width)));
        break;
      } catch {
        // not a whole character yet: try a longer slice
      }
    }
    if (width > 4 || i + width > bytes.length) {
      out += hexByte(bytes[i]);
      i += 1;
    } else {
      i += width;
    }
  }
  return [...out].map((ch) => SHOWN[ch] ??
    (/\p{Cc}/u.test(ch) ? `‹U+${ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}›` : ch)).join("");
}

/** True when a display label holds raw bytes (‹E6 A2›): part of a character, not a whole one. */
export function isByteLabel(label) {
  return BYTES.test(label || "");
}

/** A token in its box; a byte token carries its explanation as a tooltip. */
function replayToken(labels, id) {
  const span = tokenSpan(labels, id);
  return isByteLabel(labels[id]) ? span.replace('class="c13-tok"', `class="c13-tok c13-bytes" title="${escapeHtml(BYTES_NOTE)}"`)
    : span;
}

/** The token ids of the prompt and of the first `upto` rounds, in order. */
export function replayIds(replay, upto) {
  const ids = [...replay.prompt_tokens];
  for (const round of replay.rounds.slice(0, upto)) ids.push(...round.draft.slice(0, round.accepted), round.token);
  return ids;
}

/** The text read as one string from the labels of the prompt and the first `upto` rounds. */
export function plainText(replay, labels, upto) {
  return readable(replayIds(replay, upto).flatMap((id) => labelBytes(labels[id])));
}

/** The generated text marked token by token, then read as one string. args: {replay, labels}. */
export function replayText({ replay, labels }) {
  const parts = [`<span class="c13-prompt">${replay.prompt_tokens.map((t) => replayToken(labels, t)).join("")}</span>`];
  replay.rounds.forEach((round, i) => {
    const accepted = round.draft.slice(0, round.accepted).map((t) => `<span class="c13-t-acc">${replayToken(labels, t)}</span>`);
    const last = `<span class="${round.kind === "bonus" ? "c13-t-bonus" : "c13-t-res"}">${replayToken(labels, round.token)}</span>`;
    parts.push(`<span${attrs({ class: "c13-round-tokens", "data-round": i })}>${accepted.join("")}${last}</span>`,
      `<span${attrs({ class: "c13-round-sep", "aria-hidden": "true", "data-round": i })}>|</span>`);
  });
  const whole = escapeText(plainText(replay, labels, replay.rounds.length));
  return `<div class="c13-replay-out"><p class="c13-replay-text">${parts.join("")}</p>` +
    `<p class="c13-replay-plain">连起来读：<span class="c13-plain">${whole}</span></p></div>`;
}

function roundRows(replay, labels, round, number, totals) {
  const k = replay.k;
  const tested = round.u.length;
  const kind = round.kind === "bonus" ? "赠送" : "残差重抽";
  const outcome = `接受 ${round.accepted} 个 + ${kind} ${replayToken(labels, round.token)}` +
    `<br><span class="c13-muted">产出 ${round.yield} 个</span>`;
  const rows = [];
  for (let i = 0; i < k; i++) {
    let cells;
    if (i < tested) {
      const verdict = i < round.accepted ? '<span class="c13-yes">✓ 接受</span>' : '<span class="c13-no">✗ 拒绝</span>';
      cells = `<td>${replayToken(labels, round.draft[i])}</td><td>${prob(round.p[i])}</td><td>${prob(round.q[i])}</td>` +
        `<td>${pct(round.accept_prob[i], 1)}</td><td>${fixed(round.u[i], 3)}</td><td>${verdict}</td>`;
    } else {
      cells = `<td>${replayToken(labels, round.draft[i])}</td><td colspan="5" class="c13-muted">前面已拒绝，不再检验</td>`;
    }
    const classes = [i === 0 ? "c13-round-start" : "", i < tested ? "" : "c13-untested"].filter(Boolean).join(" ");
    const lead = i === 0 ? `<th scope="rowgroup" rowspan="${k}">${number}</th>` : "";
    const tail = i === 0 ? `<td rowspan="${k}">${outcome}</td><td rowspan="${k}">${totals.tokens}</td>` +
      `<td rowspan="${k}">${fixed(totals.tokens / totals.forwards, 2)}</td>` : "";
    rows.push(`<tr class="${classes}">${lead}<td>${i + 1}</td>${cells}${tail}</tr>`);
  }
  return rows.join("");
}

/** The table of every round: one row per drafted token, grouped by round. args: {replay, labels}. */
export function replayTable({ replay, labels }) {
  const head = `<thead><tr>${HEAD.map((h) => `<th scope="col">${h}</th>`).join("")}</tr></thead>`;
  const totals = { tokens: 0, forwards: 0 };
  const body = replay.rounds.map((round, i) => {
    totals.tokens += round.yield;
    totals.forwards += 1;
    return roundRows(replay, labels, round, i + 1, totals);
  });
  return `<div class="c13-scroll" data-search-exclude><table class="c13-replay">${head}<tbody>${body.join("")}</tbody>` +
    "</table></div>";
}

/** This module's figures by the name generator/pages/figure_table.py and the tests draw them by. */
export const FIGURES = { replay_table: replayTable, replay_text: replayText };
