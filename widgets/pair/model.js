// The editable pair's state: p and q over six tokens, each held in whole thousandths (`unit` = 1000) that sum to
// exactly `unit`, so that a pair reads back from the address as the very pair that was written. Setting one bar
// rescales the others of its distribution; the address fragment (#pair=p:…;q:…) writes and reads a pair. No
// sampling here: α and the TVs come from sampler.py (stats.js), the bar heights of the picture are drawn from p and q.

const FRAGMENT = /^#?pair=p:([^;]*);q:([^;]*)$/;

/** `weights` (non-negative numbers, a positive sum) as whole parts of `unit` summing to `unit`: each gets the floor
 * of its share, and the parts left over go to the largest remainders (the lowest index first on ties). */
export function toUnits(weights, unit) {
  const total = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (w / total) * unit);
  const units = exact.map(Math.floor);
  let left = unit - units.reduce((a, b) => a + b, 0);
  const order = exact.map((v, i) => [v - Math.floor(v), i]).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left <= 0) break;
    units[i] += 1;
    left -= 1;
  }
  return units;
}

/** One bar set to `value` (whole units, clamped to 0…unit); the other bars share the rest in their old proportions
 * (evenly when they were all zero). Returns a new array. */
export function setBar(units, index, value, unit) {
  const v = Math.max(0, Math.min(unit, Math.round(value)));
  const others = units.map((u, i) => (i === index ? 0 : u));
  const otherSum = others.reduce((a, b) => a + b, 0);
  const weights = otherSum > 0 ? others : units.map((_, i) => (i === index ? 0 : 1));
  if (v === unit) return units.map((_, i) => (i === index ? unit : 0));
  const rest = toUnits(weights, unit - v);
  return rest.map((u, i) => (i === index ? v : u));
}

/** A pair in units as the sampler gets it: probabilities (units / unit), the very doubles the build used. */
export function probabilities(units, unit) {
  return units.map((u) => u / unit);
}

/** The stacked picture's split of the pair, every token drawn (no folded rest): green min(p, q), blue the part of
 * p above q, red the part of q above p — bar heights, as generator/pages/pair_presets.py splits a preset with
 * sampler.overlap and sampler.residual. Here in JavaScript because the picture is drawn before Python is loaded;
 * tests/widgets/test_pair_split.py wants the very doubles sampler.py gives. */
export function split(p, q) {
  return {
    tokens: p.map((_, i) => i), p, q,
    overlap: p.map((pi, i) => Math.min(pi, q[i])),
    residual: p.map((pi, i) => (pi > q[i] ? pi - q[i] : 0)),
    excess: p.map((pi, i) => (q[i] > pi ? q[i] - pi : 0)),
    rest: null,
  };
}

/** A percentage of the address: whole units as a percentage, at most one decimal (300 → "30", 167 → "16.7"). */
function percent(units) {
  return String(units / 10);
}

/** The address fragment of a pair: "pair=p:30,25,18,12,9,6;q:62,22,9,4,2,1" (percentages). */
export function toFragment(pair) {
  return `pair=p:${pair.p.map(percent).join(",")};q:${pair.q.map(percent).join(",")}`;
}

// one weight of the address: plain decimal digits, as toFragment writes them (no sign, exponent, hex, Infinity),
// at most six before the point, so that six of them cannot overflow their sum
const WEIGHT = /^\d{1,6}(\.\d{1,6})?$/;

function readList(text, size, unit) {
  const parts = text.split(",").map((s) => s.trim());
  if (parts.length !== size || !parts.every((s) => WEIGHT.test(s))) return null;
  const values = parts.map(Number);
  const total = values.reduce((a, b) => a + b, 0);
  if (!(Number.isFinite(total) && total > 0)) return null;
  return toUnits(values, unit);
}

/** The pair an address fragment names, or null when it names none; {error} when it is not a usable pair (the
 * numbers are renormalised, so any non-negative weights with a positive sum are one). */
export function fromFragment(hash, size, unit) {
  let text = hash || "";
  try {
    text = decodeURIComponent(text);
  } catch {
    return { error: "地址里的 #pair= 无法解码" };
  }
  if (!/^#?pair=/.test(text)) return null;
  const m = FRAGMENT.exec(text);
  const p = m && readList(m[1], size, unit);
  const q = m && readList(m[2], size, unit);
  if (!p || !q) {
    return { error: `地址里的 #pair= 不是一对可用的分布：p 和 q 各要 ${size} 个非负的十进制数（如 30 或 16.7，` +
      `不要科学记数法或十六进制）、总和大于 0（例如 #pair=p:30,25,18,12,9,6;q:62,22,9,4,2,1）` };
  }
  return { p, q };
}

/** The preset a pair is, or null. */
export function presetOf(pair, presets) {
  const same = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);
  return presets.find((preset) => same(preset.p_units, pair.p) && same(preset.q_units, pair.q)) || null;
}
