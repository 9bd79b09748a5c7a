// Node driver of widgets/e6/model.mjs for tests/test_e6_model.py (and a quick timing by hand). Prints JSON.
//   node tests/e6_forward.mjs compare FIXTURE.json BROWSER_DIR   JS logits against the fixture's torch logits
//   node tests/e6_forward.mjs overflow BROWSER_DIR               what a context overflow does
//   node tests/e6_forward.mjs read FILE.safetensors [gpt]         readSafetensors (and GPT) on a file: values or error
//   node tests/e6_forward.mjs erf '[x, …]'                        the module's erf at the given points
//   node tests/e6_forward.mjs bench BROWSER_DIR [prompt length]   ms per token and per verification, median of runs
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

import { Decoder, GPT, erf, readSafetensors } from "../widgets/e6/model.mjs";

const MODELS = ["ref_baseline", "c1_dim64", "c1_dim128"];

function arrayBuffer(path) {
  const buf = readFileSync(path);
  return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
}

const load = (dir, name) => GPT.fromSafetensors(arrayBuffer(join(dir, `${name}.safetensors`)));

function rowsOf(base64, last, vocab) {
  const buf = Buffer.from(base64, "base64");
  const all = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  return Array.from({ length: last }, (_, r) => all.subarray(r * vocab, (r + 1) * vocab));
}

// Replay one model's steps through a Decoder: the worst |Δlogit| per step, and the probs rows' sums at the end.
function compareModel(entry, gpt) {
  const decoder = new Decoder(gpt), vocab = gpt.config.vocab_size, steps = [];
  let tokens = [];
  for (const step of entry.steps) {
    if ("rollback" in step) {
      decoder.rollback(step.rollback);
      steps.push({ rollback: step.rollback, cached: decoder.cached });
      continue;
    }
    tokens = tokens.slice(0, step.start).concat(step.tokens);
    const cachedBefore = decoder.cached, got = decoder.logits(tokens, step.last);
    const want = rowsOf(step.logits, step.last, vocab);
    let worst = 0;
    got.forEach((row, r) => row.forEach((v, i) => { worst = Math.max(worst, Math.abs(v - want[r][i])); }));
    steps.push({ start: step.start, fed: step.tokens.length, last: step.last, cachedBefore, maxAbs: worst });
  }
  const probs = decoder.probs(tokens, Math.min(4, tokens.length));
  const sums = probs.map((row) => row.reduce((a, b) => a + b, 0));
  return { maxAbs: Math.max(...steps.map((s) => s.maxAbs ?? 0)), steps, probsSums: sums,
           probsLength: probs.map((row) => row.length), forwards: decoder.forwards, config: gpt.config };
}

function compare(fixturePath, dir) {
  const fixture = JSON.parse(readFileSync(fixturePath, "utf-8"));
  const out = {};
  for (const [name, entry] of Object.entries(fixture.models)) out[name] = compareModel(entry, load(dir, entry.file.replace(/\.safetensors$/, "")));
  return out;
}

function attempt(fn) {
  try {
    return { ok: true, value: fn() };
  } catch (err) {
    return { ok: false, error: err.message, type: err.constructor.name };
  }
}

// A context overflow must throw (one call too long, or a cache already full) and leave the decoder usable.
function overflow(dir) {
  const gpt = load(dir, "c1_dim64"), context = gpt.config.block_size, decoder = new Decoder(gpt);
  const tooLong = attempt(() => decoder.logits(new Array(context + 1).fill(1), 1));
  const full = new Array(context).fill(2);
  const fits = attempt(() => decoder.logits(full, 1).length);
  const onePast = attempt(() => decoder.logits(full.concat([3]), 1));
  const cachedAfter = decoder.cached;
  const again = attempt(() => decoder.logits(full.slice(0, 10).concat([5]), 1).length);
  return { context, tooLong, fits, onePast, cachedAfter, again };
}

const special = (v) => (Number.isFinite(v) ? v : String(v));

function read(path, asGpt) {
  return attempt(() => {
    const buffer = arrayBuffer(path);
    if (asGpt) return GPT.fromSafetensors(buffer).config;
    const { metadata, tensors } = readSafetensors(buffer);
    const values = Object.fromEntries(Object.entries(tensors).map(([name, t]) => [name, { shape: t.shape, data: Array.from(t.data, special) }]));
    return { metadata, tensors: values };
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

// wall-clock and CPU milliseconds of fn() (CPU time: what a machine shared with other jobs still measures fairly)
function timed(fn, into) {
  const c0 = process.cpuUsage(), t0 = performance.now();
  fn();
  const c = process.cpuUsage(c0);
  into.wall.push(performance.now() - t0);
  into.cpu.push((c.user + c.system) / 1000);
}

function timeModel(gpt, prompt, repeats) {
  const single = { wall: [], cpu: [] }, verify = {}, V = gpt.config.vocab_size;
  for (let run = 0; run < repeats; run++) {
    const decoder = new Decoder(gpt), tokens = prompt.slice();
    decoder.logits(tokens, 1);
    for (let i = 0; i < 32; i++) {
      tokens.push((tokens.length * 7) % V);
      timed(() => decoder.logits(tokens, 1), single);
    }
    for (let k = 1; k <= 8; k++) {
      const drafted = tokens.concat(Array.from({ length: k + 1 }, (_, i) => (i * 13 + k) % V));
      timed(() => decoder.logits(drafted, k + 1), (verify[k] ??= { wall: [], cpu: [] }));
      decoder.rollback(tokens.length);
    }
  }
  const out = {};
  for (const clock of ["wall", "cpu"]) {
    const one = median(single[clock]);
    out[clock] = { msPerToken: one, v: Object.fromEntries(Object.entries(verify).map(([k, ms]) => [k, median(ms[clock]) / one])) };
  }
  return out;
}

function bench(dir, promptLength = 16) {
  const prompt = Array.from({ length: promptLength }, (_, i) => (i * 31 + 5) % 2048), out = {};
  const gpts = Object.fromEntries(MODELS.map((name) => [name, load(dir, name)]));
  for (const name of MODELS) timeModel(gpts[name], prompt, 1);  // warm-up: JIT, caches
  for (const name of MODELS) out[name] = timeModel(gpts[name], prompt, 5);
  for (const name of MODELS.slice(1)) {
    for (const clock of ["wall", "cpu"]) out[name][clock].c = out[name][clock].msPerToken / out.ref_baseline[clock].msPerToken;
  }
  return out;
}

const [mode, ...args] = process.argv.slice(2);
const jobs = {
  compare: () => compare(args[0], args[1]),
  overflow: () => overflow(args[0]),
  read: () => read(args[0], args[1] === "gpt"),
  erf: () => JSON.parse(args[0]).map(erf),
  bench: () => bench(args[0], args[1] ? Number(args[1]) : undefined),
};
if (!(mode in jobs)) {
  console.error(`usage: node tests/e6_forward.mjs (${Object.keys(jobs).join("|")}) …`);
  process.exit(2);
}
console.log(JSON.stringify(jobs[mode]()));
