// E2's line about the Python sampler (Pyodide in the tab's one worker): idle, loading with its steps and
// seconds, ready, or failed with the reader-facing message and a retry button. Pyodide starts when the reader
// reaches the experiment (or touches it); on file:// the obstacle is said at once.
import { el, fixed } from "../c13-util.js";

const TICK_MS = 250;
const START_MARGIN = "300px 0px"; // start loading a little before the experiment scrolls into view
const MB = 1e6;

/** Megabytes with one decimal: "13.5 MB". */
export function megabytes(bytes) {
  return `${fixed(bytes / MB, 1)} MB`;
}

/** The size of what starting Pyodide fetches: the sum of the files' sizes, written into the page at build time. */
function totalBytes(sizes) {
  return Object.values(sizes || {}).reduce((a, b) => a + b, 0);
}

function describe(snapshot, steps, sizes) {
  const total = totalBytes(sizes);
  if (snapshot.state === "idle") {
    return "Python 抽样器（Pyodide）还没启动：滚动到这里或按下任一按钮时开始载入" +
      `（共 ${megabytes(total)}，只载入一次）。`;
  }
  if (snapshot.state === "loading") {
    const seconds = ((performance.now() - snapshot.requestedAt) / 1000).toFixed(1);
    const step = steps[snapshot.stepIndex];
    const got = totalBytes(snapshot.bytes);
    const bytes = got > 0 ? `已收到 ${megabytes(got)}（共 ${megabytes(total)}），` : "";
    return `正在载入 Python 抽样器：第 ${snapshot.stepIndex + 1}/${steps.length} 步，${step ? step[1] : ""}……` +
      `${bytes}已用 ${seconds} 秒。`;
  }
  if (snapshot.state === "ready") {
    return `Python 抽样器已就绪（Pyodide ${snapshot.version}，载入用了 ${(snapshot.readyMs / 1000).toFixed(1)} 秒）。` +
      "每一次抽样都由 sampler.py 完成。";
  }
  return snapshot.message;
}

/** Fill `status` and keep it current; onFailed() runs when Pyodide cannot start (the static version opens). */
export function pythonStatus(section, status, python, { steps, sizes }, onFailed) {
  const text = el("span", { class: "c13-py-text", tabindex: -1 });
  const bar = el("progress", { max: steps.length, value: 0, "aria-label": "Pyodide 载入进度" });
  const retry = el("button", { type: "button", class: "md-button c13-small", text: "重试", hidden: true,
    onclick: () => { python.restart(); } });
  status.append(bar, text, retry);
  let ticker = null;
  let unsubscribe = null;
  unsubscribe = python.subscribe((snapshot) => {
    if (!section.isConnected && unsubscribe) {
      // the page changed (instant navigation): this copy of the widget is gone, the worker stays for the next
      clearInterval(ticker);
      unsubscribe();
      return;
    }
    section.dataset.pyodide = snapshot.state;
    if (snapshot.readyMs !== undefined) section.dataset.pyodideReadyMs = String(Math.round(snapshot.readyMs));
    // the retry button hides once pressed: the keyboard focus goes to the line it belonged to, not to <body>
    if (snapshot.state !== "failed" && document.activeElement === retry) text.focus();
    retry.hidden = snapshot.state !== "failed";
    bar.hidden = snapshot.state !== "loading";
    status.classList.toggle("c13-py-failed", snapshot.state === "failed");
    clearInterval(ticker);
    text.textContent = describe(snapshot, steps, sizes);
    if (snapshot.state === "loading") {
      bar.value = Math.max(0, snapshot.stepIndex);
      ticker = setInterval(() => {
        if (!section.isConnected) { clearInterval(ticker); return; }
        text.textContent = describe(snapshot, steps, sizes);
      }, TICK_MS);
    } else if (snapshot.state === "failed") {
      onFailed();
    }
  });
}

/** Start Pyodide when the reader reaches the experiment, or touches it; say the obstacle at once if any. */
export function startWhenReached(section, python) {
  const start = () => { if (python.state === "idle" && !python.obstacle()) python.ensure(); };
  for (const type of ["pointerdown", "focusin", "keydown"]) section.addEventListener(type, start, { passive: true });
  if ("IntersectionObserver" in window) {
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) { observer.disconnect(); start(); }
    }, { rootMargin: START_MARGIN });
    observer.observe(section);
  }
  if (python.obstacle()) python.ensure(); // file:// (or no WebAssembly): the message shows at once
}
