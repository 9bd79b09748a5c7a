// Shared helpers of the figure modules: SVG and HTML as strings. Every text and attribute value goes through
// escapeHtml (token labels come from the corpus and are never trusted as markup; it lives in formats.mjs, whose
// speed markup needs it too). Pure: no DOM, no globals.
// The pictures use CSS classes (widgets/c13.css) and currentColor, never fixed text colours, so they read in
// the light and the dark palette; the three parts of a distribution also differ by pattern.
import { escapeHtml, fixed } from "./formats.mjs";

export { escapeHtml };

/** A coordinate with at most one decimal and no trailing ".0". */
export function coord(value) {
  return fixed(value, 1).replace(/\.0$/, "").replace(/^-0$/, "0");
}

/** ' name="value"' for each attribute that is not null/undefined; names written as given. */
export function attrs(values) {
  let out = "";
  for (const [name, value] of Object.entries(values || {})) {
    if (value === null || value === undefined || value === false) continue;
    out += ` ${name}="${escapeHtml(value)}"`;
  }
  return out;
}

/** <text>: anchor "start" writes no text-anchor; size adds the class c13-fsN. */
export function text(x, y, content, { cls = "", anchor = "middle", size = null, extra = null } = {}) {
  const classes = [cls, size ? `c13-fs${Math.round(size)}` : ""].filter(Boolean).join(" ");
  return `<text${attrs({ x: coord(x), y: coord(y), "text-anchor": anchor === "start" ? null : anchor,
    class: classes || null, ...extra })}>${escapeHtml(content)}</text>`;
}

export function rect(x, y, width, height, cls, extra = null) {
  return `<rect${attrs({ x: coord(x), y: coord(y), width: coord(Math.max(width, 0)),
    height: coord(Math.max(height, 0)), ...extra, class: cls })}/>`;
}

export function line(x1, y1, x2, y2, cls, extra = null) {
  return `<line${attrs({ x1: coord(x1), y1: coord(y1), x2: coord(x2), y2: coord(y2), class: cls, ...extra })}/>`;
}

/** The outer <svg>, labelled by its <title> (and <desc> when given). */
export function svg(id, width, height, title, body, desc = null) {
  const labelled = desc ? `${id}-t ${id}-d` : `${id}-t`;
  const description = desc ? `<desc id="${escapeHtml(id)}-d">${escapeHtml(desc)}</desc>` : "";
  return `<svg class="c13-svg" id="${escapeHtml(id)}" viewBox="0 0 ${width} ${height}" style="max-width:${width}px;--c13-w:${width}px" ` +
    `role="img" aria-labelledby="${escapeHtml(labelled)}" xmlns="http://www.w3.org/2000/svg">` +
    `<title id="${escapeHtml(id)}-t">${escapeHtml(title)}</title>${description}${body}</svg>`;
}

/** Fills that differ by texture as well as colour (stripes and cross-hatching belong to p − q and q − p alone), a score gradient and an arrow head; ids start with `id`. */
export function patterns(id) {
  return "<defs>" +
    `<pattern id="${id}-resid" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
    '<rect width="6" height="6" class="c13-resid"/><line x1="0" y1="0" x2="0" y2="6" class="c13-stripe"/></pattern>' +
    `<pattern id="${id}-excess" width="6" height="6" patternUnits="userSpaceOnUse">` +
    '<rect width="6" height="6" class="c13-excess"/><path d="M0 0L6 6M6 0L0 6" class="c13-stripe"/></pattern>' +
    `<pattern id="${id}-dots" width="5" height="5" patternUnits="userSpaceOnUse">` +
    '<circle cx="2.5" cy="2.5" r="1.2" class="c13-dot"/></pattern>' +
    `<linearGradient id="${id}-score" x1="0" x2="1" y1="0" y2="0">` +
    '<stop offset="0" class="c13-score-a"/><stop offset="1" class="c13-score-b"/></linearGradient>' +
    `<marker id="${id}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" ` +
    'orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" class="c13-arrowhead"/></marker>' +
    "</defs>";
}

/** A round step for an axis: 1, 2, 2.5 or 5 times a power of ten, at least `value`. */
export function niceStep(value) {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const factor of [1, 2, 2.5, 5, 10]) if (factor * power >= value) return factor * power;
  return 10 * power;
}

/** A token label shortened to `n` characters (code points), "…" marking the cut. */
export function clip(label, n = 4) {
  const chars = [...label];
  return chars.length <= n ? label : `${chars.slice(0, n - 1).join("")}…`;
}

// characters that Markdown, HTML or the math renderer could read as markup: written as character references
const MARKUP_CHARS = /[\\`*_{}[\]()#+\-.!|<>&$~:^="'%]/g;

/** Text that neither HTML nor Markdown can read as markup (the figure sits in a Markdown page at build time). */
export function escapeText(value) {
  return String(value).replace(MARKUP_CHARS, (ch) => `&#${ch.codePointAt(0)};`);
}

/** A token's label as text in its box. */
export function tokenSpan(labels, id) {
  return `<span class="c13-tok">${escapeText(labels[id] ?? `#${id}`)}</span>`;
}

/** The wide layout shows only where the column is at least as wide as one of these (px; 560 when none is named):
 * each figure's wrapper names the first that keeps its smallest text at MIN_TEXT_PX once the drawing is scaled
 * to the column (c13.css has a container query for each). */
export const MIN_TEXT_PX = 11;
export const DUO_STEPS = [560, 620, 680, 740, 800, 860, 920, 980];

/** The narrowest column (px) at which a drawing's smallest sized text (class c13-fsN) is drawn at MIN_TEXT_PX:
 * the SVG is scaled by column ÷ viewBox width, so that is width × MIN_TEXT_PX ÷ smallest size (never, for a size
 * under MIN_TEXT_PX). */
export function columnNeeded(drawing) {
  const box = /viewBox="0 0 ([\d.]+) [\d.]+"/.exec(drawing);
  const sizes = [...drawing.matchAll(/\bc13-fs(\d+)\b/g)].map((m) => Number(m[1]));
  if (!box || !sizes.length) return 0;
  const smallest = Math.min(...sizes);  // svg() caps a drawing at its own width: it is never scaled up
  return smallest < MIN_TEXT_PX ? Infinity : Number(box[1]) * MIN_TEXT_PX / smallest;
}

/** One figure in its two layouts, side by side in the markup: the wide drawing where the column holds it with
 * no text under MIN_TEXT_PX, the narrow one (larger text, redrawn for a phone) below that; CSS picks one
 * (.c13-duo in c13.css). `draw(layout, svgId)` returns each layout's SVG, layout "wide" or "narrow"; extra: more
 * attributes of the wrapper. */
export function twoLayouts(id, draw, { cls = "", extra = null } = {}) {
  const wide = draw("wide", `${id}-wide`), need = columnNeeded(wide);
  const step = DUO_STEPS.find((s) => s >= need - 0.5);
  if (!step) throw new Error(`figure ${id}: its wide layout keeps its text at ${MIN_TEXT_PX} px only in a column of ` +
    `${Math.ceil(need)} px, more than the widest step (${DUO_STEPS.at(-1)} px): draw it narrower or its text larger`);
  const classes = ["c13-duo", step > DUO_STEPS[0] ? `c13-duo-${step}` : "", cls].filter(Boolean).join(" ");
  return `<div${attrs({ class: classes, ...(extra || {}), id })}>` +
    `<div class="c13-duo-wide">${wide}</div><div class="c13-duo-narrow">${draw("narrow", `${id}-narrow`)}</div></div>`;
}
