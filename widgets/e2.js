// E2 · three schemes (朴素方案 / 它在哪失败 / 改进方案) — the Pyodide experiment.
//
// The stacked picture, the tables and the formula are drawn here from the embedded distributions; every
// random draw is made by widgets/sampler.py running in Pyodide in a Web Worker (data.python), the same file
// and the same PRNG (random.Random) the generator used offline, so a run with the offline check's seed and
// size reproduces the offline TV exactly.
import {
  el, expectedNoiseTV, fill, fixed, mount, num, pct, prob, rovingKey, staticChildren, stash, sv, tok,
  topTokens, trim, uid, unpack,
} from "./c13-util.js";

const SCHEME_NAMES = {
  naive: "朴素方案（两边各抽一个，相等才留下）",
  correct: "被拒从残差抽（改进方案）",
  resample_p: "被拒从 p 重抽（错误的变体）",
  direct: "直接从 p 抽（噪声基准）",
};
const DRAFT_ROLE = ["小草稿", "大草稿"];
const TABS = ["① 朴素方案", "② 它在哪失败", "③ 改进方案"];
const LIVE_N = [10_000, 100_000];

// ---------------------------------------------------------------------------------------------------
// pictures
// ---------------------------------------------------------------------------------------------------

function niceStep(v) {
  if (v <= 0) return 1;
  const e = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * e >= v) return m * e;
  return 10 * e;
}

function clip(label, n = 4) {
  const chars = [...label];
  return chars.length <= n ? label : `${chars.slice(0, n - 1).join("")}…`;
}

function defs(id) {
  return sv("defs", null,
    sv("pattern", { id: `${id}-resid`, width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
      sv("rect", { width: 6, height: 6, class: "c13-resid" }), sv("line", { x1: 0, y1: 0, x2: 0, y2: 6, class: "c13-stripe" })),
    sv("pattern", { id: `${id}-excess`, width: 6, height: 6, patternUnits: "userSpaceOnUse" },
      sv("rect", { width: 6, height: 6, class: "c13-excess" }), sv("path", { d: "M0 0L6 6M6 0L0 6", class: "c13-stripe" })));
}

/** Columns over the top tokens plus one folded column; returns {svg, x(j), base, scale}. */
function columnFrame(id, title, desc, cols, ymax, labels) {
  const colw = 54;
  const left = 58;
  const top = 22;
  const plotH = 170;
  const W = left + colw * cols.length + 12;
  const H = top + plotH + 54;
  const step = niceStep(ymax / 4);
  const ymaxNice = step * Math.ceil(ymax / step);
  const scale = plotH / ymaxNice;
  const base = top + plotH;
  const svg = sv("svg", {
    class: "c13-svg", viewBox: `0 0 ${W} ${H}`, style: `max-width:${W}px`, role: "img",
    "aria-labelledby": `${id}-t ${id}-d`, id,
  }, sv("title", { id: `${id}-t`, text: title }), sv("desc", { id: `${id}-d`, text: desc }), defs(id));
  const decimals = Math.max(0, -Math.floor(Math.log10(step * 100) + 1e-9));
  for (let t = 0; t <= ymaxNice + 1e-12; t += step) {
    const y = base - t * scale;
    svg.append(sv("line", { x1: left - 4, y1: y, x2: W - 8, y2: y, class: "c13-grid" }),
      sv("text", { x: left - 8, y: y + 4, "text-anchor": "end", class: "c13-muted c13-fs11", text: pct(t, decimals) }));
  }
  cols.forEach((c, j) => {
    const cx = left + colw * j + 12;
    const bw = colw - 22;
    svg.append(
      sv("text", { x: cx + bw / 2, y: base + 16, "text-anchor": "middle", class: `c13-tok-label ${c.id === null ? "c13-fs11" : "c13-fs13"}`,
        text: c.id === null ? "其余" : clip(labels[c.id]) }),
      sv("text", { x: cx + bw / 2, y: base + 32, "text-anchor": "middle", class: "c13-fs10", text: c.line1 }),
      sv("text", { x: cx + bw / 2, y: base + 46, "text-anchor": "middle", class: "c13-muted c13-fs10", text: c.line2 }));
  });
  return { svg, base, scale, plotH, top, x: (j) => left + colw * j + 12, bw: colw - 22, axis: () =>
    svg.append(sv("line", { x1: left - 4, y1: base, x2: W - 8, y2: base, class: "c13-axis" })) };
}

function columnsOf(d, n) {
  const ids = topTokens(d.p, d.q, n);
  const shown = new Set(ids);
  let pr = 0, qr = 0, mr = 0, rr = 0, er = 0;
  for (let i = 0; i < d.p.length; i++) {
    if (shown.has(i)) continue;
    const a = d.p[i], b = d.q[i];
    pr += a; qr += b; mr += Math.min(a, b); rr += Math.max(0, a - b); er += Math.max(0, b - a);
  }
  const cols = ids.map((i) => ({ id: i, p: d.p[i], q: d.q[i], min: Math.min(d.p[i], d.q[i]),
    resid: Math.max(0, d.p[i] - d.q[i]), excess: Math.max(0, d.q[i] - d.p[i]) }));
  cols.push({ id: null, p: pr, q: qr, min: mr, resid: rr, excess: er, rest: d.p.length - ids.length });
  return cols;
}

function stackedSVG(d, labels, n, marked) {
  const cols = columnsOf(d, n);
  const ymax = Math.max(...cols.slice(0, -1).map((c) => Math.max(c.p, c.q))) || 1;
  const id = uid("e2-stack");
  for (const c of cols) { c.line1 = `p ${prob(c.p)}`; c.line2 = `q ${prob(c.q)}`; }
  const f = columnFrame(id, `前缀「${d.prefix}」处目标 p 与 ${d.draft} 的 q 叠放：前 ${n} 个 token 加其余折叠`,
    "每一列是一个 token：绿色是 min(p, q)，条纹蓝色是 p 超出 q 的部分，交叉线红色是 q 超出 p 的部分，虚线框的高度是 p。",
    cols, ymax, labels);
  const top = f.base - f.plotH;
  cols.forEach((c, j) => {
    const cx = f.x(j);
    let hs = [c.min * f.scale, c.resid * f.scale, c.excess * f.scale];
    const clipped = Math.max(c.p, c.q) * f.scale > f.plotH;
    if (clipped) {
      const s = (f.plotH - 6) / (Math.max(c.p, c.q) * f.scale);
      hs = hs.map((h) => h * s);
    }
    const name = c.id === null ? `其余 ${num(c.rest)} 个 token` : labels[c.id];
    const g = sv("g", { class: `c13-col${c.id !== null && c.id === marked ? " c13-col-x" : ""}`, "data-token": c.id ?? "rest" },
      sv("title", { text: `${name}：p = ${prob(c.p)}，q = ${prob(c.q)}，min(p, q) = ${prob(c.min)}` }));
    let y = f.base - hs[0];
    g.append(sv("rect", { x: cx, y, width: f.bw, height: hs[0], class: "c13-shared" }));
    if (hs[1] > 0) g.append(sv("rect", { x: cx, y: y - hs[1], width: f.bw, height: hs[1], class: "c13-resid-bar", fill: `url(#${id}-resid)` }));
    if (hs[2] > 0) g.append(sv("rect", { x: cx, y: y - hs[1] - hs[2], width: f.bw, height: hs[2], class: "c13-excess-bar", fill: `url(#${id}-excess)` }));
    g.append(sv("rect", { x: cx - 2, y: f.base - hs[0] - hs[1], width: f.bw + 4, height: hs[0] + hs[1], class: "c13-p-outline" }));
    if (clipped) g.append(sv("text", { x: cx + f.bw / 2, y: top - 6, "text-anchor": "middle", class: "c13-muted c13-fs10", text: "（截断）" }));
    if (c.id !== null && c.id === marked) {
      g.append(sv("text", { x: cx + f.bw / 2, y: f.base - Math.max(hs[0] + hs[1] + hs[2], 0) - 6, "text-anchor": "middle",
        class: "c13-strong c13-fs12 c13-x-mark", text: "x" }));
    }
    f.svg.append(g);
  });
  f.axis();
  return f.svg;
}

function histogramSVG(d, labels, n, counts, total, title) {
  const cols = columnsOf(d, n);
  let restCount = total;
  for (const c of cols.slice(0, -1)) { c.emp = counts[c.id] / total; restCount -= counts[c.id]; }
  cols[cols.length - 1].emp = restCount / total;
  for (const c of cols) { c.line1 = `出 ${prob(c.emp)}`; c.line2 = `p ${prob(c.p)}`; }
  const ymax = Math.max(...cols.slice(0, -1).map((c) => Math.max(c.p, c.emp))) || 1;
  const id = uid("e2-hist");
  const f = columnFrame(id, title, "每一列是一个 token：实心柱是这次运行里输出它的比例，虚线框是目标分布 p 给它的概率。",
    cols, ymax, labels);
  const top = f.base - f.plotH;
  cols.forEach((c, j) => {
    const cx = f.x(j);
    let he = c.emp * f.scale;
    let hp = c.p * f.scale;
    const clipped = Math.max(he, hp) > f.plotH;
    if (clipped) { const s = (f.plotH - 6) / Math.max(he, hp); he *= s; hp *= s; }
    const name = c.id === null ? `其余 ${num(c.rest)} 个 token` : labels[c.id];
    f.svg.append(sv("g", { class: "c13-col", "data-token": c.id ?? "rest" },
      sv("title", { text: `${name}：输出 ${prob(c.emp)}，p = ${prob(c.p)}` }),
      sv("rect", { x: cx + 3, y: f.base - he, width: f.bw - 6, height: he, class: "c13-emp" }),
      sv("rect", { x: cx - 2, y: f.base - hp, width: f.bw + 4, height: hp, class: "c13-p-outline" }),
      clipped ? sv("text", { x: cx + f.bw / 2, y: top - 6, "text-anchor": "middle", class: "c13-muted c13-fs10", text: "（截断）" }) : null));
  });
  f.axis();
  return f.svg;
}

// ---------------------------------------------------------------------------------------------------
// the widget
// ---------------------------------------------------------------------------------------------------

function randomSeed() {
  const a = new Uint32Array(1);
  crypto.getRandomValues(a);
  return 1 + (a[0] % 99_999_999);
}

export function render(section, data) {
  const labels = data.labels;
  const python = data.python;
  const drafts = data.drafts;
  const prefixes = data.prefixes;
  const cache = new Map();

  function dist(prefix, draft) {
    const key = `${prefix}|${draft}`;
    if (!cache.has(key)) {
      const e = data.distributions[prefix];
      const p = unpack(e.p);
      const q = unpack(e.q[draft]);
      if (p.length !== labels.length || q.length !== labels.length) throw new Error("E2: distribution length");
      // the token that "resample from p" under-produces most: α·p(x) − min(p, q)(x) largest
      const alpha = e.alpha[draft];
      let worst = 0, worstGap = -Infinity;
      for (let i = 0; i < p.length; i++) {
        const gap = alpha * p[i] - Math.min(p[i], q[i]);
        if (gap > worstGap) { worstGap = gap; worst = i; }
      }
      cache.set(key, {
        key, prefix, draft, p, q, pJSON: JSON.stringify(p), qJSON: JSON.stringify(q), alpha, sumPQ: e.sum_pq[draft],
        closedTV: e.tv_resample_p_closed_form[draft], offline: data.offline.results[prefix][draft], worst,
        noise: new Map(),
      });
    }
    return cache.get(key);
  }
  function noise(d, n) {
    if (!d.noise.has(n)) d.noise.set(n, expectedNoiseTV(d.p, n));
    return d.noise.get(n);
  }

  const state = { prefix: prefixes[0], draft: drafts[0], tab: 0, prediction: null, running: false, round: new Map(),
    tally: { naive: [0, 0], le: [0, 0], gt: [0, 0], gtExpected: 0 }, marked: null, term: null };
  const current = () => dist(state.prefix, state.draft);

  const live = mount(section, "c13-e2");
  const box = stash(section, staticChildren(section), "静态版本：构建时的叠放图与离线数字");

  // ---- shared controls: prefix, draft, seed
  const radios = (legend, name, values, text, onChange) => el("fieldset", { class: "c13-radios" },
    el("legend", { text: legend }),
    values.map((v, i) => el("label", null,
      el("input", { type: "radio", name, value: v, checked: i === 0, onchange: (e) => { if (e.target.checked) onChange(v); } }),
      ` ${text(v, i)}`)));
  const group = uid("e2");
  const seedInput = el("input", { type: "number", id: `${group}-seed`, min: 0, max: 4294967295, step: 1, value: randomSeed(),
    inputmode: "numeric", class: "c13-seed" });
  const controls = el("div", { class: "c13-controls" },
    radios("前缀", `${group}-prefix`, prefixes, (v) => `「${v}」`, (v) => { state.prefix = v; redraw(); }),
    radios("草稿", `${group}-draft`, drafts, (v, i) => `${v}（${DRAFT_ROLE[i] || "草稿"}）`, (v) => { state.draft = v; redraw(); }),
    el("div", { class: "c13-seed-row" },
      el("label", { for: `${group}-seed`, text: "种子 " }), seedInput,
      el("button", { type: "button", class: "md-button c13-small", text: "换一个种子",
        onclick: () => { seedInput.value = randomSeed(); } })));
  const stats = el("p", { class: "c13-e2-stats" });
  const legend = el("p", { class: "c13-legend" },
    swatch("c13-sw-shared", "绿 min(p, q)：两边共有"), swatch("c13-sw-resid", "条纹蓝 p − q（p 更大处）"),
    swatch("c13-sw-excess", "交叉红 q − p（草稿多给处）"), swatch("c13-sw-p", "虚线框 = p"));
  const picture = el("figure", { class: "c13-fig c13-e2-picture" });
  const status = el("div", { class: "c13-py", role: "status" });
  live.append(controls, stats, legend, picture, status);

  function swatch(cls, text) {
    return el("span", { class: "c13-sw-item" }, el("span", { class: `c13-sw ${cls}`, "aria-hidden": "true" }), text);
  }

  // ---- tabs
  const tablist = el("div", { role: "tablist", "aria-label": "三种方案", class: "c13-tabs" });
  const tabs = [];
  const panels = [];
  TABS.forEach((name, i) => {
    const tab = el("button", { type: "button", role: "tab", id: `${group}-tab-${i}`, "aria-controls": `${group}-panel-${i}`,
      "aria-selected": i === 0 ? "true" : "false", tabindex: i === 0 ? 0 : -1, text: name });
    const panel = el("div", { role: "tabpanel", id: `${group}-panel-${i}`, "aria-labelledby": `${group}-tab-${i}`,
      tabindex: 0, class: "c13-panel", hidden: i !== 0 });
    tab.addEventListener("click", () => selectTab(i));
    tab.addEventListener("keydown", (event) => {
      const next = rovingKey(event, i, TABS.length);
      if (next >= 0) { event.preventDefault(); selectTab(next); tabs[next].focus(); }
    });
    tabs.push(tab);
    panels.push(panel);
    tablist.append(tab);
  });
  live.append(tablist, ...panels);
  function selectTab(i) {
    state.tab = i;
    tabs.forEach((t, j) => { t.setAttribute("aria-selected", j === i ? "true" : "false"); t.tabIndex = j === i ? 0 : -1; });
    panels.forEach((p, j) => { p.hidden = j !== i; });
  }

  const runButtons = [];
  const button = (text, onclick, cls = "") => {
    const b = el("button", { type: "button", class: `md-button ${cls}`.trim(), text, onclick });
    runButtons.push(b);
    return b;
  };

  // ---- ① naive
  const naiveRound = el("div", { class: "c13-round", "aria-live": "polite" });
  const naiveTally = el("p", { class: "c13-tally" });
  const naiveRun = runArea("naive");
  panels[0].append(
    el("p", { text: "草稿从 q 抽一个 x，目标从 p 抽一个 y；两者相等才算猜中，否则取 y。输出永远是目标自己抽的 y，所以分布是对的——" +
      "可是两次独立抽样撞到同一个 token 的概率只有 Σ p(x)·q(x)。" }),
    el("div", { class: "c13-buttons" }, button("跑一轮（朴素）", () => oneRound("naive")),
      button("跑 10,000 轮（朴素）", () => bigRun("naive", 10_000, naiveRun))),
    naiveRound, naiveTally, naiveRun.node);

  // ---- ② where it fails
  const failTable = el("div", { class: "c13-scroll" });
  const failText = el("p");
  panels[1].append(
    el("p", { text: "两个分布重合的部分（上图的绿色，总量 α）其实很大；朴素方案却只有在两边“撞上同一个”时才用得上它。" +
      "下表比较每个 token 被草稿提出并被留下的概率：朴素方案是 q(x)·p(x)，按 min(1, p/q) 接受则是 min(p(x), q(x))。" }),
    failText, failTable,
    el("p", { text: "那么被拒之后该怎么办？最省事的想法是“从 p 重抽”——第 ③ 页先让你预测，再跑给你看。" }));

  // ---- ③ improved
  const roundBox = el("div", { class: "c13-round", "aria-live": "polite" });
  const tallyBox = el("p", { class: "c13-tally" });
  const predictName = `${group}-predict`;
  const predict = el("fieldset", { class: "c13-radios c13-predict" },
    el("legend", { text: "先预测：草稿 token 被拒之后，应该从哪个分布重抽？" }),
    el("label", null, el("input", { type: "radio", name: predictName, value: "resample_p",
      onchange: () => choosePrediction("resample_p") }), " 目标分布 p"),
    el("label", null, el("input", { type: "radio", name: predictName, value: "correct",
      onchange: () => choosePrediction("correct") }), " 残差 norm(max(0, p − q))"));
  const predictHint = el("p", { class: "c13-hint", id: `${group}-predict-hint`, text: "先选一个答案，再跑：你的答案决定这次运行用哪种抽法。" });
  const bigButtons = LIVE_N.map((n, i) => {
    const b = button(i === 0 ? `跑 ${num(n)} 轮` : `×${num(n)}：跑 ${num(n)} 轮`, () => bigRun(state.prediction, n, mainRun));
    b.setAttribute("aria-describedby", predictHint.id);
    b.dataset.n = n;
    return b;
  });
  const mainRun = runArea("main");
  const reproScheme = el("select", { id: `${group}-repro-scheme` },
    ["correct", "resample_p", "direct"].map((s) => el("option", { value: s, text: SCHEME_NAMES[s] })));
  const reproButton = button("按离线检验重跑", () => reproduce());
  const reproOut = el("div", { class: "c13-repro", "aria-live": "polite" });
  const reproInfo = el("p", { class: "c13-hint" });
  reproScheme.addEventListener("change", () => updateRepro());
  const termExplain = el("div", { class: "c13-term-explain", "aria-live": "polite" });
  panels[2].append(
    el("p", { text: "草稿从 q 抽出 x 之后：若 p(x) ≥ q(x)，一律接受；若 q(x) > p(x)，以 p(x)/q(x) 的概率接受。" +
      "被拒时，从 p 超出 q 的那部分（图里的蓝色）里抽。" }),
    el("div", { class: "c13-buttons" }, button("跑一轮", () => oneRound("correct"))),
    roundBox, tallyBox,
    predict, predictHint,
    el("div", { class: "c13-buttons" }, ...bigButtons),
    mainRun.node,
    el("div", { class: "c13-repro-box" },
      el("p", null, el("strong", { text: "复现离线数字。" }),
        "生成器离线跑过每种抽法各 200,000 次（种子记录在数据里）。用同样的种子、同样的次数、同一个 sampler.py 在浏览器里再跑一遍，TV 应当逐位相同。"),
      el("div", { class: "c13-seed-row" }, el("label", { for: reproScheme.id, text: "抽法 " }), reproScheme, reproButton),
      reproInfo, reproOut),
    formulaBlock(termExplain), termExplain);

  // ---- cancel button and progress, shared by every run
  function runArea(name) {
    const progress = el("progress", { max: 1, value: 0, "aria-label": "运行进度", hidden: true });
    const progressText = el("span", { class: "c13-progress-text" });
    const cancel = el("button", { type: "button", class: "md-button c13-small", text: "取消", hidden: true,
      onclick: () => python.cancel() });
    const summary = el("div", { class: "c13-run-summary", "aria-live": "polite", "data-run": name });
    const figure = el("figure", { class: "c13-fig c13-hist" });
    const node = el("div", { class: "c13-run" }, el("div", { class: "c13-progress" }, progress, progressText, cancel), summary, figure);
    return { node, progress, progressText, cancel, summary, figure };
  }

  function setRunning(on) {
    state.running = on;
    for (const b of runButtons) b.disabled = on || (bigButtons.includes(b) && !state.prediction);
    section.dataset.running = on ? "true" : "false";
  }

  function choosePrediction(scheme) {
    state.prediction = scheme;
    predictHint.textContent = scheme === "correct" ? "你的答案：从残差重抽。运行将用改进方案。"
      : "你的答案：从目标分布 p 重抽。运行将用这个答案（“从 p 重抽”）。";
    setRunning(state.running);
  }

  // ---- Pyodide status
  const stages = data.pythonStages || [];
  const statusText = el("span", { class: "c13-py-text" });
  const statusBar = el("progress", { max: stages.length, value: 0, "aria-label": "Pyodide 载入进度" });
  const retry = el("button", { type: "button", class: "md-button c13-small", text: "重试", hidden: true,
    onclick: () => { python.cancel(); python.ensure(); } });
  status.append(statusBar, statusText, retry);
  let ticker = null;
  let unsubscribe = null;
  unsubscribe = python.subscribe((s) => {
    if (!section.isConnected && unsubscribe) {
      // the page changed (instant navigation): this copy of the widget is gone, the worker stays for the next
      clearInterval(ticker);
      unsubscribe();
      return;
    }
    section.dataset.pyodide = s.state;
    if (s.readyMs !== undefined) section.dataset.pyodideReadyMs = String(Math.round(s.readyMs));
    retry.hidden = s.state !== "failed";
    statusBar.hidden = s.state !== "loading";
    status.classList.toggle("c13-py-failed", s.state === "failed");
    if (s.state === "idle") {
      statusText.textContent = "Python 抽样器（Pyodide）还没启动：滚动到这里或按下任一按钮时开始载入（约 10 MB，只载入一次）。";
    } else if (s.state === "loading") {
      statusBar.value = Math.max(0, s.stageIndex);
      const tick = () => {
        if (!section.isConnected) { clearInterval(ticker); return; }
        const secs = ((performance.now() - s.requestedAt) / 1000).toFixed(1);
        const stage = stages[s.stageIndex];
        statusText.textContent = `正在载入 Python 抽样器：第 ${s.stageIndex + 1}/${stages.length} 步，` +
          `${stage ? stage[1] : ""}……已用 ${secs} 秒。`;
      };
      tick();
      clearInterval(ticker);
      ticker = setInterval(tick, 250);
    } else if (s.state === "ready") {
      clearInterval(ticker);
      statusText.textContent = `Python 抽样器已就绪（Pyodide ${s.version}，载入用了 ${(s.readyMs / 1000).toFixed(1)} 秒）。` +
        "每一次抽样都由 sampler.py 完成。";
    } else if (s.state === "failed") {
      clearInterval(ticker);
      statusText.textContent = s.message;
      if (box) box.open = true;
    }
  });

  // start Pyodide when the reader reaches the experiment, or touches it
  const start = () => { if (python.state === "idle" && !python.obstacle()) python.ensure(); };
  for (const type of ["pointerdown", "focusin", "keydown"]) section.addEventListener(type, start, { passive: true });
  if ("IntersectionObserver" in window) {
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) { io.disconnect(); start(); }
    }, { rootMargin: "300px 0px" });
    io.observe(section);
  }
  if (python.obstacle()) {
    // file:// (or no WebAssembly): say so at once; the static version is opened next to it
    python.ensure();
  }

  // ---- one round
  function seedValue() {
    const v = Number(seedInput.value);
    if (!Number.isInteger(v) || v < 0) {
      seedInput.value = randomSeed();
      return Number(seedInput.value);
    }
    return v;
  }

  async function oneRound(scheme) {
    const d = current();
    const seed = seedValue();
    const key = `${d.key}|${scheme}|${seed}`;
    const index = state.round.get(key) ?? 0;
    const out = scheme === "naive" ? naiveRound : roundBox;
    setRunning(true);
    try {
      const rec = await python.round({ key: d.key, p: d.pJSON, q: d.qJSON, scheme, seed, index });
      state.round.set(key, index + 1);
      showRound(out, rec, d, seed, index);
    } catch (err) {
      if (!err.cancelled) fill(out, el("p", { class: "c13-error", text: `这一轮没能跑完：${err.message}` }));
    } finally {
      setRunning(false);
    }
  }

  function showRound(out, rec, d, seed, index) {
    const head = el("p", { class: "c13-round-head", text: `种子 ${seed} 的第 ${index + 1} 轮（前缀「${d.prefix}」，${d.draft}）` });
    const dl = el("dl", { class: "c13-dl" });
    const row = (k, ...v) => dl.append(el("dt", { text: k }), el("dd", null, ...v));
    out.dataset.accepted = String(rec.accepted);
    out.dataset.record = JSON.stringify(rec);
    out.dataset.seed = String(seed);
    out.dataset.index = String(index);
    if (rec.scheme === "naive") {
      row("草稿抽到 x", tok(labels, rec.x), `　q(x) = ${prob(rec.q_x)}`);
      row("目标抽到 y", tok(labels, rec.y), `　p(y) = ${prob(d.p[rec.y])}`);
      row("x = y？", el("strong", { text: rec.accepted ? "相等：猜中，留下" : "不相等：没猜中，取 y" }));
      state.tally.naive[0] += rec.accepted ? 1 : 0;
      state.tally.naive[1] += 1;
      const [a, n] = state.tally.naive;
      naiveTally.textContent = `到目前为止：${n} 轮里猜中 ${a} 轮。长期来看，猜中的比例是 Σ p·q = ${prob(d.sumPQ)}。`;
      fill(out, head, dl);
      return;
    }
    const le = rec.q_x <= rec.p_x;
    row("草稿抽到 x", tok(labels, rec.x));
    row("p(x)、q(x)", `p(x) = ${prob(rec.p_x)}，q(x) = ${prob(rec.q_x)}`);
    row("接受概率", le ? `q(x) ≤ p(x)，所以 min(1, p/q) = 1` : `q(x) > p(x)，所以 p(x)/q(x) = ${fixed(rec.accept_prob, 4)}`);
    row("均匀随机数 u", fixed(rec.u, 4));
    row("判定", el("strong", { text: rec.accepted ? `u < ${fixed(rec.accept_prob, 4)}：✓ 接受，输出 x` : `u ≥ ${fixed(rec.accept_prob, 4)}：✗ 拒绝` }));
    if (!rec.accepted) row("从残差里抽到", tok(labels, rec.resampled), `　p = ${prob(d.p[rec.resampled])}，q = ${prob(d.q[rec.resampled])}`);
    const t = le ? state.tally.le : state.tally.gt;
    t[0] += rec.accepted ? 1 : 0;
    t[1] += 1;
    if (!le) state.tally.gtExpected += rec.accept_prob;
    const gt = state.tally.gt;
    tallyBox.textContent = `q ≤ p 的轮：${state.tally.le[1]} 轮里接受 ${state.tally.le[0]} 轮（总是接受）；` +
      `q > p 的轮：${gt[1]} 轮里接受 ${gt[0]} 轮` +
      (gt[1] ? `（按 p/q 的期望是 ${trim(state.tally.gtExpected, 2)} 轮）。` : "。");
    state.marked = rec.x;
    drawPicture();
    fill(out, head, dl);
  }

  // ---- big runs
  async function bigRun(scheme, n, area) {
    if (!scheme) { predictHint.focus?.(); return; }
    const d = current();
    const seed = seedValue();
    await execute(area, { d, scheme, n, seed, chunk: n >= 100_000 ? 10_000 : 2_000 }, (result, wall) =>
      showRun(area, result, d, wall, area === mainRun));
  }

  async function execute(area, { d, scheme, n, seed, chunk }, done) {
    setRunning(true);
    area.progress.hidden = false;
    area.progress.max = n;
    area.progress.value = 0;
    area.cancel.hidden = false;
    area.progressText.textContent = python.state === "ready" ? `开始：${num(n)} 轮` : "等待 Python 抽样器载入……";
    fill(area.summary);
    delete area.summary.dataset.tv;
    area.summary.dataset.state = "running";
    area.node.dataset.progress = "0";
    const t0 = performance.now();
    try {
      const result = await python.run({ key: d.key, p: d.pJSON, q: d.qJSON, scheme, seed, n, chunk }, (m) => {
        area.node.dataset.progress = String(Number(area.node.dataset.progress) + 1);
        area.progress.value = m.done;
        area.progressText.textContent = `已跑 ${num(m.done)} / ${num(n)} 轮`;
      });
      area.progressText.textContent = `完成：${num(n)} 轮`;
      done(result, performance.now() - t0);
    } catch (err) {
      area.progressText.textContent = err.cancelled ? "已取消。下次运行会重新启动 Python 抽样器。" : `运行失败：${err.message}`;
      area.summary.dataset.state = err.cancelled ? "cancelled" : "failed";
    } finally {
      area.progress.hidden = true;
      area.cancel.hidden = true;
      setRunning(false);
    }
  }

  function showRun(area, r, d, wall, withFeedback) {
    const floor = noise(d, r.n);
    const dl = el("dl", { class: "c13-dl" });
    const row = (k, v) => dl.append(el("dt", { text: k }), el("dd", null, v));
    row("抽法", SCHEME_NAMES[r.scheme]);
    row("种子、次数", `种子 ${r.seed}，${num(r.n)} 轮（前缀「${d.prefix}」，${d.draft}）`);
    row("输出与 p 的 TV 距离", el("strong", { text: fixed(r.tv, 4) }));
    row("噪声基准", `直接从 p 抽 ${num(r.n)} 次，TV 的期望 ≈ ${fixed(floor, 4)}`);
    if (r.scheme === "naive") row("猜中率", `${pct(r.acceptance_rate, 2)}（Σ p·q = ${pct(d.sumPQ, 2)}）`);
    else row("接受率", `${pct(r.acceptance_rate, 1)}（α = ${pct(d.alpha, 1)}）`);
    row("用时", `${Math.round(r.ms)} ms（Python 内），从点击到结果 ${Math.round(wall)} ms`);
    if (r.n >= 100_000 && (r.scheme === "correct" || r.scheme === "resample_p")) {
      const ref = d.offline[r.scheme];
      row("离线参考", `${num(ref.n)} 次（种子 ${ref.seed}）：TV = ${fixed(ref.tv, 4)}；噪声基准 ≈ ${fixed(noise(d, ref.n), 4)}`);
    }
    if (r.scheme === "resample_p") row("闭式偏差", `½·Σ|min(p, q) − α·p| = ${fixed(d.closedTV, 4)}（无穷多次时的 TV）`);
    const nodes = [dl];
    if (withFeedback) {
      const ratio = r.tv / floor;
      let text;
      if (r.scheme === "resample_p") {
        const x = d.worst;
        const emp = r.counts[x] / r.n;
        text = [`TV 是噪声基准的 ${ratio.toFixed(1)} 倍：输出不是 p。共有的那部分被算了两次，目标喜欢而草稿很少提出的 token 出得太少——` +
          "例如 ", tok(labels, x), `：p 给它 ${prob(d.p[x])}，草稿只给 ${prob(d.q[x])}，这次输出只有 ${prob(emp)}。答案应当是残差。`];
      } else {
        text = [`TV 是噪声基准的 ${ratio.toFixed(2)} 倍——和直接从 p 抽一样大，差别只是抽样噪声：输出就是 p。`];
      }
      nodes.push(el("p", { class: `c13-feedback ${r.scheme === "resample_p" ? "c13-bad" : "c13-good"}` },
        el("strong", { text: r.scheme === "resample_p" ? "✗ 偏了。" : "✓ 对了。" }), " ", ...text));
    }
    fill(area.summary, ...nodes);
    Object.assign(area.summary.dataset, { state: "done", tv: String(r.tv), n: String(r.n), seed: String(r.seed),
      scheme: r.scheme, noise: String(floor), acceptance: String(r.acceptance_rate), ms: String(r.ms) });
    const n = picture.dataset.columns ? Number(picture.dataset.columns) : 12;
    fill(area.figure, histogramSVG(d, labels, n, r.counts, r.n,
      `${num(r.n)} 轮的输出直方图（${SCHEME_NAMES[r.scheme]}）与目标分布 p`),
    el("figcaption", { text: "实心柱 = 这次运行里各 token 的输出比例；虚线框 = p。柱子落在框上，输出就是 p。" }));
  }

  // ---- reproduce the offline figure
  function updateRepro() {
    const d = current();
    const ref = d.offline[reproScheme.value];
    reproButton.textContent = `按离线检验重跑（种子 ${ref.seed}，${num(ref.n)} 轮）`;
    reproInfo.textContent = `c13.json 里的离线数字：前缀「${d.prefix}」，${d.draft}，${SCHEME_NAMES[reproScheme.value]}，` +
      `TV = ${ref.tv}`;
  }
  const reproArea = runArea("repro");
  reproOut.append(reproArea.node);
  async function reproduce() {
    const d = current();
    const scheme = reproScheme.value;
    const ref = d.offline[scheme];
    await execute(reproArea, { d, scheme, n: ref.n, seed: ref.seed, chunk: 20_000 }, (r, wall) => {
      const same = r.tv === ref.tv && r.n === ref.n && r.seed === ref.seed;
      const dl = el("dl", { class: "c13-dl" },
        el("dt", { text: "浏览器里的 TV" }), el("dd", null, el("code", { text: String(r.tv) })),
        el("dt", { text: "离线的 TV（c13.json）" }), el("dd", null, el("code", { text: String(ref.tv) })),
        el("dt", { text: "种子、次数" }), el("dd", { text: `种子 ${r.seed}，${num(r.n)} 轮，用时 ${Math.round(r.ms)} ms（从点击起 ${Math.round(wall)} ms）` }));
      fill(reproArea.summary, dl, el("p", { class: `c13-feedback ${same ? "c13-good" : "c13-bad"}` },
        el("strong", { text: same ? "✓ 逐位相同。" : "✗ 不相同。" }),
        same ? "同一个文件、同一个伪随机数生成器、同一个种子，给出同一个数。"
          : "这不该发生：浏览器和离线用的不是同一个抽样器或同一份数据。"));
      Object.assign(reproArea.summary.dataset, { state: "done", tv: String(r.tv), offlineTv: String(ref.tv),
        equal: same ? "true" : "false", seed: String(r.seed), n: String(r.n), scheme });
      fill(reproArea.figure);
    });
  }

  // ---- the formula whose terms explain themselves
  function formulaBlock(explain) {
    const terms = {
      A: ["q(x)·min(1, p(x)/q(x))", "shared"], B: ["(1 − α)", "excess"], C: ["residual(x)", "resid"],
      D: ["min(p, q)(x)", "shared"], E: ["(p(x) − min(p, q)(x))", "resid"],
      F: ["min(p, q)(x)", "shared"], G: ["(1 − α)·p(x)", "p"],
    };
    const buttons = [];
    const term = (k) => {
      const b = el("button", { type: "button", class: "c13-term", "aria-pressed": "false", "data-term": k },
        terms[k][0], el("sup", { text: k }));
      b.addEventListener("click", () => chooseTerm(k));
      buttons.push(b);
      return b;
    };
    const block = el("div", { class: "c13-formula-box" },
      el("p", null, el("strong", { text: "为什么输出恰好是 p。" }), "点公式里带下划线的项，看它的意思和它在叠放图里是哪一块："),
      el("p", { class: "c13-formula" }, "P(x) = ", term("A"), " + ", term("B"), " · ", term("C")),
      el("p", { class: "c13-formula" }, "　　 = ", term("D"), " + ", term("E"), " = p(x)"),
      el("p", { class: "c13-formula c13-formula-wrong" }, "从 p 重抽：P̃(x) = ", term("F"), " + ", term("G"), " ≠ p(x)"));
    chooseTerm.buttons = buttons;
    return block;
  }
  function termText(k) {
    const d = current();
    const a = pct(d.alpha, 1), na = pct(1 - d.alpha, 1);
    return {
      A: `(A) 草稿提出 x 并被接受：提出的概率 q(x) 乘接受的概率 min(1, p(x)/q(x))，等于 min(p(x), q(x))——两个分布共有的部分，图里的绿色。所有绿色加起来就是 α = ${a}。`,
      B: `(B) 这一轮被拒的概率 1 − α = ${na}。它等于所有红色（草稿多给的）之和，也等于所有蓝色（目标多要的）之和：p 和 q 的总和都是 1，两者必然一样大。`,
      C: `(C) 被拒之后抽中 x 的概率：残差分布 max(0, p − q)/(1 − α)，只在 p > q 的地方有质量，形状就是图里的蓝色，除以总量 ${na} 归一。`,
      D: "(D) 等于 (A)：绿色，min(p, q)(x)。",
      E: "(E) 等于 (B) × (C)：1 − α 与残差分母里的 1 − α 约掉，剩下 max(0, p(x) − q(x)) = p(x) − min(p, q)(x)，x 处的蓝色。绿 + 蓝 = p。",
      F: "(F) 错误的变体里，接受的部分不变：仍是绿色。",
      G: `(G) 错误的变体被拒后从 p 重抽，给 x 的是 (1 − α)·p(x)：按整个 p（虚线框）的比例再分一遍 ${na} 的质量。共有的部分被算了两次，蓝色却给少了——TV 偏差的闭式是 ${fixed(d.closedTV, 4)}。`,
    }[k];
  }
  function chooseTerm(k) {
    state.term = state.term === k ? null : k;
    for (const b of chooseTerm.buttons) b.setAttribute("aria-pressed", b.dataset.term === state.term ? "true" : "false");
    fill(termExplain, state.term ? el("p", { text: termText(state.term) }) : null);
    termExplain.dataset.term = state.term || "";
    drawPicture();
  }
  const HIGHLIGHT = { A: "shared", B: "excess", C: "resid", D: "shared", E: "resid", F: "shared", G: "p" };

  // ---- drawing
  function topN() {
    return (live.clientWidth || 800) < 560 ? 7 : 12;
  }
  function drawPicture() {
    const d = current();
    const n = topN();
    const svg = stackedSVG(d, labels, n, state.marked);
    if (state.term) svg.dataset.hl = HIGHLIGHT[state.term];
    picture.dataset.columns = String(n);
    fill(picture, svg, el("figcaption", { text: `前缀「${d.prefix}」，目标 ${data.target} 对 ${d.draft}：两边概率最高的 ${n} 个 token，` +
      `其余折叠为一列（太高时截断，数字照写）。绿 + 蓝 = p；绿 + 红 = q。` + (state.marked !== null ? "标着 x 的一列是最近一轮草稿抽到的 token。" : "") }));
  }
  function drawFailTable() {
    const d = current();
    const ids = topTokens(d.p, d.q, 8);
    const body = el("tbody");
    for (const i of ids) {
      body.append(el("tr", null, el("td", null, tok(labels, i)), el("td", { text: prob(d.p[i] * d.q[i]) }),
        el("td", { text: prob(Math.min(d.p[i], d.q[i])) })));
    }
    body.append(el("tr", { class: "c13-sum" }, el("th", { scope: "row", text: `全部 ${num(d.p.length)} 个 token 之和` }),
      el("td", { text: `Σ p·q = ${prob(d.sumPQ)}` }), el("td", { text: `α = ${prob(d.alpha)}` })));
    fill(failTable, el("table", { class: "c13-mini" },
      el("caption", { text: `前缀「${d.prefix}」，${d.draft}：概率最高的 8 个 token` }),
      el("thead", null, el("tr", null, el("th", { scope: "col", text: "token" }),
        el("th", { scope: "col", text: "朴素：提出且撞上 q·p" }), el("th", { scope: "col", text: "min 规则：提出且接受 min(p, q)" }))),
      body));
    failText.textContent = `在这一对分布上，按 min(1, p/q) 接受能留下 ${pct(d.alpha)} 的草稿 token，朴素方案只留下 ${prob(d.sumPQ)}，` +
      `相差 ${Math.round(d.alpha / d.sumPQ)} 倍。`;
  }
  function redraw() {
    const d = current();
    state.marked = null;
    stats.textContent = `α = Σ min(p, q) = ${pct(d.alpha)}（改进方案里每个草稿 token 的接受率）；Σ p·q = ${prob(d.sumPQ)}（朴素方案的接受率）。`;
    drawPicture();
    drawFailTable();
    updateRepro();
    if (state.term) fill(termExplain, el("p", { text: termText(state.term) }));
    fill(roundBox);
    fill(naiveRound);
    tallyBox.textContent = "";
    naiveTally.textContent = "";
    state.tally = { naive: [0, 0], le: [0, 0], gt: [0, 0], gtExpected: 0 };
  }

  redraw();
  setRunning(false);
  section.classList.add("c13-is-live");
}
