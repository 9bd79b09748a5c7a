// E3 · one target forward verifies k draft tokens: the tensor shapes of P, Q and the accept mask, drawn by
// widgets/figures/tensor.mjs (the same function drew the build-time versions, in a wide and a narrow layout). A
// switch between the real scale (the anchor's vocabulary) and the small one (constants.small_vocab), and a k
// slider over constants.ks. The mask is a recorded round of the replay at the replay's own k, an illustration at
// any other k (replayMask says which, and the figure and the caption say so).
import { el, fill, fromMarkup, mount, num, staticChildren, stash, uid } from "../c13-util.js";
import { edgeLength, replayMask, tensorShapes } from "../figures/tensor.mjs";

/** The caption's sentence about the mask: where it comes from and what it shows. */
function maskSentence(chosen, k) {
  const count = (value) => chosen.mask.filter((m) => m === value).length;
  const [yes, no, blank] = [count(true), count(false), count(null)];
  const blankText = blank ? `，${blank} 格留白（前面已被拒，不再读）` : "";
  const where = chosen.round ? `掩码取自回放第 ${chosen.round} 轮（k = ${k}）`
    : `回放按 k = ${chosen.replayK} 录制，没有 k = ${k} 的一轮，这里的掩码只是示意`;
  return `${where}：${yes} 个接受，${no} 个拒绝${blankText}。`;
}

/** A ratio as the size table prints it: two decimals below 10, a whole number above. */
function ratio(x) {
  return x < 10 ? x.toFixed(2) : num(Math.round(x));
}

/** The sizes of the picture, each against k + 1: the real ratio, and the ratio of the edges as drawn (on a log
 *  scale, so that V fits beside k + 1). */
function sizeTable(V, k) {
  const rows = [["k + 1", "一次前向验的位置数", k + 1], ["k", "每轮草稿 token 数", k], ["V", "词表大小", V]];
  const base = edgeLength(k + 1);
  return el("table", { class: "c13-mini" },
    el("caption", { text: "这张图里的尺寸，都和 k + 1 比" }),
    el("thead", null, el("tr", null, ["符号", "含义", "值", "真实的倍数", "画出的边长的倍数"]
      .map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", null, rows.map(([symbol, meaning, value]) => el("tr", null, el("td", { text: symbol }),
      el("td", { text: meaning }), el("td", { text: num(value) }), el("td", { text: ratio(value / (k + 1)) }),
      el("td", { text: ratio(edgeLength(value) / base) })))));
}

function controls(gid, state, realV, smallV, ks, draw) {
  const choice = (value, label, checked) => el("label", null, el("input", { type: "radio", name: `${gid}-scale`, value,
    checked, onchange: () => { state.scale = value; draw(); } }), label);
  const scaleBox = el("fieldset", { class: "c13-radios" }, el("legend", { text: "规模" }),
    choice("real", ` 真实规模（V = ${num(realV)}，锚点词表）`, true), choice("small", ` 小规模（V = ${num(smallV)}）`, false));
  const kOut = el("output", { for: `${gid}-k`, id: `${gid}-kout`, text: String(state.k) });
  const kInput = el("input", { type: "range", id: `${gid}-k`, min: Math.min(...ks), max: Math.max(...ks), step: 1,
    value: state.k, "aria-describedby": `${gid}-kout` });
  kInput.addEventListener("input", () => { state.k = Number(kInput.value); kOut.textContent = String(state.k); draw(); });
  return el("div", { class: "c13-controls" }, scaleBox,
    el("div", { class: "c13-slider" }, el("label", { for: kInput.id, text: "每轮草稿 token 数 k" }), kInput, kOut));
}

export function render(section, data) {
  const realV = data.anchor.vocab_size;
  const smallV = data.constants.small_vocab;
  const state = { scale: "real", k: data.anchor.positions_verified - 1 };
  const live = mount(section, "c13-e3");
  stash(section, staticChildren(section), "静态版本：尺寸表与两张构建时的图");
  const gid = uid("e3");
  const table = el("div", { class: "c13-scroll" });
  const picture = el("div", { class: "c13-e3-picture" });
  const caption = el("figcaption");
  const figure = el("figure", { class: "c13-fig" }, picture, caption);

  function draw() {
    const V = state.scale === "real" ? realV : smallV;
    const { k } = state;
    const chosen = replayMask(data.replay, k);
    fill(table, sizeTable(V, k));
    fill(picture, fromMarkup(tensorShapes({ V, k, replay: data.replay, id: uid("e3-live"), scale: state.scale })));
    const scaleText = state.scale === "real" ? `真实规模：V = ${num(V)}（锚点 ${data.anchor.model} 的词表）`
      : `小规模：V = ${num(V)}，可以一格一格地数`;
    caption.textContent = `${scaleText}，k + 1 = ${k + 1}。${maskSentence(chosen, k)}同一个符号在哪里都是同一个长度。`;
    figure.dataset.v = String(V);
    figure.dataset.k = String(k);
    figure.dataset.maskRound = chosen.round ? String(chosen.round) : "";
  }
  live.append(controls(gid, state, realV, smallV, data.constants.ks, draw), table, figure);
  draw();
  section.classList.add("c13-is-live");
}
