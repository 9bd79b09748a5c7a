// The number formats used inside figures and widgets. Each follows the rule of the Jinja filter of the same
// name in generator/pages/formats.py (Python's format mini-language), so a number reads the same in prose and
// in a picture; tests/pages/test_formats_parity.py runs both over one table of values.
// Pure functions: no DOM, no globals.

function finite(value, what) {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new Error(`${what}: expected a finite number, got ${value}`);
  }
  return value;
}

/** True when the exact decimal expansion of `value` ends in a 5 right after `digits` decimals. */
function isExactTie(value, digits) {
  const wide = Math.abs(value).toFixed(Math.min(100, digits + 60));
  const tail = wide.slice(wide.indexOf(".") + 1 + digits);
  return /^50*$/.test(tail);
}

/** `digits` decimals, rounded as Python's format() rounds: exact ties go to the even digit. */
export function fixed(value, digits = 2) {
  finite(value, "fixed");
  const magnitude = Math.abs(value);
  let text = magnitude.toFixed(digits);
  if (digits < 40 && isExactTie(magnitude, digits) && Number(text[text.length - 1]) % 2 === 1) {
    // toFixed rounds an exact tie away from zero; Python keeps the even last digit, one step below
    text = (magnitude - 10 ** -digits / 2).toFixed(digits);
  }
  return value < 0 ? `-${text}` : text;
}

/** A fraction as a percentage: 0.5672 → "56.7%". */
export function pct(value, digits = 1) {
  return `${fixed(finite(value, "pct") * 100, digits)}%`;
}

/** Fixed decimals showing `digits` significant digits: 0.05183 → "0.052", 15.3 → "15.30". */
export function sig(value, digits = 2) {
  finite(value, "sig");
  if (value === 0) return "0";
  if (Math.abs(value) >= 1) return fixed(value, 2);
  const decimals = digits - 1 - Math.floor(Math.log10(Math.abs(value)));
  return fixed(value, decimals);
}

/** A probability, readable when small: 0.1234 → "12.3%", 0.0015 → "0.15%". */
export function prob(value) {
  finite(value, "prob");
  if (value >= 0.01 || value === 0) return `${fixed(value * 100, 1)}%`;
  return `${sig(value * 100)}%`;
}

/** Milliseconds: 0.05183 → "0.052 ms". */
export function ms(value) {
  return `${sig(value)} ms`;
}

/** Thousands separators: 3688704 → "3,688,704". */
export function num(value, digits = 0) {
  finite(value, "num");
  if (digits === 0 && Math.round(value) !== value) throw new Error(`num: ${value} is not a whole number; give digits`);
  const [whole, part] = fixed(value, digits).split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return part === undefined ? grouped : `${grouped}.${part}`;
}

/** Our speedup or yield ratio: 1.5 → "1.50×". */
export function times(value, digits = 2) {
  return `${fixed(finite(value, "times"), digits)}×`;
}

/** What a speed figure is, as generator/pages/formats.py SPEED_KINDS: the lesson's formula (v = 1), the formula with
 *  measured costs, a measured wall clock, or a paper's own report. */
export const SPEED_KINDS = {
  formula: "课上的公式（v = 1）",
  "formula-measured": "公式代入实测的 c 和 v(k)",
  "wall-clock": "实测墙钟",
  reported: "作者自报，未经我们复现",
};

// the escapes of Python's markupsafe, so that the speed markup is the same byte for byte in both languages
const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;" };

/** Text safe inside an element or a quoted attribute (every figure's text and attributes: svg.mjs). */
export function escapeHtml(value) {
  return String(value).replace(/[&<>"']/g, (ch) => ESCAPES[ch]);
}

/** A speed figure, already formatted, marked with what it is (the Jinja filter `speed`): its kind as data-kind and,
 *  as its title, the kind in words and where it comes from (machine, engine, date; or c = 参数比). */
export function speed(text, kind, where = null) {
  if (!Object.hasOwn(SPEED_KINDS, kind)) {
    throw new Error(`speed: unknown kind ${kind}; expected one of ${Object.keys(SPEED_KINDS).join(", ")}`);
  }
  const title = SPEED_KINDS[kind] + (where ? `：${where}` : "");
  return `<span class="c13-speed" data-kind="${escapeHtml(kind)}" title="${escapeHtml(title)}">` +
    `${escapeHtml(text)}</span>`;
}

/** Python's "g" format: six significant digits, no trailing zeros: 0.85 → "0.85", 2.0 → "2", 4.2e-05 → "4.2e-05". */
export function asWritten(value) {
  return general(finite(value, "as_written"), 6);
}

/** A ratio as its source reported it: 3.4 → "3.4×". */
export function timesAsReported(value) {
  return `${asWritten(value)}×`;
}

function dropTrailingZeros(text) {
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
}

/** Python's "{:.Ng}": N significant digits, no trailing zeros, an exponent below 1e-4 and from 10^N on. */
export function general(value, precision) {
  if (value === 0) return "0";
  const [mantissa, exponentText] = value.toExponential(precision - 1).split("e");
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= precision) {
    const sign = exponent < 0 ? "-" : "+";
    return `${dropTrailingZeros(mantissa)}e${sign}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  return dropTrailingZeros(fixed(value, precision - 1 - exponent));
}

/** `digits` significant digits but never fewer than the whole part, no trailing zeros: 1234.56 → "1235". */
function significant(value, digits) {
  const wholeDigits = Math.floor(Math.log10(Math.abs(value))) + 1;
  return dropTrailingZeros(fixed(value, Math.max(0, digits - wholeDigits)));
}

/** Up to `digits` decimals, trailing zeros dropped: 1.8 → "1.8", 2.0 → "2". */
export function trim(value, digits = 3) {
  return dropTrailingZeros(fixed(value, digits));
}

/** Bytes in decimal gigabytes: 51260000000 → "51.26 GB". */
export function gb(value) {
  return `${fixed(finite(value, "gb") / 1e9, 2)} GB`;
}

export function gflop(value) {
  return `${fixed(finite(value, "gflop") / 1e9, 2)} GFLOP`;
}

/** A large count in Chinese units: 25630000000 → "256.3 亿", 332352 → "33.2 万". */
export function chineseUnits(value) {
  finite(value, "chinese_units");
  if (Math.abs(value) >= 1e8) return `${significant(value / 1e8, 4)} 亿`;
  if (Math.abs(value) >= 1e4) return `${significant(value / 1e4, 3)} 万`;
  return num(value);
}

/** The formats by the names of the Jinja filters they follow (for the parity test). */
export const FORMATS = { fixed, pct, sig, prob, ms, num, times, as_written: asWritten,
  times_as_reported: timesAsReported, gb, gflop, chinese_units: chineseUnits, speed };
