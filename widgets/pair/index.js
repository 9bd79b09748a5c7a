// 自己动手：任意的 p 和 q — the editable pair beside E2. The reader sets p and q over six tokens (bars dragged or
// moved with the keys, presets); the stacked picture (widgets/figures/stacked.mjs, the build-time figure's own
// function) redraws at once, α, Σ p·q and resample-from-p's closed-form TV come from sampler.py in Pyodide, and
// "Run 10,000" runs the same sampler on the pair. The pair is kept in the address (#pair=p:…;q:…). The presets,
// with the numbers the build computed for them, are embedded in the section (generator/pages/pair_presets.py).
import { el, fill, fromMarkup, mount, staticChildren, stash, uid } from "../c13-util.js";
import { pythonStatus, startWhenReached } from "../e2/status.js";
import { stackedPicture } from "../figures/stacked.mjs";
import { pairEditor } from "./editor.js";
import { fromFragment, presetOf, probabilities, setBar, split, toFragment } from "./model.js";
import { pairRun } from "./run.js";
import { pairStats } from "./stats.js";

const EDITED = "你改过的一对";

function readConfig(section) {
  const node = section.querySelector("script.c13-pair-data");
  if (!node) throw new Error("pair: the section has no embedded presets (script.c13-pair-data)");
  return JSON.parse(node.textContent);
}

/** The preset buttons: pressing one sets the pair; the pressed state follows the pair shown. */
function presetButtons(presets, choose) {
  const buttons = presets.map((preset) => el("button", { type: "button", class: "md-button c13-small c13-pair-preset",
    "data-preset": preset.id, "aria-pressed": "false", text: preset.name, onclick: () => choose(preset) }));
  const node = el("div", { class: "c13-pair-presets", role: "group", "aria-label": "预设" },
    el("span", { class: "c13-pair-name", text: "预设" }), buttons);
  const press = (preset) => buttons.forEach((b) => b.setAttribute("aria-pressed",
    String(Boolean(preset) && b.dataset.preset === preset.id)));
  return { node, press };
}

export function render(section, config0) {
  const config = readConfig(section);
  const { labels, unit, presets } = config;
  const python = config0.python;
  const live = mount(section, "c13-pair");
  const box = stash(section, staticChildren(section), "静态版本：构建时的预设叠放图与数字");
  const byId = Object.fromEntries(presets.map((p) => [p.id, p]));
  const start = byId[config.default];
  let pair = { p: [...start.p_units], q: [...start.q_units] };
  let shown = null;

  const note = el("p", { class: "c13-pair-note", "aria-live": "polite" });
  const buttons = presetButtons(presets, (preset) => set({ p: [...preset.p_units], q: [...preset.q_units] }, true));
  const editor = pairEditor(labels, unit, (which, index, value) => {
    set({ ...pair, [which]: setBar(pair[which], index, value, unit) }, true);
  });
  const picture = el("figure", { class: "c13-fig c13-pair-picture" });
  const stats = pairStats(python);
  const run = pairRun(python, labels, config.run_size, () => shown, config0.thresholds.clear_of_noise);
  const status = el("div", { class: "c13-py", role: "status" });
  live.append(buttons.node, note, editor.node, stats.node, picture, status, run.node);

  /** Draw everything for `next`; `write`: the reader changed it, so the address changes too. */
  function set(next, write, start = true) {
    pair = next;
    const preset = presetOf(pair, presets);
    const p = probabilities(pair.p, unit);
    const q = probabilities(pair.q, unit);
    const fragment = toFragment(pair);
    const name = preset ? preset.name : EDITED;
    shown = { key: `pair|${fragment}`, p, q, pJSON: JSON.stringify(p), qJSON: JSON.stringify(q), columns: split(p, q),
      name, tv: preset ? preset.tv : null };
    editor.show(pair);
    buttons.press(preset);
    note.textContent = preset ? preset.note : "这是你自己调出来的一对分布。";
    const title = preset ? preset.title : `可编辑的一对分布（${EDITED}）：目标 p 与草稿 q 叠放，六个 token A–F`;
    fill(picture, fromMarkup(stackedPicture({ columns: shown.columns, labels, n: labels.length, id: uid("pair-stack"),
      title })), el("figcaption", { text: "绿 + 蓝 = p；绿 + 红 = q。绿色的总量就是 α：改进方案里草稿 token 被接受的概率。" }));
    picture.dataset.pair = fragment;
    section.dataset.pair = fragment;
    stats.update(p, q, preset, start);
    run.clear();
    if (write) history.replaceState(history.state, "", `#${fragment}`);
  }

  /** The pair named by the address, if any: on load (then the page scrolls to it), and when the reader pastes
   * another address into this tab. An address that names no usable pair leaves the pair shown and says why. */
  function fromAddress(first) {
    const read = fromFragment(location.hash, labels.length, unit);
    if (first && !read?.p) set(pair, false, false);
    if (read?.error) note.textContent = `${read.error}；这里显示的是${first ? `预设“${start.name}”` : "原来的一对"}。`;
    if (!read?.p) return;
    set(read, false, !first);
    if (first) section.scrollIntoView();
  }

  fromAddress(true);
  window.addEventListener("hashchange", () => { if (section.isConnected) fromAddress(false); });
  pythonStatus(section, status, python, { steps: config0.pyodideSteps || [], sizes: config0.pyodide_bytes },
    () => { if (box) box.open = true; });
  python.subscribe((snapshot) => { if (section.isConnected) stats.onPython(snapshot.state); });
  startWhenReached(section, python);
  section.classList.add("c13-is-live");
}
