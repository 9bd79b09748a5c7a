// E1 · the request path. The diagram is drawn by widgets/figures/request_path.mjs (the same function drew the
// build-time version, in a wide and a narrow layout of which CSS shows one) and made operable: every cell
// (g[data-cell], in both layouts) becomes a focusable button, and choosing one
// shows the anchor's own quantity for it, computed from the embedded anchor roofline data
// (precomputed/anchor-model.json through c13.json).
import { el, fill, fromMarkup, gb, gflop, mount, ms, num, say, staticChildren, stash, uid } from "../c13-util.js";
import { requestPath } from "../figures/request_path.mjs";

/** Each cell of the diagram: its name, the anchor's figures for it (rows, and a table for some); its words are the
 * page's (docs/index.md, E1's <div data-say="cell_NAME">, c13-util.js say). */
function cellInfo(anchor, temperature) {
  const k1 = anchor.positions_verified;
  const perSecond = 1000 / anchor.weight_read_ms_per_token;
  const bounds = () => boundsTable(anchor);
  return {
    tokenize: {
      name: "分词",
      rows: [["锚点词表 V", `${num(anchor.vocab_size)} 个 token`]],
    },
    prefill: {
      name: "预填充",
      rows: [["读全部权重（一次）", `${gb(anchor.bytes_read_per_token)}，≥ ${ms(anchor.weight_read_ms_per_token)}`],
        ["每个位置的计算", `${gflop(anchor.flops_per_position)}，≥ ${ms(anchor.compute_ms_per_token)}`],
        ["计算追上读权重的位置数", `约 ${num(Math.round(anchor.read_over_compute))} 个（读 ÷ 算的下界之比）`]],
    },
    read: {
      name: "读全部权重",
      rows: [["每个 token 读的字节", gb(anchor.bytes_read_per_token)],
        ["带宽下界（字节 ÷ 峰值显存带宽）", `≥ ${ms(anchor.weight_read_ms_per_token)}`],
        [`同一次前向算 ${k1} 个位置`, `仍然只读一遍：${gb(anchor.bytes_read_per_token)}，≥ ${ms(anchor.weight_read_ms_per_token)}`],
        ["由此，每秒最多", `约 ${Math.floor(perSecond)} 个 token`]],
      extra: bounds,
    },
    compute: {
      name: "计算",
      rows: [["每个位置的浮点运算", gflop(anchor.flops_per_position)],
        ["算力下界（运算量 ÷ 峰值 BF16 算力）", `≥ ${ms(anchor.compute_ms_per_token)}`],
        [`同一次前向算 ${k1} 个位置`, `${gflop(anchor.flops_per_position * k1)}，≥ ${ms(anchor.compute_ms_for_positions)}`],
        ["读 ÷ 算的下界之比", `约 ${Math.round(anchor.read_over_compute)} 倍`]],
      extra: bounds,
    },
    sample: {
      name: "采样",
      rows: [["分布的长度", `V = ${num(anchor.vocab_size)}`], ["相对读权重", "可以忽略"]],
    },
    append: {
      name: "追加",
      rows: [["每个 token 至少", `≥ ${ms(anchor.weight_read_ms_per_token)}`], ["每秒最多", `约 ${Math.floor(perSecond)} 个 token`]],
    },
    detokenize: {
      name: "还原文字",
      rows: [["锚点词表 V", `${num(anchor.vocab_size)} 个 token`]],
    },
    kv: {
      name: "KV 缓存（旁路）",
      rows: [["线性注意力状态（每个请求）", `${Math.round(anchor.linear_attention_state_mb)} MB = ${Math.round(anchor.linear_attention_state_mib)} MiB`]],
    },
    params: {
      name: "采样参数（旁路）",
      rows: [["本课的温度", `T = ${temperature}`]],
    },
  };
}

function boundsTable(anchor) {
  const k1 = anchor.positions_verified;
  const row = (n, compute) => el("tr", null, el("th", { scope: "row", text: `${n} 个` }),
    el("td", { text: `≥ ${ms(anchor.weight_read_ms_per_token)}` }), el("td", { text: `≥ ${ms(compute)}` }),
    el("td", { text: compute < anchor.weight_read_ms_per_token ? "读权重" : "计算" }));
  return el("div", { class: "c13-scroll" }, el("table", { class: "c13-mini" },
    el("caption", { text: "一次前向算几个位置：两个下界" }),
    el("thead", null, el("tr", null, ["位置数", "读权重下界", "计算下界", "瓶颈"].map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", null, row(1, anchor.compute_ms_per_token), row(k1, anchor.compute_ms_for_positions))));
}

export function render(section, data) {
  const anchor = data.anchor;
  const built = section.querySelector("#e1-path");
  if (!built) throw new Error("E1: the build-time diagram is missing");
  const drawing = fromMarkup(requestPath({ anchor, id: uid("e1-path") }));
  built.replaceWith(drawing);
  const info = cellInfo(anchor, data.replay.temperature);
  const cells = [...drawing.querySelectorAll("g.c13-cell[data-cell]")].filter((g) => info[g.dataset.cell]);
  if (!cells.length) throw new Error("E1: the diagram has no cells");

  const live = mount(section, "c13-e1");
  const hint = el("p", { class: "c13-hint", text: "点击图中任一格，或用 Tab 键移到格子上再按回车 / 空格：下面显示锚点在这一格的量。" });
  const panel = el("div", { class: "c13-e1-panel", role: "region", "aria-live": "polite", "aria-label": "所选格子的量" });
  live.append(hint, panel);
  const figure = drawing.closest("figure");
  if (figure) live.before(figure);
  stash(section, staticChildren(section).filter((n) => n !== figure), "静态版本：全部格子的数值表");

  for (const svg of drawing.querySelectorAll("svg")) svg.setAttribute("role", "group");
  function choose(cell) {
    for (const g of cells) g.setAttribute("aria-pressed", g.dataset.cell === cell.dataset.cell ? "true" : "false");
    const d = info[cell.dataset.cell];
    const dl = el("dl", { class: "c13-dl" }, d.rows.map(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })]));
    const words = say(section, `cell_${cell.dataset.cell}`, {}, "");
    fill(panel, el("p", { class: "c13-e1-name" }, el("strong", { text: d.name })), words, dl,
      d.extra ? d.extra() : null);
    panel.dataset.cell = cell.dataset.cell;
  }
  for (const g of cells) {
    const d = info[g.dataset.cell];
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "button");
    g.setAttribute("aria-label", `${d.name}：显示锚点的量`);
    g.addEventListener("click", () => choose(g));
    g.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        choose(g);
      }
    });
  }
  choose(cells.find((g) => g.dataset.cell === "read") || cells[0]);
  section.classList.add("c13-is-live");
}
