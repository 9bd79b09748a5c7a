// The one Pyodide worker of the tab (`python`, data.python in every experiment): E2's sampler runs and E6's live
// speculative decoding (e6Run / e6Measure / e6Cancel). The worker (pyodide-worker.mjs) loads Pyodide from the
// site's own copy and imports widgets/sampler.py; this side starts it when first asked, watches the loading (a
// watchdog, and every failure in words for the reader), and routes the worker's answers to the requests that asked.

import { decodeProbs } from "./c13-util.js";
import { CANCEL_MS, Task, cancelledError, workerError } from "./python-task.mjs";

const HERE = new URL("./", import.meta.url);          // …/assets/c13/
const BUILD_COMMAND = "make site"; // the README's first command

// Pyodide's loading steps, in order: [key the worker sends, what the reader is told]
export const PYODIDE_STEPS = [
  ["loader", "下载 Pyodide 加载器"],
  ["runtime", "启动 Python（WebAssembly 运行时与标准库）"],
  ["sampler", "载入 sampler.py"],
];

// Pyodide's start has stalled when, for this long, the worker waits on a download (its heartbeat says which) and
// nothing at all comes in, or when the worker is not heard from at all. A test may shorten it with
// <html data-c13-stall-ms="…">, read each time the watchdog is set. Compiling the WebAssembly and starting Python send
// no step and no byte, for a minute or more on a slow device (its thread too busy even for the heartbeat): that is
// busy, not stalled, and fails only after BUSY_FACTOR times the bound without a step or a byte (a start that hangs).
const STALL_MS = 45_000;
const BUSY_FACTOR = 8;

function stallLimit() {
  const asked = Number(document.documentElement.dataset.c13StallMs);
  return Number.isFinite(asked) && asked > 0 ? asked : STALL_MS;
}

// Right after "ready" the worker warms its runtime up on E2's default pair (see pyodide-worker.mjs): as many rounds
// as a ×100,000 run, so that every function such a run calls has run hot (about a tenth of a second on a desktop,
// and a run pressed meanwhile stops it). A test may change it with <html data-c13-warmup-rounds="…"> (0: none).
const WARMUP_ROUNDS = 100_000;

/** E2's default pair (its first prefix and first draft) as E2 sends it — the same key and the same JSON texts
 * (distributions.js), so the Pair the warm-up builds is the one the reader's first run finds cached. */
function warmupPair() {
  const asked = document.documentElement.dataset.c13WarmupRounds;
  const rounds = asked === undefined ? WARMUP_ROUNDS : Number(asked);
  if (!(rounds > 0)) return null;
  try {
    const data = JSON.parse(document.getElementById("c13-widget-data")?.textContent || "null");
    const prefix = data?.prefixes?.[0];
    const draft = data?.drafts?.[0];
    const entry = data?.distributions?.[prefix];
    if (!entry?.q?.[draft]) return null;
    return { key: `${prefix}|${draft}`, p: JSON.stringify(decodeProbs(entry.p)),
      q: JSON.stringify(decodeProbs(entry.q[draft])), rounds };
  } catch (err) {
    return null; // no warm-up: the first run is only slower
  }
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
    this.e6 = null; // E6's running job: {id, cancelled, abort, watchdog, fallback}
    this.e6Kept = []; // the files the worker said it holds, loaded and checked, at the end of E6's last run
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
      this.readyPromise = Promise.reject(new Error(problem));
      this.readyPromise.catch(() => {});
      this.emit({ message: problem, step: null }); // after the promise is kept: a listener may ask again
      return this.readyPromise;
    }
    this.state = "loading";
    this.info = { requestedAt: performance.now(), step: PYODIDE_STEPS[0][0], stepIndex: 0, message: null, bytes: {} };
    this.heard = false; // a first word from the worker: from then on, its heartbeat tells a stall from a busy start
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
      worker.postMessage({ type: "init", indexURL: this.paths.indexURL, samplerURL: this.paths.samplerURL,
        warmup: warmupPair(), stallMs: stallLimit() });
    });
    this.readyPromise.catch(() => {});
    // listeners hear of the start only now that the promise is kept: one that asks Python at once (the editable
    // pair does) must find this start, not begin a second worker
    if (this.state === "loading") this.emit({});
    return this.readyPromise;
  }

  /** Loading made progress (a step, bytes): the start fails after stallLimit() ms more without any until the worker
   * is first heard from, BUSY_FACTOR times that from then on (its heartbeat tells a stalled download sooner). */
  feedWatchdog() {
    clearTimeout(this.watchdog);
    const busy = this.heard;
    const limit = busy ? stallLimit() * BUSY_FACTOR : stallLimit();
    this.watchdog = setTimeout(() => this.stalled(limit, null, (busy ? "这台设备可能太慢或太忙（可以关掉别的标签页或程序）" :
      "可能是网络中断") + "，或站点上的 Pyodide 文件不完整；可以重试。"), limit);
  }

  /** The start stalled; `waiting`: the files whose download received nothing (the heartbeat's), or null. */
  stalled(limit, waiting, why) {
    const step = PYODIDE_STEPS[this.info.stepIndex];
    const files = waiting ? `，一直在等 ${waiting.join("、")} 的数据` : "";
    this.fail(`Python 抽样器载入停滞：${Math.round(limit / 1000)} 秒没有任何进展（停在“${step ? step[1] : "启动"}”${files}）。` +
      why + "下面的静态版本（离线数字）仍然可以读。", this.rejectLoading || (() => {}));
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
    if (this.state === "loading" && (!this.heard || message.type === "step" || message.type === "bytes")) {
      this.heard = true;
      this.feedWatchdog();
    }
    if (message.type === "alive") { // the heartbeat: a download that receives nothing for stallLimit() ms fails
      const waiting = Array.isArray(message.waiting) ? message.waiting : [];
      if (this.state === "loading" && waiting.length && message.waitedMs >= stallLimit()) {
        this.stalled(stallLimit(), waiting, "可能是网络中断，或服务器没有应答；可以重试。");
      }
    } else if (message.type === "step") {
      const index = PYODIDE_STEPS.findIndex((s) => s[0] === message.step);
      this.emit({ step: message.step, stepIndex: index, detail: message.detail });
    } else if (message.type === "bytes") {
      this.emit({ bytes: { ...this.info.bytes, [message.file]: message.bytes } });
    } else if (message.type === "ready") {
      clearTimeout(this.watchdog);
      this.state = "ready";
      const readyMs = performance.now() - this.info.requestedAt;
      this.emit({ step: "ready", stepIndex: PYODIDE_STEPS.length, version: message.version, workerMs: message.ms, readyMs });
      resolve(this);
    } else if (message.type === "warmup") {
      this.emit({ warmup: { ms: message.ms, rounds: message.rounds, stopped: message.stopped } });
    } else if (message.type === "failed") {
      const what = { loader: "Pyodide 的加载器 pyodide.mjs", runtime: "Python 运行时（pyodide.asm.mjs、pyodide.asm.wasm、python_stdlib.zip 之一）",
        sampler: "抽样器 sampler.py" }[message.step] || "Pyodide";
      this.fail(`${what} 没能载入：${message.message}。请确认站点是完整构建的（在项目目录执行 ${BUILD_COMMAND}），` +
        `并用 ${this.serveCommand()} 打开；下面的静态版本（离线数字）仍然可以读。`, reject);
    } else {
      const req = this.pending.get(message.id);
      if (!req) return;
      if (message.type === "progress") req.onProgress?.(message);
      else if (message.type === "e6-event") req.onEvent?.(message.event);
      else if (message.type === "round") this.settle(message.id, () => req.resolve(message.record));
      else if (message.type === "done") this.settle(message.id, () => req.resolve(message.result));
      else if (message.type === "error") this.settle(message.id, () => req.reject(workerError(message)));
    }
  }

  settle(id, fn) {
    this.pending.delete(id);
    fn();
  }

  /** A new task: pass it to round(), run() or request(), and task.cancel() stops those requests only. */
  task() {
    return new Task(this);
  }

  /** Pyodide ready; rejects as cancelled when cancel() (or the task's cancel) comes first (Pyodide keeps loading). */
  whenReady(task) {
    const ready = this.ensure();
    return new Promise((resolve, reject) => {
      const waiter = { reject };
      this.waiting.add(waiter);
      task?.waiters.add(waiter);
      const done = (fn) => (value) => { this.waiting.delete(waiter); task?.waiters.delete(waiter); fn(value); };
      ready.then(done(resolve), done(reject));
    });
  }

  async request(message, onProgress, task) {
    if (task?.cancelled) throw cancelledError();
    const generation = this.generation;
    await this.whenReady(task);
    if (generation !== this.generation || !this.worker || task?.cancelled) throw cancelledError(); // never sent
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const forget = () => task?.ids.delete(id);
      this.pending.set(id, { onProgress, resolve: (v) => { forget(); resolve(v); },
        reject: (e) => { forget(); reject(e); } });
      task?.ids.add(id);
      this.worker.postMessage({ ...message, id });
    });
  }

  /** One request settled as cancelled at once; the worker is told to drop it. */
  cancelRequest(id) {
    const req = this.pending.get(id);
    if (!req) return;
    this.pending.delete(id);
    this.worker?.postMessage({ type: "cancel", id });
    req.reject(cancelledError());
  }

  /** One round of a seeded stream: round `index` (0-based) of random.Random(seed). */
  round(args, task) {
    return this.request({ type: "round", ...args }, undefined, task);
  }

  /** n rounds; onProgress({done, n, accepted}) after each chunk. Rejects with .cancelled on task.cancel() (that
   * run only) or cancel() (everything). */
  run(args, onProgress, task) {
    return this.request({ type: "run", ...args }, onProgress, task);
  }

  /** E6: live speculative decoding in the worker (e6/engine.mjs; the page ↔ worker API of the E6 design).
   * Starts Pyodide if needed; onEvent gets {type: "e6-phase" | "e6-bytes" | "e6-prompt" | "e6-token" | "e6-round", …}.
   * Resolves with the run's result; rejects with a reader-facing Error, `.cancelled` after e6Cancel(). `type`
   * "e6-measure" asks for the measuring phase alone (e6Measure). */
  async e6Run(args, onEvent, type = "e6-run") {
    if (this.e6) throw new Error("E6 还在运行：请等它结束，或先取消。");
    const job = (this.e6 = { id: null, cancelled: false, abort: null, watchdog: null, fallback: null });
    const aborted = new Promise((resolve, reject) => {
      job.abort = () => { const err = cancelledError(); err.kept = this.e6Kept; reject(err); };
    });
    aborted.catch(() => {});
    try {
      if (this.state !== "ready") onEvent?.({ type: "e6-phase", phase: "python" });
      // after a failed start, running E6 is the reader's retry (E2's status line offers the same)
      await Promise.race([this.state === "failed" ? this.restart() : this.ensure(), aborted]);
      if (job.cancelled) throw cancelledError();
      const e6 = this.paths?.e6;
      if (!e6) throw new Error("页面里缺少 E6 的数据（模型文件的位置）。请重新构建站点（make site）。");
      if (!this.worker) throw cancelledError();
      return await Promise.race([aborted, new Promise((resolve, reject) => {
        job.id = this.nextId++;
        const onEventFed = (event) => { this.feedE6Watchdog(job, reject); onEvent?.(event); };
        const keep = (kept) => { if (Array.isArray(kept)) this.e6Kept = kept; };
        this.pending.set(job.id, { onEvent: onEventFed, resolve: (r) => { keep(r?.kept); resolve(r); },
          reject: (err) => { keep(err.kept); reject(err); } });
        this.feedE6Watchdog(job, reject);
        this.worker.postMessage({ type, id: job.id, args, target: e6.target, modelsURL: e6.modelsURL, files: e6.files,
          sha256: e6.sha256, stallMs: stallLimit() });
      })]);
    } finally {
      clearTimeout(job.watchdog);
      clearTimeout(job.fallback);
      if (job.id !== null) this.pending.delete(job.id);
      if (this.e6 === job) this.e6 = null;
    }
  }

  /** E6's 再测一次: the measuring phase again in the worker, with the models it holds; args {draft, context, drafted}
   * (a run's result.timing). Cancelled by e6Cancel() as a run is; resolves with {timing, kernel, kernelNote}. */
  e6Measure(args, onEvent) {
    return this.e6Run(args, onEvent, "e6-measure");
  }

  /** A running E6 job that shows nothing for a while has failed (a stuck run). A download that stops is the
   * engine's to report (it names the file, after stallLimit()); this is the backstop, a little later. */
  feedE6Watchdog(job, reject) {
    clearTimeout(job.watchdog);
    const limit = Math.round(stallLimit() * 1.5) + 1000;
    job.watchdog = setTimeout(() => {
      this.worker?.postMessage({ type: "e6-cancel" });
      reject(new Error(`E6 停滞：${Math.round(limit / 1000)} 秒没有任何进展。可能是网络中断，或站点上的模型文件不完整；可以重试。`));
    }, limit);
  }

  /** Stop E6's run: the worker answers at once (its downloads aborted, its loop stopped after the current round;
   * the loaded weights and Pyodide stay). Should the worker be busy, the run is settled here after CANCEL_MS all the
   * same. While Pyodide is still loading, the run is dropped at once and Pyodide goes on loading. */
  e6Cancel() {
    const job = this.e6;
    if (!job || job.cancelled) return;
    job.cancelled = true;
    if (job.id === null) { job.abort(); return; }
    this.worker?.postMessage({ type: "e6-cancel" });
    job.fallback = setTimeout(job.abort, CANCEL_MS);
  }

  /** Stop everything (every experiment's requests, E6's loaded models with the worker): only a restart after a
   * failure and tests call it; an experiment's 取消 cancels its own task. Requests still waiting for Pyodide are
   * settled as cancelled while Pyodide goes on loading; a running request ends with its worker, and a new worker
   * starts when next needed. */
  cancel() {
    this.generation += 1;
    for (const waiter of this.waiting) waiter.reject(cancelledError());
    this.waiting.clear();
    if (this.state === "loading") return;
    this.stop();
    for (const [, req] of this.pending) req.reject(cancelledError());
    this.pending.clear();
    this.emit({ step: null, stepIndex: 0, message: null, cancelledAt: performance.now() });
  }

  /** The worker died after a good start: what it was doing fails with the reason, the next request starts anew. */
  crashed(message) {
    this.stop();
    for (const [, req] of this.pending) req.reject(new Error(message));
    this.pending.clear();
    this.emit({ step: null, stepIndex: 0, message: null });
  }

  /** After a failure: end what is left and start afresh (the status line's 重试). */
  restart() {
    this.cancel();
    if (this.state === "loading") return this.readyPromise;
    return this.ensure();
  }

  stop() {
    clearTimeout(this.watchdog);
    this.e6Kept = []; // a new worker holds nothing
    if (this.worker) this.worker.terminate();
    this.worker = null;
    this.readyPromise = null;
    this.state = "idle";
  }
}

export const python = new PythonHost();
