// E3 · one target forward verifies k draft tokens: the tensor shapes of P = softmax(f_target([x0 … xk]) / T),
// Q and the accept mask. Scores are continuous gradient blocks, indices numbered slots, masks hatched (blank =
// not read). Edges are log-scaled — one symbol, one length everywhere — with the real number written on them.
// A switch between the real scale (the anchor's vocabulary) and a small one, and a k slider.
import { el, fill, mount, num, staticChildren, stash, sv, uid } from "./c13-util.js";

const SMALL_V = 8;

function edge(n) {
  return 20 * (1 + Math.log2(n));
}

function sub(i) {
  return String(i).replace(/\d/g, (c) => "₀₁₂₃₄₅₆₇₈₉"[Number(c)]);
}

function diagram(V, k, mask) {
  const id = uid("e3-live");
  const k1 = k + 1;
  const eV = edge(V), ek1 = edge(k1), ek = edge(k), slot = 26;
  const xIn = 66, xP = 196;
  const span = Math.max(eV, 250);
  const W = Math.round(xP + span + 150);
  const yP = 70;
  const yQ = yP + ek1 + 66;
  const H = Math.round(yQ + ek + 84);
  const svg = sv("svg", { class: "c13-svg", viewBox: `0 0 ${W} ${H}`, style: `max-width:${W}px`, role: "img",
    "aria-labelledby": `${id}-t ${id}-d`, id },
  sv("title", { id: `${id}-t`, text: `张量形状：V = ${num(V)}，k = ${k}，k + 1 = ${k1}` }),
  sv("desc", { id: `${id}-d`, text: `输入 x 是 ${k1} 个索引；P 是 ${k1} × ${num(V)} 的分数矩阵，Q 是 ${k} × ${num(V)}；` +
    `接受掩码有 ${k} 格：${mask.map((m) => (m === null ? "未读" : m ? "是" : "否")).join("、")}。边长按对数画。` }),
  sv("defs", null,
    sv("pattern", { id: `${id}-mask`, width: 5, height: 5, patternUnits: "userSpaceOnUse", patternTransform: "rotate(-45)" },
      sv("line", { x1: 0, y1: 0, x2: 0, y2: 5, class: "c13-hatch" })),
    sv("linearGradient", { id: `${id}-score`, x1: 0, x2: 1, y1: 0, y2: 0 },
      sv("stop", { offset: 0, class: "c13-score-a" }), sv("stop", { offset: 1, class: "c13-score-b" })),
    sv("marker", { id: `${id}-arrow`, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
      sv("path", { d: "M0 0L10 5L0 10z", class: "c13-arrowhead" }))));
  const text = (x, y, s, cls = "", anchor = "middle", size = 11) =>
    sv("text", { x, y, "text-anchor": anchor, class: `${cls} c13-fs${size}`.trim(), text: s });
  const line = (x1, y1, x2, y2, cls, arrow) => sv("line", { x1, y1, x2, y2, class: cls, "marker-end": arrow ? `url(#${id}-arrow)` : null });
  const slots = (x0, y0, n, names) => {
    const h = edge(n) / n;
    const g = sv("g", { class: "c13-slots" });
    for (let i = 0; i < n; i++) {
      g.append(sv("rect", { x: x0, y: y0 + i * h, width: slot, height: h, class: "c13-index" }));
      if (h >= 9) g.append(text(x0 + slot / 2, y0 + i * h + h / 2 + 4, names[i], "", "middle", Math.min(11, Math.floor(h - 1))));
    }
    return g;
  };
  const grid = (x0, y0, w, h, rows, cols) => {
    const g = sv("g", { class: "c13-scores" }, sv("rect", { x: x0, y: y0, width: w, height: h, class: "c13-score", fill: `url(#${id}-score)` }));
    if (cols <= 32) for (let c = 1; c < cols; c++) g.append(line(x0 + (w * c) / cols, y0, x0 + (w * c) / cols, y0 + h, "c13-cellline"));
    for (let r = 1; r < rows; r++) g.append(line(x0, y0 + (h * r) / rows, x0 + w, y0 + (h * r) / rows, "c13-cellline"));
    return g;
  };
  const dimH = (a, b, y, s) => [line(a, y, b, y, "c13-dim"), text((a + b) / 2, y - 4, s, "c13-dimtext")];
  const dimV = (x, a, b, s, side) => [line(x, a, x, b, "c13-dim"),
    text(x + (side === "left" ? -4 : 4), (a + b) / 2 + 4, s, "c13-dimtext", side === "left" ? "end" : "start")];

  const inputs = ["x₀", ...Array.from({ length: k }, (_, i) => `x${sub(i + 1)}`)];
  svg.append(
    text(xIn + slot / 2, yP - 30, "输入 x", "c13-strong", "middle", 12), text(xIn + slot / 2, yP - 14, "索引", "c13-muted"),
    slots(xIn, yP, k1, inputs), ...dimV(xIn - 6, yP, yP + ek1, `k+1 = ${k1}`, "left"),
    line(xIn + slot + 6, yP + ek1 / 2, xP - 8, yP + ek1 / 2, "c13-edge", true),
    text((xIn + slot + xP) / 2, yP + ek1 / 2 - 8, "f_target ÷ T"), text((xIn + slot + xP) / 2, yP + ek1 / 2 + 16, "softmax"),
    grid(xP, yP, eV, ek1, k1, V), text(xP, yP - 30, "P：目标的 k+1 个分布（分数，连续值）", "c13-strong", "start", 12),
    ...dimH(xP, xP + eV, yP - 8, `V = ${num(V)}`), ...dimV(xP + eV + 8, yP, yP + ek1, `k+1 = ${k1}`, "right"),
    grid(xP, yQ, eV, ek, k, V), text(xP, yQ - 30, "Q：草稿逐个给出的 k 个分布（分数）", "c13-strong", "start", 12),
    ...dimH(xP, xP + eV, yQ - 8, `V = ${num(V)}`), ...dimV(xP + eV + 8, yQ, yQ + ek, `k = ${k}`, "right"),
    slots(xIn, yQ, k, inputs.slice(1)), text(xIn + slot / 2, yQ - 14, "草稿 token", "c13-muted"),
    ...dimV(xIn - 6, yQ, yQ + ek, `k = ${k}`, "left"),
    line(xP - 8, yQ + ek / 2, xIn + slot + 6, yQ + ek / 2, "c13-edge", true), text((xIn + slot + xP) / 2, yQ + ek / 2 - 8, "抽样"));
  const xM = xP + span + 72;
  svg.append(text(xM + slot / 2, yQ - 30, "接受掩码", "c13-strong", "middle", 12), text(xM + slot / 2, yQ - 14, "是 / 否", "c13-muted"));
  const h = ek / k;
  mask.forEach((m, i) => {
    const y0 = yQ + i * h;
    svg.append(m === null ? sv("rect", { x: xM, y: y0, width: slot, height: h, class: "c13-mask-blank" })
      : sv("rect", { x: xM, y: y0, width: slot, height: h, class: "c13-mask", fill: m ? `url(#${id}-mask)` : null }));
    if (h >= 9) svg.append(text(xM + slot + 6, y0 + h / 2 + 4, m === null ? "—" : m ? "是" : "否", "", "start", Math.min(11, Math.floor(h - 1))));
  });
  svg.append(text(xP + span / 2, yQ + ek + 28, "取 P 与 Q 在 xᵢ 处的值：min(1, P[i, xᵢ] / Q[i, xᵢ]) → 掩码", "c13-muted"),
    text(xP + span / 2, yQ + ek + 46, "掩码里留白 = 前面已被拒，这一格不再读", "c13-muted"));
  return svg;
}

export function render(section, data) {
  const realV = data.anchor.vocab_size;
  const k0 = data.anchor.positions_verified - 1;
  const rounds = data.replay.rounds;
  const kRec = data.replay.k;
  // the mask of a recorded round with a rejection after some acceptances (else the first round)
  const mr = rounds.find((r) => r.accepted > 0 && r.accepted < kRec) || rounds[0];
  const accepted = mr ? mr.accepted : 0;
  const maskFor = (k) => Array.from({ length: k }, (_, i) => (i < accepted ? true : i === accepted ? false : null));

  const state = { scale: "real", k: k0 };
  const live = mount(section, "c13-e3");
  stash(section, staticChildren(section), "静态版本：尺寸表与两张构建时的图");
  const gid = uid("e3");
  const scaleBox = el("fieldset", { class: "c13-radios" }, el("legend", { text: "规模" }),
    el("label", null, el("input", { type: "radio", name: `${gid}-scale`, value: "real", checked: true,
      onchange: () => { state.scale = "real"; draw(); } }), ` 真实规模（V = ${num(realV)}，锚点词表）`),
    el("label", null, el("input", { type: "radio", name: `${gid}-scale`, value: "small",
      onchange: () => { state.scale = "small"; draw(); } }), ` 小规模（V = ${SMALL_V}）`));
  const kOut = el("output", { for: `${gid}-k`, id: `${gid}-kout`, text: String(state.k) });
  const kInput = el("input", { type: "range", id: `${gid}-k`, min: 1, max: 8, step: 1, value: state.k,
    "aria-describedby": `${gid}-kout` });
  kInput.addEventListener("input", () => { state.k = Number(kInput.value); kOut.textContent = String(state.k); draw(); });
  const controls = el("div", { class: "c13-controls" }, scaleBox,
    el("div", { class: "c13-slider" }, el("label", { for: kInput.id, text: "每轮草稿 token 数 k" }), kInput, kOut));
  const table = el("div", { class: "c13-scroll" });
  const picture = el("div", { class: "c13-scroll c13-e3-picture", role: "group", tabindex: 0, "aria-label": "张量形状图（窄屏上可以左右滚动）" });
  const caption = el("figcaption");
  const figure = el("figure", { class: "c13-fig" }, picture, caption);
  live.append(controls, table, figure);

  function draw() {
    const V = state.scale === "real" ? realV : SMALL_V;
    const k = state.k;
    const mask = maskFor(k);
    fill(table, el("table", { class: "c13-mini" },
      el("caption", { text: "这张图里的尺寸" }),
      el("thead", null, el("tr", null, ["符号", "含义", "值", "边长（对数）"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", null, [["k + 1", "一次前向验的位置数", k + 1], ["k", "每轮草稿 token 数", k], ["V", "词表大小", V]].map(([s, m, v]) =>
        el("tr", null, el("td", { text: s }), el("td", { text: m }), el("td", { text: num(v) }), el("td", { text: `${edge(v).toFixed(0)} 单位` }))))));
    const nAcc = mask.filter((m) => m === true).length;
    const nRej = mask.filter((m) => m === false).length;
    fill(picture, diagram(V, k, mask));
    caption.textContent = `${state.scale === "real" ? `真实规模：V = ${num(V)}（锚点 ${data.anchor.model} 的词表）` : `小规模：V = ${V}，可以一格一格地数`}，` +
      `k + 1 = ${k + 1}。掩码取自回放里的一轮：${nAcc} 个接受，${nRej} 个拒绝，其余不再读。同一个符号在哪里都是同一个长度。`;
    figure.dataset.v = String(V);
    figure.dataset.k = String(k);
  }
  draw();
  section.classList.add("c13-is-live");
}
