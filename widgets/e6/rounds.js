// What E6 shows while it runs and after: the progress (phases, then bytes while the files download), each round
// of the speculative loop as it arrives, and the two texts with the page's own comparison of them.
import { el, fill, num, say } from "../c13-util.js";
import { BYTES_NOTE, isByteLabel, labelBytes, readable } from "../figures/replay.mjs";

const MB = 1e6;
// the phases of a run, as the worker names them (engine.mjs), in the reader's words
const PHASES = {
  python: "启动 Python 抽样器（Pyodide）",
  weights: "下载模型权重与分词器",
  encode: "用分词器编码提示",
  target: "目标模型单独写",
  speculative: "投机解码：草稿猜、目标验",
  repeat: "比速度：两种写法轮流再各跑几次",
  measure: "计时：三种前向一段一段地轮流重复",
  roof: "量你的机器：读内存的带宽和乘加的峰值",
};

export function megabytes(bytes) {
  return `${(bytes / MB).toFixed(1)} MB`;
}

/** A token in its box; a byte token (part of a character) says so in its tooltip. */
export function token(label, cls) {
  const bytes = isByteLabel(label);
  return el("span", { class: ["c13-tok", bytes ? "c13-bytes" : "", cls || ""].join(" ").trim(),
    title: bytes ? BYTES_NOTE : undefined, text: label });
}

/** Token labels read as one text: bytes that make whole characters become those characters. */
export function readLabels(labels) {
  return readable(labels.flatMap((label) => labelBytes(label)));
}

/** The progress line: the phase, and while the files download, the bytes received of the total. begin(total) starts
 * a run: total is what this run downloads (the files it needs that the worker does not hold yet). While Pyodide
 * loads, python(snapshot) shows its step and bytes, as E2's status line does. */
export function progressLine(totalBytes) {
  const bar = el("progress", { max: 1, value: 0, "aria-label": "E6 载入进度", hidden: true });
  const text = el("span", { class: "c13-e6-progress-text" });
  const node = el("div", { class: "c13-progress c13-e6-progress", role: "status" }, bar, text);
  let got = {};
  let phase = null;
  let pyodide = null; // {step, steps, label, got, total} while Pyodide loads
  function show() {
    const received = Object.values(got).reduce((a, b) => a + b, 0);
    if (phase === "python" && pyodide) {
      const { step, steps, label, got: have, total } = pyodide;
      Object.assign(bar, { hidden: !(total > 0), max: total || 1, value: Math.min(have, total || 0) });
      text.textContent = `${PHASES.python}：第 ${step}/${steps} 步，${label}……` +
        (have > 0 ? `已收到 ${megabytes(have)} / ${megabytes(total)}` : "");
      node.dataset.pyodideBytes = String(have);
    } else if (phase === "weights" && totalBytes > 0) {
      Object.assign(bar, { hidden: false, max: totalBytes, value: Math.min(received, totalBytes) });
      text.textContent = `${PHASES.weights}：已收到 ${megabytes(received)} / ${megabytes(totalBytes)}`;
    } else {
      bar.hidden = true;
      text.textContent = phase ? `${PHASES[phase] || phase}……` : "";
    }
    node.dataset.phase = phase || "";
    node.dataset.bytes = String(received);
  }
  return {
    node,
    begin(total) { totalBytes = total; got = {}; pyodide = null; phase = null; show(); },
    phase(name) { phase = name; show(); },
    bytes({ file, bytes }) { got[file] = bytes; show(); },
    python(snapshot, steps, sizes) {
      if (snapshot.state !== "loading" || phase !== "python") return;
      const index = Math.max(0, snapshot.stepIndex ?? 0);
      const sum = (o) => Object.values(o || {}).reduce((a, b) => a + b, 0);
      pyodide = { step: Math.min(index + 1, steps.length), steps: steps.length, label: steps[index]?.[1] ?? "",
        got: sum(snapshot.bytes), total: sum(sizes) };
      show();
    },
    note(message) { bar.hidden = true; text.textContent = message; },
    say(message) { phase = null; bar.hidden = true; text.textContent = message; node.dataset.phase = ""; },
  };
}

/** One round: the k drafted tokens (accepted ones marked, the rejected one struck with its replacement: drawn from
 * the residual at T = 1, the target's own choice at T = 0), or, when all k were accepted, the bonus token. */
function roundItem(r, labelOf, greedy) {
  const drafted = r.drafted.map((id, i) => {
    const label = r.draftLabels?.[i] ?? labelOf(id);
    if (i < r.accepted) return token(label, "c13-e6-acc");
    if (i === r.accepted && r.kind === "resampled") {
      return el("del", { class: "c13-e6-rej", title: "被拒" }, token(label));
    }
    return token(label, "c13-e6-unused");
  });
  const last = token(r.label ?? labelOf(r.token), r.kind === "bonus" ? "c13-t-bonus" : "c13-t-res");
  const ending = r.kind === "bonus"
    ? el("span", { class: "c13-e6-end" }, "全部接受，赠送 ", last)
    : el("span", { class: "c13-e6-end" }, greedy ? "→ 换成目标自己选的 " : "→ 从残差抽到 ", last);
  return el("li", { "data-round": r.index, "data-accepted": r.accepted, "data-kind": r.kind },
    el("span", { class: "c13-e6-rno", text: `第 ${r.index + 1} 轮` }),
    el("span", { class: "c13-e6-body" }, el("span", { class: "c13-e6-drafted" }, ...drafted), ending),
    el("span", { class: "c13-e6-yield", text: `+${r.accepted + 1}` }));
}

/** The rounds as they arrive. */
export function roundList(labelOf) {
  // a long run scrolls inside the list: the keyboard reaches it (tabindex) to scroll it
  const list = el("ol", { class: "c13-e6-rounds", "aria-label": "投机解码的每一轮", tabindex: 0 });
  const head = el("p", { class: "c13-e6-rounds-head" });
  const node = el("div", { class: "c13-e6-rounds-box" }, head, list);
  let tokens = 0;
  return {
    node,
    clear() { fill(list); tokens = 0; head.textContent = ""; node.hidden = true; },
    add(r, greedy) {
      node.hidden = false;
      list.append(roundItem(r, labelOf, greedy));
      tokens += r.accepted + 1;
      head.textContent = `已跑 ${num(list.children.length)} 轮，写出 ${num(tokens)} 个 token。` +
        "下划实线的是被接受的草稿 token，划掉的是被拒的那一个，后面是这一轮的最后一个 token。";
      node.dataset.rounds = String(list.children.length);
    },
  };
}

/** Where the two token lists first differ (-1 when equal). */
export function firstDifference(a, b) {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return -1;
}

/** The two texts, and what comparing them says: identical at T = 0, one distribution at T = 1 (E2). */
export function showTexts(box, result, labelOf) {
  const prompt = readLabels(result.promptIds.map(labelOf));
  const text = (ids) => el("p", { class: "c13-e6-text" }, el("span", { class: "c13-e6-prompt-text", text: prompt }),
    readLabels(ids.map(labelOf)));
  const a = result.target.tokens;
  const b = result.speculative.tokens;
  const at = firstDifference(a, b);
  // the page's words (docs/index.md, E6's <div data-words>): identical at T = 0, one distribution at T = 1
  const verdict = say(box, "verdict", { greedy: result.temperature === 0, identical: at < 0, new_tokens: a.length,
    differ_at: at + 1, target_token: labelOf(a[at]) ?? "（无）", speculative_token: labelOf(b[at]) ?? "（无）" },
  "c13-e6-verdict");
  verdict.dataset.identical = String(at < 0);
  fill(box,
    el("h4", { text: "两段文字" }),
    el("p", { class: "c13-e6-which", text: `目标 ${result.target.tokens.length} 个 token，单独写：` }), text(a),
    el("p", { class: "c13-e6-which", text: `投机解码（${result.draft}，k = ${result.k}）：` }), text(b),
    verdict);
  return at < 0;
}
