// The entry of the lesson's five experiments (loaded as an ES module by every page; mkdocs.yml).
//
// Once per page view it reads the embedded data (<script type="application/json" id="c13-widget-data">),
// finds each <section class="c13-exp" data-widget="eN">, imports its module (MODULES) and calls render(element, data)
// once. Should the theme's instant navigation ever be switched on, Material's document$ emits for every new
// page and the same happens there. One Pyodide worker serves the whole tab (the `python` object below):
// E2 asks it to start when the reader reaches the experiment, and it lives across page changes.
//
// URLs are derived from this module's own URL, so the site works at / and under a sub-path alike.

const HERE = new URL("./", import.meta.url);          // …/assets/c13/
const SITE_ROOT = new URL("../../", import.meta.url); // the site's root folder
// each experiment's module, relative to this file (E2 is split into a folder by concern)
const MODULES = { e1: "e1.js", e2: "e2/index.js", e3: "e3.js", e4: "e4.js", e5: "e5.js" };
const BUILD_COMMAND = "make site"; // the README's first command

// ---------------------------------------------------------------------------------------------------
// the one Pyodide worker of this tab
// ---------------------------------------------------------------------------------------------------

export const STAGES = [
  ["loader", "下载 Pyodide 加载器"],
  ["runtime", "启动 Python（WebAssembly 运行时与标准库）"],
  ["sampler", "载入 sampler.py"],
];

// A start that shows no progress (no stage, no bytes) for this long has failed. A test may shorten it with
// <html data-c13-stall-ms="…">, read each time the watchdog is set.
const STALL_MS = 45_000;

function stallLimit() {
  const asked = Number(document.documentElement.dataset.c13StallMs);
  return Number.isFinite(asked) && asked > 0 ? asked : STALL_MS;
}

function cancelledError() {
  const err = new Error("已取消");
  err.cancelled = true;
  return err;
}

class PythonHost {
  constructor() {
    this.state = "idle"; // idle | loading | ready | failed
    this.worker = null;
    this.pending = new Map();
    this.waiting = new Set(); // requests waiting for Pyodide to be ready: cancel() settles them
    this.listeners = new Set();
    this.nextId = 1;
    this.readyPromise = null;
    this.info = {};
    this.paths = null;
    this.generation = 0;
    this.watchdog = null;
  }

  serveCommand() {
    return this.paths?.serveCommand || "make serve";
  }

  configure(paths) {
    this.paths = this.paths || paths;
  }

  subscribe(fn) {
    this.listeners.add(fn);
    fn(this.snapshot());
    return () => this.listeners.delete(fn);
  }

  snapshot() {
    return { state: this.state, ...this.info };
  }

  emit(extra) {
    Object.assign(this.info, extra);
    const snap = this.snapshot();
    for (const fn of this.listeners) {
      try {
        fn(snap);
      } catch (err) {
        console.warn("c13: a Pyodide status listener failed", err);
      }
    }
  }

  /** Why Pyodide cannot start here, in words for the reader; null when nothing stands in the way. */
  obstacle() {
    if (location.protocol === "file:") {
      return "直接从磁盘打开（file://）时，浏览器不允许启动 Python。请在项目目录执行 " +
        `${this.serveCommand()}，再用浏览器打开它打印的地址；下面的静态版本（离线数字）仍然可以读。`;
    }
    if (typeof WebAssembly !== "object" || typeof WebAssembly.instantiate !== "function") {
      return "这个浏览器不支持 WebAssembly，无法运行 Python 抽样器。请换用较新的 Chrome、Edge、Firefox 或 Safari；" +
        "下面的静态版本（离线数字）仍然可以读。";
    }
    if (typeof Worker !== "function") {
      return "这个浏览器不支持后台线程（Web Worker），无法运行 Python 抽样器。请换用较新的浏览器。";
    }
    if (!this.paths) return "页面里缺少实验数据（c13-widget-data），无法找到 Pyodide。请重新构建站点。";
    return null;
  }

  /** Start Pyodide (once); resolves when it is ready, rejects with a reader-facing message. */
  ensure() {
    if (this.readyPromise) return this.readyPromise;
    const problem = this.obstacle();
    if (problem) {
      this.state = "failed";
      this.emit({ message: problem, stage: null });
      this.readyPromise = Promise.reject(new Error(problem));
      this.readyPromise.catch(() => {});
      return this.readyPromise;
    }
    this.state = "loading";
    this.info = { requestedAt: performance.now(), stage: STAGES[0][0], stageIndex: 0, message: null, bytes: {} };
    this.emit({});
    this.readyPromise = new Promise((resolve, reject) => {
      this.rejectLoading = reject;
      this.feedWatchdog();
      let worker;
      try {
        worker = new Worker(new URL("pyodide-worker.mjs", HERE), { type: "module", name: "c13-pyodide" });
      } catch (err) {
        this.fail("无法启动后台线程（模块 Worker）：" + (err?.message || err) + "。请换用较新的浏览器。", reject);
        return;
      }
      this.worker = worker;
      worker.onmessage = (event) => this.onMessage(event.data, resolve, reject);
      worker.onerror = (event) => {
        event.preventDefault?.();
        const detail = event.message ? `（${event.message}）` : "";
        if (this.state === "ready") { this.crashed(`后台线程出错${detail}`); return; }
        this.fail(`后台线程文件 pyodide-worker.mjs 加载失败${detail}。站点可能没有完整构建：请在项目目录执行 ` +
          `${BUILD_COMMAND}，再用 ${this.serveCommand()} 打开。下面的静态版本（离线数字）仍然可以读。`, reject);
      };
      worker.postMessage({ type: "init", indexURL: this.paths.indexURL, samplerURL: this.paths.samplerURL });
    });
    this.readyPromise.catch(() => {});
    return this.readyPromise;
  }

  /** Loading made progress: the start fails if nothing more happens for stallLimit() ms. */
  feedWatchdog() {
    clearTimeout(this.watchdog);
    const limit = stallLimit();
    this.watchdog = setTimeout(() => {
      if (this.state !== "loading") return;
      const stage = STAGES[this.info.stageIndex];
      this.fail(`Python 抽样器载入停滞：${Math.round(limit / 1000)} 秒没有任何进展（停在“${stage ? stage[1] : "启动"}”）。` +
        "可能是网络中断，或站点上的 Pyodide 文件不完整；可以重试。下面的静态版本（离线数字）仍然可以读。",
      this.rejectLoading || (() => {}));
    }, limit);
  }

  fail(message, reject) {
    if (this.state !== "loading") return; // a second report of the same failure
    clearTimeout(this.watchdog);
    this.state = "failed";
    if (this.worker) this.worker.terminate();
    this.worker = null;
    this.emit({ message });
    for (const [, req] of this.pending) req.reject(new Error(message));
    this.pending.clear();
    reject(new Error(message));
  }

  onMessage(message, resolve, reject) {
    if (this.state === "loading") this.feedWatchdog();
    if (message.type === "stage") {
      const index = STAGES.findIndex((s) => s[0] === message.stage);
      this.emit({ stage: message.stage, stageIndex: index, detail: message.detail });
    } else if (message.type === "bytes") {
      this.emit({ bytes: { ...this.info.bytes, [message.file]: message.bytes } });
    } else if (message.type === "ready") {
      clearTimeout(this.watchdog);
      this.state = "ready";
      const readyMs = performance.now() - this.info.requestedAt;
      this.emit({ stage: "ready", stageIndex: STAGES.length, version: message.version, workerMs: message.ms, readyMs });
      resolve(this);
    } else if (message.type === "failed") {
      const what = { loader: "Pyodide 的加载器 pyodide.mjs", runtime: "Python 运行时（pyodide.asm.mjs、pyodide.asm.wasm、python_stdlib.zip 之一）",
        sampler: "抽样器 sampler.py" }[message.stage] || "Pyodide";
      this.fail(`${what} 没能载入：${message.message}。请确认站点是完整构建的（在项目目录执行 ${BUILD_COMMAND}），` +
        `并用 ${this.serveCommand()} 打开；下面的静态版本（离线数字）仍然可以读。`, reject);
    } else {
      const req = this.pending.get(message.id);
      if (!req) return;
      if (message.type === "progress") req.onProgress?.(message);
      else if (message.type === "round") this.settle(message.id, () => req.resolve(message.record));
      else if (message.type === "done") this.settle(message.id, () => req.resolve(message.result));
      else if (message.type === "error") this.settle(message.id, () => req.reject(new Error(message.message)));
    }
  }

  settle(id, fn) {
    this.pending.delete(id);
    fn();
  }

  /** Pyodide ready; rejects as cancelled when cancel() comes first (Pyodide itself keeps loading). */
  whenReady() {
    const ready = this.ensure();
    return new Promise((resolve, reject) => {
      const waiter = { reject };
      this.waiting.add(waiter);
      const done = (fn) => (value) => { this.waiting.delete(waiter); fn(value); };
      ready.then(done(resolve), done(reject));
    });
  }

  async request(message, onProgress) {
    const generation = this.generation;
    await this.whenReady();
    if (generation !== this.generation || !this.worker) throw cancelledError(); // never reached the worker
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({ ...message, id });
    });
  }

  /** One round of a seeded stream: round `index` (0-based) of random.Random(seed). */
  round(args) {
    return this.request({ type: "round", ...args });
  }

  /** n rounds; onProgress({done, n, accepted}) after each chunk. Rejects with .cancelled on cancel(). */
  run(args, onProgress) {
    return this.request({ type: "run", ...args }, onProgress);
  }

  /** Stop whatever runs. Requests still waiting for Pyodide are settled as cancelled while Pyodide goes on
   * loading; a running request ends with its worker, and a new worker starts when next needed. */
  cancel() {
    this.generation += 1;
    for (const waiter of this.waiting) waiter.reject(cancelledError());
    this.waiting.clear();
    if (this.state === "loading") return;
    this.stop();
    for (const [, req] of this.pending) req.reject(cancelledError());
    this.pending.clear();
    this.emit({ stage: null, stageIndex: 0, message: null, cancelledAt: performance.now() });
  }

  /** The worker died after a good start: what it was doing fails with the reason, the next request starts anew. */
  crashed(message) {
    this.stop();
    for (const [, req] of this.pending) req.reject(new Error(message));
    this.pending.clear();
    this.emit({ stage: null, stageIndex: 0, message: null });
  }

  /** After a failure: end what is left and start afresh (the status line's 重试). */
  restart() {
    this.cancel();
    if (this.state === "loading") return this.readyPromise;
    return this.ensure();
  }

  stop() {
    clearTimeout(this.watchdog);
    if (this.worker) this.worker.terminate();
    this.worker = null;
    this.readyPromise = null;
    this.state = "idle";
  }
}

export const python = new PythonHost();

// ---------------------------------------------------------------------------------------------------
// page views
// ---------------------------------------------------------------------------------------------------

let cached = { node: null, data: null };

function readData() {
  const node = document.getElementById("c13-widget-data");
  if (!node) return null;
  if (cached.node !== node) {
    const data = JSON.parse(node.textContent);
    data.python = python;
    data.pythonStages = STAGES;
    data.urls = {
      indexURL: new URL(data.pyodide, SITE_ROOT).href,
      samplerURL: new URL(data.sampler, SITE_ROOT).href,
      serveCommand: data.serve_command,
    };
    python.configure(data.urls);
    cached = { node, data };
  }
  return cached.data;
}

async function init() {
  const sections = [...document.querySelectorAll("section.c13-exp[data-widget]")];
  if (!sections.length) return;
  let data;
  try {
    data = readData();
  } catch (err) {
    console.warn("c13: the embedded widget data cannot be read; the static versions stay", err);
    return;
  }
  if (!data) return;
  for (const section of sections) {
    const name = section.dataset.widget;
    if (!Object.hasOwn(MODULES, name) || section.dataset.c13Init) continue;
    section.dataset.c13Init = "started";
    try {
      const module = await import(new URL(MODULES[name], HERE).href);
      module.render(section, data);
      section.dataset.c13Init = "done";
    } catch (err) {
      section.dataset.c13Init = "failed";
      section.querySelectorAll(":scope > .c13-live").forEach((n) => n.remove());
      section.querySelectorAll(":scope > .c13-static-box").forEach((n) => { n.open = true; });
      section.classList.remove("c13-is-live");
      console.warn(`c13: experiment ${name} could not start; its static version stays`, err);
    }
  }
  document.documentElement.dataset.c13Widgets = "ready";
}

if (window.document$ && typeof window.document$.subscribe === "function") {
  window.document$.subscribe(() => { init(); });
} else if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", () => { init(); });
} else {
  init();
}
