// E6's worker side: live speculative decoding in the reader's browser. pyodide-worker.mjs imports this module
// (import()) only when the first E6 request arrives, and hands it every E6 message.
//
// A run: fetch tokenizer.json and the two float16 safetensors it needs from the site (progress in bytes; the
// parsed models stay cached for later runs), encode the prompt with the lesson's BPE (tokenizer.mjs), check that
// prompt + nNew + k fits the context, then run the target alone and the speculative loop (speculate.mjs) with
// the same seed, and report every token and round as it happens, then the reader's own measurements.
// Every draw, accept test and greedy pick is a call into widgets/sampler.py in Pyodide, through the glue below.
//
// Messages in:  {type: "e6-run", id, args: {prompt, draft, k, temperature, nNew, seed}, modelsURL, files}
//               {type: "e6-cancel"}      the running job stops after its current round
// Messages out: {type: "e6-event", id, event}   event as in the design (e6-stage, e6-bytes, e6-prompt, …)
//               {type: "done", id, result}       {type: "error", id, message, cancelled}

import { GPT, Decoder } from "./model.mjs";
import { BPETokenizer } from "./tokenizer.mjs";
import { cancelledError, speculative, targetOnly } from "./speculate.mjs";

const TARGET = "ref_baseline";
const BYTES_EVERY_MS = 100;

// The glue over sampler.py (already imported as `sampler` by the worker). A JS Float64Array row arrives as a
// JsProxy; array('d', its bytes) holds the very same doubles for one memcpy (tolist() would build 2,048 float
// objects, ~0.2 ms in Pyodide), and the sampler's functions read it as they read a list.
const GLUE = `
import json, random
from array import array
import sampler


def _row(a):
    return array("d", a.to_bytes())


def e6_stream(seed):
    return random.Random(seed)


def e6_draw(stream, row):
    u = stream.random()
    return (sampler.draw(_row(row), u), u)


def e6_greedy_pick(row):
    return sampler.greedy_pick(_row(row))


def e6_verify(stream, p_rows, q_rows, drafted):
    rec = sampler.verify([_row(r) for r in p_rows], [_row(r) for r in q_rows], [int(x) for x in drafted], stream)
    return json.dumps(rec)
`;

/** The sampler adapter speculate.mjs calls: every decision made by sampler.py in Pyodide. */
export function samplerAdapter(pyodide) {
  pyodide.runPython(GLUE);
  const fn = Object.fromEntries(["e6_stream", "e6_draw", "e6_greedy_pick", "e6_verify"]
    .map((name) => [name, pyodide.globals.get(name)]));
  return {
    stream: (seed) => fn.e6_stream(seed),
    draw(stream, row) {
      const pair = fn.e6_draw(stream, row);
      const [token, u] = pair.toJs();
      pair.destroy();
      return { token, u };
    },
    greedyPick: (row) => fn.e6_greedy_pick(row),
    // JS null would arrive as a JsNull; undefined arrives as None (T = 0: verify's rng=None)
    verify: (stream, pRows, qRows, drafted) => JSON.parse(fn.e6_verify(stream ?? undefined, pRows, qRows, drafted)),
  };
}

export function median(values) {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Forward times without the run's first, which also reads the whole prompt (prefill). */
const steady = (ms) => (ms.length > 1 ? ms.slice(1) : ms);

/** The reader's measurements from the two runs (see the design: c, v, α, speedups on model time and end to end). */
export function measure(t, s) {
  const targetMs = median(steady(t.targetSingleMs));
  const draftMs = median(steady(s.draftMs));
  const verifyMs = median(steady(s.verifyMs));
  const tested = s.rounds.reduce((n, r) => n + r.u.length, 0);
  const accepted = s.rounds.reduce((n, r) => n + r.accepted, 0);
  const perToken = (ms, run) => ms / run.tokens.length;
  return {
    targetMs, draftMs, c: draftMs / targetMs, verifyMs, v: verifyMs / targetMs,
    accepted, tested, alpha: tested ? accepted / tested : null,
    tokensPerTargetForward: s.tokens.length / s.targetForwards,
    speedupModel: perToken(t.ms.target, t) / perToken(s.ms.target + s.ms.draft, s),
    speedupEndToEnd: perToken(t.ms.total, t) / perToken(s.ms.total, s),
  };
}

export function contextMessage(promptLength, nNew, k, context) {
  const need = promptLength + nNew + k;
  if (need <= context) return null;
  return `提示 ${promptLength} 个 token + 新 ${nNew} 个 + k = ${k}，共 ${need} 个位置，超过了模型的上下文 ${context}。` +
    "请缩短提示，或减少新 token 数、k。";
}

/** An ArrayBuffer from url, reporting onBytes(bytes, total) while it arrives. */
async function fetchBytes(fetchFn, url, file, total, onBytes) {
  let response;
  try {
    response = await fetchFn(url);
  } catch (err) {
    throw new Error(`${file} 下载失败（${err?.message || err}）。网络可能中断了，可以重试。`);
  }
  if (!response.ok) {
    throw new Error(`${file} 下载失败（HTTP ${response.status}）。站点可能没有完整构建：请在项目目录执行 make site 后重试。`);
  }
  const size = total || Number(response.headers.get("Content-Length")) || null;
  if (!response.body) {
    const buffer = await response.arrayBuffer();
    onBytes(buffer.byteLength, size);
    return buffer;
  }
  const reader = response.body.getReader();
  const chunks = [];
  let got = 0;
  let last = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    got += value.byteLength;
    const now = performance.now();
    if (now - last > BYTES_EVERY_MS) { last = now; onBytes(got, size); }
  }
  onBytes(got, size);
  const out = new Uint8Array(got);
  let at = 0;
  for (const chunk of chunks) { out.set(chunk, at); at += chunk.byteLength; }
  return out.buffer;
}

/** A few untimed forwards so that the first timed ones are not the JIT's (and the kernel's) first. */
function warmUp(gpt) {
  const decoder = new Decoder(gpt);
  const tokens = Array.from({ length: 8 }, (_, i) => i);
  decoder.probs(tokens, 1);
  for (let i = 0; i < 3; i++) decoder.probs(tokens.concat(Array(i + 1).fill(0)), 1);
}

export class Engine {
  /** fetchFn(url) → Response (the worker's fetch, or a reader of files in Node); post(message) to the page. */
  constructor({ pyodide, post, fetchFn, clock }) {
    this.pyodide = pyodide;
    this.post = post;
    this.fetchFn = fetchFn || ((url) => fetch(url));
    this.clock = clock;
    this.sampler = null;
    this.cache = new Map(); // file name → Promise of the parsed tokenizer / GPT
    this.job = null;         // the running job: {id, cancelled}
  }

  handle(m) {
    if (m.type === "e6-cancel") {
      if (this.job) this.job.cancelled = true;
      return;
    }
    if (m.type !== "e6-run") throw new Error(`unknown E6 request ${m.type}`);
    if (this.job) {
      this.post({ type: "error", id: m.id, message: "上一次运行还没有结束。" });
      return;
    }
    const job = (this.job = { id: m.id, cancelled: false });
    const settle = (message) => {
      this.job = null;
      this.post({ ...message, id: m.id });
    };
    this.run(m, job).then((result) => settle({ type: "done", result }),
      (err) => settle({ type: "error", message: err?.message || String(err), cancelled: !!err?.cancelled }));
  }

  /** The parsed file `name` (cached: a second run downloads nothing). */
  load(name, modelsURL, files, emit) {
    if (!this.cache.has(name)) {
      const loading = fetchBytes(this.fetchFn, new URL(name, modelsURL).href, name, files?.[name],
        (bytes, total) => emit({ type: "e6-bytes", file: name, bytes, total }))
        .then((buffer) => {
          if (name.endsWith(".json")) return BPETokenizer.fromJSON(JSON.parse(new TextDecoder().decode(buffer)));
          const gpt = GPT.fromSafetensors(buffer);
          warmUp(gpt);
          return gpt;
        });
      loading.catch(() => this.cache.delete(name)); // a failed download is tried again next time
      this.cache.set(name, loading);
    }
    return this.cache.get(name);
  }

  async models(args, modelsURL, files, emit) {
    const names = ["tokenizer.json", `${TARGET}.safetensors`, `${args.draft}.safetensors`];
    if (files && !Object.hasOwn(files, names[2])) throw new Error(`没有名为 ${args.draft} 的草稿模型。`);
    const [tokenizer, target, draft] = await Promise.all(names.map((n) => this.load(n, modelsURL, files, emit)));
    return { tokenizer, target, draft };
  }

  async run(m, job) {
    const { args, modelsURL, files } = m;
    const emit = (event) => this.post({ type: "e6-event", id: m.id, event });
    const cancelled = () => job.cancelled;
    const k = Number(args.k), nNew = Number(args.nNew), seed = Number(args.seed ?? 0);
    const greedy = Number(args.temperature) === 0;
    if (!(Number.isInteger(k) && k >= 1)) throw new Error(`k = ${args.k}：草稿每轮至少要提议 1 个 token（k 取正整数）。`);
    if (!(Number.isInteger(nNew) && nNew >= 1)) throw new Error(`新 token 数 ${args.nNew} 不是正整数。`);
    emit({ type: "e6-stage", stage: "weights" });
    const { tokenizer, target, draft } = await this.models(args, modelsURL, files, emit);
    if (cancelled()) throw cancelledError();
    this.sampler ??= samplerAdapter(this.pyodide);

    emit({ type: "e6-stage", stage: "encode" });
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
      emit({ type: "e6-stage", stage: "target" });
      const t = await targetOnly({ ...common, target: new Decoder(target), stream: stream(),
        onToken: ({ index, token }) => emit({ type: "e6-token", index, token, label: label(token) }) });
      emit({ type: "e6-stage", stage: "speculative" });
      const s = await speculative({ ...common, target: new Decoder(target), draft: new Decoder(draft), k,
        stream: stream(), onRound: (r) => emit(roundEvent(r, label, greedy)) });
      return result({ t, s, tokenizer, promptIds, labels, label, args: { ...args, k, nNew, seed } });
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

function result({ t, s, tokenizer, promptIds, labels, label, args }) {
  const nNew = args.nNew;
  const shown = s.tokens.slice(0, nNew); // the last round may overshoot nNew, as in speculative_run
  shown.forEach(label);
  t.tokens.forEach(label);
  return {
    promptIds, labels,
    text: { prompt: tokenizer.decode(promptIds), target: tokenizer.decode(t.tokens), speculative: tokenizer.decode(shown) },
    target: { tokens: t.tokens, forwards: t.forwards, ms: t.ms, singleMs: median(steady(t.targetSingleMs)) },
    speculative: { tokens: shown, generated: s.tokens.length, rounds: s.rounds.length, targetForwards: s.targetForwards,
      draftForwards: s.draftForwards, ms: s.ms },
    measured: measure(t, s),
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
