// E6's timeline of one speculative round beside target-only's strip for the same tokens (issue 24): the k draft
// forwards, the verify forward and the round's decisions in sampler.py, then the target writing the round's mean
// tokens one forward and one decision at a time, on one millisecond axis. The durations are the reader's own, from
// one pair of runs (explain.js: the verdict's median pair): each forward's mean, and all the rest of the loop
// (the decisions in sampler.py and the loop's own work) per round and per token, so that each strip's total is that
// run's time per round and the two totals' ratio is that pair's end-to-end speedup. Pure: numbers in, SVG text out (two layouts, text never under 11 px).
import { fixed, trim } from "./formats.mjs";
import { line, niceStep, patterns, rect, svg, text, twoLayouts } from "./svg.mjs";

const LAYOUTS = {
  wide: { width: 560, left: 8, right: 12, top: 22, bar: 26, gap: 50, small: 11, label: 12, line: 17, columns: 2 },
  narrow: { width: 300, left: 6, right: 10, top: 22, bar: 26, gap: 50, small: 12, label: 13, line: 18, columns: 1 },
};
// the kinds of segment: their class and the key's words
const PARTS = {
  draft: { cls: "c13-tl-draft", key: "草稿前向" },
  verify: { cls: "c13-tl-verify", key: "目标验证（k + 1 个位置）" },
  target: { cls: "c13-tl-target", key: "目标前向（1 个位置）" },
  sampler: { cls: "c13-tl-sampler", key: "判定与循环的其余（sampler.py 等）" },
};

/** The segments of the two strips, in ms from each strip's start: [{part, start, ms}], and each strip's totals.
 * args: {k, tokens (mean tokens a round writes), draftMs, verifyMs, targetMs, samplerRoundMs, samplerTokenMs}. */
export function roundSegments(a) {
  const round = [];
  let t = 0;
  const put = (strip, part, ms) => { strip.push({ part, start: t, ms }); t += ms; };
  for (let i = 0; i < a.k; i++) put(round, "draft", a.draftMs);
  put(round, "verify", a.verifyMs);
  put(round, "sampler", a.samplerRoundMs);
  const speculative = { segments: round, model: a.k * a.draftMs + a.verifyMs, total: t };
  const alone = [];
  t = 0;
  // the target alone writes the round's mean tokens: whole steps, then the fraction of one
  for (let left = a.tokens; left > 1e-9; left -= 1) {
    const share = Math.min(1, left);
    put(alone, "target", share * a.targetMs);
    put(alone, "sampler", share * a.samplerTokenMs);
  }
  const target = { segments: alone, model: a.tokens * a.targetMs, total: t };
  return { speculative, target };
}

function check(a) {
  for (const key of ["tokens", "draftMs", "verifyMs", "targetMs", "samplerRoundMs", "samplerTokenMs"]) {
    if (!(Number.isFinite(a[key]) && a[key] >= 0)) throw new Error(`round timeline: ${key} is not a finite number ≥ 0`);
  }
  if (!(Number.isInteger(a.k) && a.k >= 1)) throw new Error("round timeline: k is not a positive integer");
  if (!(a.tokens > 0)) throw new Error("round timeline: a round writes no token");
}

const msText = (v) => `${fixed(v, v >= 10 ? 1 : 2)} ms`;

function totals(strip) {
  return `前向 ${msText(strip.model)} + 其余 ${msText(strip.total - strip.model)} = ${msText(strip.total)}`;
}

function drawLayout(a, strips, layout, svgId) {
  const L = LAYOUTS[layout];
  const w = L.width - L.left - L.right;
  const longest = Math.max(strips.speculative.total, strips.target.total);
  const step = niceStep(longest / (layout === "wide" ? 6 : 4));
  const end = Math.ceil(longest / step) * step;
  const x = (ms) => L.left + (w * ms) / end;
  const rows = [
    { strip: strips.speculative, key: "speculative", title: layout === "wide"
      ? `投机解码的一轮：${a.k} 次草稿前向、1 次验证、判定` : `投机解码的一轮（k = ${a.k}）` },
    { strip: strips.target, key: "target", title: layout === "wide"
      ? `目标单独写同样多的 token（平均 ${fixed(a.tokens, 2)} 个）` : `目标单独写 ${fixed(a.tokens, 2)} 个 token` },
  ];
  const out = [patterns(svgId)];
  rows.forEach((row, i) => {
    const top = L.top + i * (L.bar + L.gap);
    out.push(text(L.left, top - 6, row.title, { anchor: "start", size: L.label }));
    out.push(`<g class="c13-tl-strip" data-strip="${row.key}" data-total="${row.strip.total}">`);
    for (const s of row.strip.segments) {
      out.push(rect(x(s.start), top, x(s.start + s.ms) - x(s.start), L.bar, `c13-tl ${PARTS[s.part].cls}`,
        { "data-part": s.part, "data-ms": s.ms }));
    }
    out.push("</g>", text(L.left, top + L.bar + 15, totals(row.strip), { cls: "c13-muted", anchor: "start",
      size: L.small }));
  });
  const axisY = L.top + 2 * (L.bar + L.gap) - 14;
  out.push(line(L.left, axisY, L.left + w, axisY, "c13-axis"));
  for (let v = 0; v <= end + 1e-9; v += step) {
    out.push(line(x(v), axisY, x(v), axisY + 4, "c13-axis"),
      text(x(v), axisY + 17, trim(v, 3), { cls: "c13-muted", size: L.small,
        anchor: v === 0 ? "start" : v >= end - 1e-9 ? "end" : "middle" }));
  }
  out.push(text(L.left + w / 2, axisY + 34, "毫秒", { size: L.small, cls: "c13-muted" }));
  const keyTop = axisY + 56;
  const colWidth = (L.width - 8) / L.columns;
  Object.entries(PARTS).forEach(([part, p], i) => {
    const kx = 8 + (i % L.columns) * colWidth, ky = keyTop + Math.floor(i / L.columns) * L.line;
    out.push(rect(kx, ky - 11, 18, 12, `c13-tl ${p.cls}`),
      text(kx + 24, ky, p.key, { anchor: "start", size: L.small }));
  });
  const height = keyTop + Math.ceil(4 / L.columns) * L.line;
  const title = `一轮投机解码和目标单独写同样多 token 的时间（k = ${a.k}）`;
  const desc = `投机解码一轮：${totals(strips.speculative)}；目标单独写 ${fixed(a.tokens, 2)} 个 token：` +
    `${totals(strips.target)}。`;
  return svg(svgId, L.width, height, title, out.join(""), desc);
}

/** The figure. args: {id, k, tokens, draftMs, verifyMs, targetMs, samplerRoundMs, samplerTokenMs} (see
 * roundSegments). */
export function roundTimeline(args) {
  check(args);
  const strips = roundSegments(args);
  return twoLayouts(args.id || "e6-timeline", (layout, svgId) => drawLayout(args, strips, layout, svgId),
    { cls: "c13-timeline", extra: { "data-speculative-ms": strips.speculative.total, "data-target-ms":
      strips.target.total } });
}

/** This module's figures by the name generator/pages/figure_table.py and the tests draw them by. */
export const FIGURES = { round_timeline: roundTimeline };
