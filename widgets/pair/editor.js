// The editable bars of the pair: one row of six sliders for p and one for q. A bar follows the pointer while it is
// dragged (its height is the probability, on a fixed 0–100 % scale) and takes the arrow keys when it has the
// focus: ↑/→ one percentage point more, ↓/← one less, PageUp/PageDown ten, Home 0, End 100 %. Each change goes to
// onSet(which, index, units); the owner rescales the other bars and calls show() with the new pair.
import { el, prob } from "../c13-util.js";

const KEY_STEPS = { ArrowUp: 10, ArrowRight: 10, ArrowDown: -10, ArrowLeft: -10, PageUp: 100, PageDown: -100 };
const NAMES = { p: "目标 p", q: "草稿 q" };

/** The new value (units) a key asks for, or null for a key that is not the slider's. */
function keyValue(key, now, unit) {
  if (key in KEY_STEPS) return now + KEY_STEPS[key];
  if (key === "Home") return 0;
  if (key === "End") return unit;
  return null;
}

function barRow(which, labels, unit, onSet) {
  const bars = labels.map((label, i) => {
    const fillBar = el("span", { class: "c13-pair-fill" });
    const value = el("span", { class: "c13-pair-value", "aria-hidden": "true" });
    const track = el("span", { class: "c13-pair-track" }, fillBar);
    const slider = el("span", { class: "c13-pair-bar", role: "slider", tabindex: 0, "aria-label": `${which}(${label})`,
      "aria-valuemin": 0, "aria-valuemax": 100, "data-token": i, "data-which": which }, value, track,
    el("span", { class: "c13-pair-label", "aria-hidden": "true", text: label }));
    slider.addEventListener("keydown", (event) => {
      const next = keyValue(event.key, Number(slider.dataset.units), unit);
      if (next === null) return;
      event.preventDefault();
      onSet(which, i, next);
    });
    return { slider, fillBar, value, track };
  });
  const row = el("div", { class: "c13-pair-row", role: "group", "aria-label": `${NAMES[which]}的六根柱子`,
    "data-which": which }, el("span", { class: "c13-pair-name", text: NAMES[which] }),
  el("div", { class: "c13-pair-bars" }, bars.map((b) => b.slider)));
  dragging(row, bars, which, unit, onSet);
  return { row, bars };
}

/** Pointer drags on a row: the bar pressed follows the pointer's height until the press ends. */
function dragging(row, bars, which, unit, onSet) {
  let active = null;
  const valueAt = (event) => {
    const box = bars[active].track.getBoundingClientRect();
    return Math.round(((box.bottom - event.clientY) / box.height) * unit);
  };
  row.addEventListener("pointerdown", (event) => {
    const index = bars.findIndex((b) => b.slider.contains(event.target));
    if (index < 0 || event.button > 0) return;
    active = index;
    event.preventDefault();
    bars[index].slider.focus({ preventScroll: true });
    bars[index].slider.setPointerCapture?.(event.pointerId);
    onSet(which, index, valueAt(event));
  });
  row.addEventListener("pointermove", (event) => {
    if (active !== null) onSet(which, active, valueAt(event));
  });
  const stop = () => { active = null; };
  row.addEventListener("pointerup", stop);
  row.addEventListener("pointercancel", stop);
}

/** The two rows of bars; show(pair) sets every bar to the pair's values. */
export function pairEditor(labels, unit, onSet) {
  const rows = { p: barRow("p", labels, unit, onSet), q: barRow("q", labels, unit, onSet) };
  const hint = el("p", { class: "c13-hint c13-pair-hint", text: "拖动柱子改它的高度；或者用 Tab 选中一根柱子，" +
    "按 ↑/↓（或 →/←）增减 1 个百分点，PageUp/PageDown 增减 10 个，Home/End 设为 0 或 100%。同一行的其余柱子按比例缩放，" +
    "总和保持 100%。" });
  const node = el("div", { class: "c13-pair-editor" }, rows.p.row, rows.q.row, hint);
  function show(pair) {
    for (const which of ["p", "q"]) {
      rows[which].bars.forEach((bar, i) => {
        const units = pair[which][i];
        const text = prob(units / unit);
        bar.fillBar.style.height = `${(units / unit) * 100}%`;
        bar.value.textContent = text;
        bar.slider.dataset.units = String(units);
        bar.slider.setAttribute("aria-valuenow", String(units / 10));
        bar.slider.setAttribute("aria-valuetext", text);
      });
    }
  }
  return { node, show, rows };
}
