// E3 · one target forward verifies k draft tokens: the tensor shapes of P, Q and the accept mask, drawn by
// widgets/figures/tensor.mjs (the same function drew the build-time versions). A switch between the real scale
// (the anchor's vocabulary) and the small one (constants.small_vocab), and a k slider over constants.ks.
import { el, fill, fromMarkup, mount, num, staticChildren, stash, uid } from "./c13-util.js";
import { edgeLength, maskFor, tensorShapes } from "./figures/tensor.mjs";

/** How many tokens the mask accepts: a recorded round with a rejection after some acceptances, else the first. */
function acceptedInMaskRound(replay) {
  const chosen = replay.rounds.find((r) => r.accepted > 0 && r.accepted < replay.k) || replay.rounds[0];
  return chosen ? chosen.accepted : 0;
}

function sizeTable(V, k) {
  const rows = [["k + 1", "一次前向验的位置数", k + 1], ["k", "每轮草稿 token 数", k], ["V", "词表大小", V]];
  return el("table", { class: "c13-mini" },
    el("caption", { text: "这张图里的尺寸" }),
    el("thead", null, el("tr", null, ["符号", "含义", "值", "边长（对数）"].map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", null, rows.map(([symbol, meaning, value]) => el("tr", null, el("td", { text: symbol }),
      el("td", { text: meaning }), el("td", { text: num(value) }),
      el("td", { text: `${edgeLength(value).toFixed(0)} 单位` })))));
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
  const accepted = acceptedInMaskRound(data.replay);
  const state = { scale: "real", k: data.anchor.positions_verified - 1 };
  const live = mount(section, "c13-e3");
  stash(section, staticChildren(section), "静态版本：尺寸表与两张构建时的图");
  const gid = uid("e3");
  const table = el("div", { class: "c13-scroll" });
  const picture = el("div", { class: "c13-scroll c13-e3-picture", role: "group", tabindex: 0,
    "aria-label": "张量形状图（窄屏上可以左右滚动）" });
  const caption = el("figcaption");
  const figure = el("figure", { class: "c13-fig" }, picture, caption);

  function draw() {
    const V = state.scale === "real" ? realV : smallV;
    const { k } = state;
    const mask = maskFor(accepted, k);
    fill(table, sizeTable(V, k));
    fill(picture, fromMarkup(tensorShapes({ V, k, mask, id: uid("e3-live"), scale: state.scale })));
    const nAccepted = mask.filter((m) => m === true).length;
    const nRejected = mask.filter((m) => m === false).length;
    const scaleText = state.scale === "real" ? `真实规模：V = ${num(V)}（锚点 ${data.anchor.model} 的词表）`
      : `小规模：V = ${num(V)}，可以一格一格地数`;
    caption.textContent = `${scaleText}，k + 1 = ${k + 1}。掩码取自回放里的一轮：${nAccepted} 个接受，${nRejected} 个拒绝，` +
      "其余不再读。同一个符号在哪里都是同一个长度。";
    figure.dataset.v = String(V);
    figure.dataset.k = String(k);
  }
  live.append(controls(gid, state, realV, smallV, data.constants.ks, draw), table, figure);
  draw();
  section.classList.add("c13-is-live");
}
