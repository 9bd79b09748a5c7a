// E6's worker side: live speculative decoding in the reader's browser. pyodide-worker.mjs imports this module
// (import()) only when the first E6 request arrives, and hands it every E6 message.
//
// A run: fetch tokenizer.json and the two float16 safetensors it needs from the site (progress in bytes; the
// parsed models stay cached for later runs), encode the prompt with the lesson's BPE (tokenizer.mjs), check that
// prompt + nNew + k fits the context, then run the target alone and the speculative loop (speculate.mjs) with
// the same seed, and report every token and round as it happens; then the two loops again, silently and in turn
// (TIMING.runs times each: the verdict's wall clocks), the measuring phase (timing.mjs: blocks of repeated forwards,
// long enough for the browser's coarse clock, for c and v(k)) and the reader's own measurements (spread.mjs).
// Every draw, accept test and greedy pick is a call into widgets/sampler.py in Pyodide, through sampler_bridge.mjs.
//
// Messages in:  {type: "e6-run", id, args: {prompt, draft, k, temperature, nNew, seed}, target, modelsURL, files,
//                sha256, stallMs}       target: the target model's name (c13.json → constants, through the page);
//                                        files: name → bytes; sha256: name → hex (checked before parsing)
//               {type: "e6-measure", id, args: {draft, context, drafted}, target, modelsURL, files, sha256, stallMs}
//                                        the measuring phase again (再测一次) with the models already loaded, at
//                                        the context a run's result gave (result.timing); done: {timing, kernel}
//               {type: "e6-cancel"}      the running job is answered as cancelled at once: its downloads are
//                                        aborted, its loop stops after its current round; what is loaded stays
// Messages out: {type: "e6-event", id, event}   event as in the design (e6-phase, e6-bytes, e6-prompt, …)
//               {type: "done", id, result}       {type: "error", id, message, cancelled}

import { Decoder, loadGPT } from "./forwards.mjs";
import { BPETokenizer } from "./tokenizer.mjs";
import { cancelledError, speculative, targetOnly } from "./speculate.mjs";
import { samplerAdapter } from "./sampler_bridge.mjs";
import { TIMING, measureForwards } from "./timing.mjs";
import { runRoof } from "./roof.mjs";
import { figures } from "./spread.mjs";
import { STALL_MS, fetchBytes, incompleteError, mismatchError, sha256Hex, unreadableError } from "./download.mjs";

export { samplerAdapter, sha256Hex };


/** One run's wall clock and where it went (ms): end to end (the loop's pauses for the event loop left out), the
 * forwards' own time (model = target + draft), the decisions' (sampler), and what it wrote and ran. */
export function runTimes(r) {
  const speculative = Array.isArray(r.rounds);
  return { total: r.ms.total, model: r.ms.target + r.ms.draft, target: r.ms.target, draft: r.ms.draft,
    sampler: r.ms.sampler, tokens: r.tokens.length, targetForwards: speculative ? r.targetForwards : r.forwards,
    draftForwards: speculative ? r.draftForwards : 0, rounds: speculative ? r.rounds.length : 0 };
}

/** What the shown runs counted, and the verdict's runs (runs: {target: [runTimes], speculative: [runTimes]}, pair i
 * = the i-th of each): with the measuring phase's samples, the report's figures (spread.mjs figures; the page
 * recomputes them when 再测一次 adds samples). */
export function runFacts(t, s, k, runs) {
  return {
    k, generated: s.tokens.length, rounds: s.rounds.length, targetForwards: s.targetForwards,
    draftForwards: s.draftForwards,
    tested: s.rounds.reduce((n, r) => n + r.u.length, 0), accepted: s.rounds.reduce((n, r) => n + r.accepted, 0),
    runs,
  };
}

/** Where the measuring phase times the forwards: the prompt and the first half of the target's text (the middle of
 * the run's contexts), and the k tokens that follow it as the drafts to verify (the text again, should it end). */
export function measuringInput(promptIds, text, k) {
  const seq = [...promptIds, ...text];
  const at = promptIds.length + Math.ceil(text.length / 2);
  return { context: seq.slice(0, at), drafted: Array.from({ length: k }, (_, i) => seq[(at + i) % seq.length]) };
}

/** Which forward ran (the model sets `kernel` when it loads one; the plain JavaScript one otherwise). */
function kernelOf(gpt) {
  return { kernel: gpt.kernel ?? "js", simd: gpt.simd ?? null,
    kernelNote: typeof gpt.kernelNote === "string" ? gpt.kernelNote : null };
}

export function contextMessage(promptLength, nNew, k, context) {
  const need = promptLength + nNew + k;
  if (need <= context) return null;
  return `提示 ${promptLength} 个 token + 新 ${nNew} 个 + k = ${k}，共 ${need} 个位置，超过了模型的上下文 ${context}。` +
    "请缩短提示，或减少新 token 数、k。";
}

/** A model whose output is not a finite number (NaN or ∞ in its logits): it is dropped, never used. */
export function nonFiniteError(file) {
  const err = new Error(`${file} 算出的 logits 里有非有限数（NaN 或无穷大）：这个模型文件坏了。它没有被留下；` +
    "按“开始”会重新下载它。如果仍然出错，请在项目目录执行 make site 重新构建站点。");
  err.badFile = file;
  return err;
}

function finiteRows(rows) {
  for (const row of rows) for (let i = 0; i < row.length; i++) if (!Number.isFinite(row[i])) return false;
  return true;
}

/** A Decoder whose every logits row is checked before anything (a softmax, the sampler) reads it. */
export class CheckedDecoder extends Decoder {
  constructor(gpt, file) {
    super(gpt);
    this.file = file;
  }

  logits(tokens, last) {
    const rows = super.logits(tokens, last);
    if (!finiteRows(rows)) throw nonFiniteError(this.file);
    return rows;
  }
}

/** A few untimed forwards so that the first timed ones are not the JIT's (and the kernel's) first; a model whose
 * logits are not finite fails here, before it is kept. */
function warmUp(gpt, file) {
  const decoder = new CheckedDecoder(gpt, file);
  const tokens = Array.from({ length: 8 }, (_, i) => i);
  decoder.probs(tokens, 1);
  for (let i = 0; i < 3; i++) decoder.probs(tokens.concat(Array(i + 1).fill(0)), 1);
}

/** A Python exception's last line (never its traceback), for a message in words. */
function pythonReason(err) {
  const lines = String(err?.message || err).trim().split("\n").filter((l) => l.trim());
  return lines[lines.length - 1] || "unknown error";
}

function isPythonError(err) {
  return err?.constructor?.name === "PythonError" || err?.type !== undefined || /Traceback \(most recent call/.test(String(err?.message));
}

export class Engine {
  /** fetchFn(url) → Response (the worker's fetch, or a reader of files in Node); post(message) to the page; clock
   * and timing (timing.mjs TIMING's settings) for tests. */
  constructor({ pyodide, post, fetchFn, clock, timing }) {
    this.pyodide = pyodide;
    this.post = post;
    this.fetchFn = fetchFn || ((url, init) => fetch(url, init));
    this.clock = clock;
    this.timing = timing;
    this.sampler = null;
    this.cache = new Map(); // file name → Promise of the parsed tokenizer / GPT
    this.loaded = new Set(); // the files whose promise has resolved: what a cancelled run leaves for the next
    this.job = null;         // the running job: {id, cancelled}
  }

  handle(m) {
    if (m.type === "e6-cancel") {
      // settled at once: its downloads are aborted, its loop stops at its next round, and nothing of it is awaited
      const job = this.job;
      if (!job) return;
      job.cancelled = true;
      job.controller.abort(cancelledError());
      this.dropUnfinished();
      job.settle({ type: "error", message: cancelledError().message, cancelled: true, kept: [...this.loaded].sort() });
      return;
    }
    if (m.type !== "e6-run" && m.type !== "e6-measure") throw new Error(`unknown E6 request ${m.type}`);
    if (this.job) {
      this.post({ type: "error", id: m.id, message: "上一次运行还没有结束：请等它结束，或先按“取消”。" });
      return;
    }
    const job = { id: m.id, cancelled: false, controller: new AbortController(), settled: false };
    job.settle = (message) => {
      if (job.settled) return;
      job.settled = true;
      if (this.job === job) this.job = null;
      this.post({ ...message, id: m.id });
    };
    this.job = job;
    const work = m.type === "e6-run" ? this.run(m, job) : this.remeasure(m, job);
    work.then((result) => job.settle({ type: "done", result: { ...result, kept: [...this.loaded].sort() } }),
      (err) => {
      if (err?.stalled || job.cancelled) this.dropUnfinished();
      job.settle({ type: "error", message: err?.message || String(err), cancelled: !!err?.cancelled,
        kept: [...this.loaded].sort() });
    });
  }

  /** Downloads not yet loaded are forgotten: a next run starts them afresh instead of awaiting an aborted one. */
  dropUnfinished() {
    for (const name of [...this.cache.keys()]) if (!this.loaded.has(name)) this.cache.delete(name);
  }

  /** The parsed file `name` (cached: a second run downloads nothing). Its bytes are checked against the sha256
   * the build recorded (sha256[name], when given) before anything parses them; a model whose logits are not finite
   * fails too. A failure keeps nothing: the next run downloads the file again. */
  load(name, modelsURL, files, emit, sha256, options) {
    if (!this.cache.has(name)) {
      const loading = fetchBytes(this.fetchFn, new URL(name, modelsURL).href, name, files?.[name],
        (bytes, total) => emit({ type: "e6-bytes", file: name, bytes, total }), options)
        .then(async (buffer) => {
          const size = files?.[name];
          if (size && buffer.byteLength !== size) throw incompleteError(name, buffer.byteLength, size);
          const want = sha256?.[name];
          if (want && (await sha256Hex(buffer)) !== want) throw mismatchError(name);
          let parsed;
          try {
            parsed = name.endsWith(".json") ? BPETokenizer.fromJSON(JSON.parse(new TextDecoder().decode(buffer)))
              : await loadGPT(buffer);
          } catch (err) {
            throw unreadableError(name, err);
          }
          if (!name.endsWith(".json")) warmUp(parsed, name);
          return parsed;
        })
        .then((parsed) => { if (this.cache.get(name) === loading) this.loaded.add(name); return parsed; });
      // a failed download is tried again next time (unless a later run has started it afresh already)
      loading.catch(() => { if (this.cache.get(name) === loading) this.forget(name); });
      this.cache.set(name, loading);
    }
    return this.cache.get(name);
  }

  /** Drop a file: the next run downloads it again. */
  forget(name) {
    this.cache.delete(name);
    this.loaded.delete(name);
  }

  async models({ args, target, modelsURL, files, sha256 }, emit, options) {
    if (typeof target !== "string" || !target) throw new Error("E6 的请求里没有目标模型的名字。请重新构建站点（make site）。");
    const names = ["tokenizer.json", `${target}.safetensors`, `${args.draft}.safetensors`];
    if (files && !Object.hasOwn(files, names[2])) throw new Error(`没有名为 ${args.draft} 的草稿模型。`);
    const [tokenizer, targetModel, draft] = await Promise.all(names.map((n) => this.load(n, modelsURL, files, emit,
      sha256, options)));
    return { tokenizer, target: targetModel, draft, names };
  }

  /** The measuring phase over fresh decoders of the two models (their first call fills their caches). */
  time({ target, draft, names }, input, emit, cancelled) {
    return measureForwards({ target: new CheckedDecoder(target, names[1]), draft: new CheckedDecoder(draft, names[2]),
      ...input, clock: this.clock, settings: this.timing, cancelled, onRound: (r) => emit({ type: "e6-sample", ...r }) });
  }

  /** 再测一次: the measuring phase again, with the models this worker holds (loaded again should one be gone). */
  async remeasure(m, job) {
    const { args } = m;
    const emit = (event) => this.post({ type: "e6-event", id: m.id, event });
    const held = ["tokenizer.json", `${m.target}.safetensors`, `${args.draft}.safetensors`].every((n) => this.loaded.has(n));
    if (!held) emit({ type: "e6-phase", phase: "weights" }); // a file dropped since the run: downloaded again
    const models = await this.models(m, emit,
      { signal: job.controller.signal, stallMs: Number(m.stallMs) > 0 ? Number(m.stallMs) : STALL_MS });
    if (job.cancelled) throw cancelledError();
    const { context, drafted } = args;
    const config = models.target.config;
    const ids = (a) => Array.isArray(a) && a.length > 0 && a.every((x) => Number.isInteger(x) && x >= 0 && x < config.vocab_size);
    if (!ids(context) || !ids(drafted)) throw new Error("再测一次要用上一次运行的提示和文字，但这次请求里没有：请先按“开始”跑一次。");
    if (context.length + drafted.length > config.block_size) {
      throw new Error(`再测一次的上下文有 ${context.length + drafted.length} 个位置，超过了模型的上下文 ${config.block_size}。请按“开始”重新跑一次。`);
    }
    emit({ type: "e6-phase", phase: "measure" });
    try {
      const timing = await this.time(models, { context, drafted }, emit, () => job.cancelled);
      return { timing: { ...timing, context, drafted }, ...kernelOf(models.target) };
    } catch (err) {
      if (err?.badFile) this.forget(err.badFile);
      throw err;
    }
  }

  /** The verdict's runs: the two loops again, TIMING.runs times each, silently, from the same prompt, seed and
   * length as the shown pair, in turn (target first, then speculative first, and so on: a machine that speeds up or
   * slows down during them weighs on both). → {target: [runTimes], speculative: [runTimes]} */
  async repeat({ target, draft, names }, common, k, stream) {
    const [targetFile, draftFile] = names.slice(1);
    const once = {
      target: async () => runTimes(await targetOnly({ ...common, target: new CheckedDecoder(target, targetFile),
        stream: stream() })),
      speculative: async () => runTimes(await speculative({ ...common, target: new CheckedDecoder(target, targetFile),
        draft: new CheckedDecoder(draft, draftFile), k, stream: stream() })),
    };
    const runs = { target: [], speculative: [] };
    const n = (this.timing ?? TIMING).runs;
    for (let i = 0; i < n; i++) {
      for (const key of i % 2 ? ["speculative", "target"] : ["target", "speculative"]) runs[key].push(await once[key]());
    }
    return runs;
  }

  async run(m, job) {
    const { args } = m;
    const stallMs = Number(m.stallMs) > 0 ? Number(m.stallMs) : STALL_MS;
    const emit = (event) => this.post({ type: "e6-event", id: m.id, event });
    const cancelled = () => job.cancelled;
    const k = Number(args.k), nNew = Number(args.nNew), seed = Number(args.seed ?? 0);
    const temperature = Number(args.temperature);
    if (temperature !== 0 && temperature !== 1) {
      throw new Error(`温度 T = ${args.temperature} 不能用：这里只有 T = 0（每步取最大）和 T = 1（按分布抽）。请选其中一个。`);
    }
    const greedy = temperature === 0;
    if (!(Number.isInteger(k) && k >= 1)) throw new Error(`k = ${args.k}：草稿每轮至少要提议 1 个 token（k 取正整数）。`);
    if (!(Number.isInteger(nNew) && nNew >= 1)) throw new Error(`新 token 数 ${args.nNew} 不是正整数。`);
    emit({ type: "e6-phase", phase: "weights" });
    const models = await this.models(m, emit, { signal: job.controller.signal, stallMs });
    const { tokenizer, target, draft, names } = models;
    if (cancelled()) throw cancelledError();
    this.sampler ??= samplerAdapter(this.pyodide);

    emit({ type: "e6-phase", phase: "encode" });
    const promptIds = tokenizer.encode(String(args.prompt ?? ""));
    if (!promptIds.length) throw new Error("提示是空的：请至少输入一个字。");
    const tooLong = contextMessage(promptIds.length, nNew, k, target.config.block_size);
    if (tooLong) throw new Error(tooLong);
    const labels = {};
    const label = (id) => (labels[id] ??= tokenizer.label(id));
    emit({ type: "e6-prompt", ids: promptIds, labels: promptIds.map(label) });

    const common = { prompt: promptIds, nNew, greedy, sampler: this.sampler, clock: this.clock, cancelled };
    const streams = [];
    const stream = () => (greedy ? null : streams[streams.push(this.sampler.stream(seed)) - 1]);
    try {
      emit({ type: "e6-phase", phase: "target" });
      const [targetFile, draftFile] = names.slice(1);
      const t = await targetOnly({ ...common, target: new CheckedDecoder(target, targetFile), stream: stream(),
        onToken: ({ index, token }) => emit({ type: "e6-token", index, token, label: label(token) }) });
      emit({ type: "e6-phase", phase: "speculative" });
      const s = await speculative({ ...common, target: new CheckedDecoder(target, targetFile),
        draft: new CheckedDecoder(draft, draftFile), k, stream: stream(), onRound: (r) => emit(roundEvent(r, label, greedy)) });
      emit({ type: "e6-phase", phase: "repeat" });
      const runs = await this.repeat(models, common, k, stream);
      emit({ type: "e6-phase", phase: "measure" });
      const input = measuringInput(promptIds, t.tokens, k);
      const timing = { ...(await this.time(models, input, emit, cancelled)), ...input };
      emit({ type: "e6-phase", phase: "roof" });
      return { ...result({ t, s, runs, timing, tokenizer, promptIds, labels, label,
        args: { ...args, k, nNew, seed } }),
        ...kernelOf(target),
        roof: await runRoof(models, { clock: this.clock, cancelled }) }; // the reader's roofline (roof.mjs)
    } catch (err) {
      if (err?.badFile) this.forget(err.badFile);
      if (err?.cancelled || !isPythonError(err)) throw err;
      // the sampler refused what the models gave it: said in words, and neither model is kept
      for (const name of names.slice(1)) this.forget(name);
      throw new Error(`抽样器 sampler.py 拒绝了模型算出的概率（${pythonReason(err)}），可能是模型文件坏了。` +
        `${names.slice(1).join(" 和 ")} 没有被留下，按“开始”会重新下载。如果仍然出错，请在项目目录执行 make site 重新构建站点。`);
    } finally {
      for (const s of streams) s.destroy();
    }
  }
}

function roundEvent(r, label, greedy) {
  return {
    type: "e6-round", index: r.index, drafted: r.draft, draftLabels: r.draft.map(label), accepted: r.accepted,
    kind: r.kind, token: r.token, label: label(r.token), acceptProb: greedy ? null : r.accept_prob, u: r.u,
    drawU: r.draw_u, finalU: r.final_u, p: r.p, q: r.q, yield: r.yield, ms: r.ms,
  };
}

function result({ t, s, runs, timing, tokenizer, promptIds, labels, label, args }) {
  const nNew = args.nNew;
  const facts = runFacts(t, s, args.k, runs);
  const shown = s.tokens.slice(0, nNew); // the last round may overshoot nNew, as in speculative_run
  shown.forEach(label);
  t.tokens.forEach(label);
  return {
    promptIds, labels,
    text: { prompt: tokenizer.decode(promptIds), target: tokenizer.decode(t.tokens), speculative: tokenizer.decode(shown) },
    target: { tokens: t.tokens, forwards: t.forwards, ms: t.ms },
    speculative: { tokens: shown, generated: s.tokens.length, rounds: s.rounds.length, targetForwards: s.targetForwards,
      draftForwards: s.draftForwards, ms: s.ms },
    facts, timing, measured: figures(timing.samples, facts),
    identical: t.tokens.length === shown.length && t.tokens.every((x, i) => x === shown[i]),
    temperature: Number(args.temperature), k: args.k, draft: args.draft, seed: args.seed, nNew,
  };
}

let engine = null;

/** The worker's entry: one Engine per worker, over its Pyodide. */
export function handle(m, pyodide, post) {
  engine ??= new Engine({ pyodide, post });
  engine.handle(m);
}
