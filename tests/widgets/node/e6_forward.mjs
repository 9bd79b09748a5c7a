// Node driver for tests/widgets/test_e6_model.py and test_e6_wasm.py (and a quick timing by hand): E6's forwards
// (widgets/e6/forwards.mjs: the WebAssembly SIMD one of forward.wat, assembled here in memory with wabt, and the
// JavaScript one of model.mjs). ENGINE is "js", "wasm" (standard SIMD: forward.wasm) or "wasm-relaxed" (relaxed SIMD:
// forward-relaxed.wasm; Node 20 needs V8's flag for it, set below); default js. Prints JSON.
//   node tests/widgets/node/e6_forward.mjs JOB ARGS…, JOB one of
//     compare FIXTURE.json BROWSER_DIR [ENGINE]   logits against the fixture's torch logits
//     overflow BROWSER_DIR [ENGINE]               what a context overflow does
//     read FILE.safetensors [gpt [ENGINE]]        readSafetensors (or a GPT): values or error
//     erf '[x, …]' [ENGINE]                       erf at the given points (wasm: and GELU)
//     loader BROWSER_DIR                          which forward loadGPT picks, and why
//     caches BROWSER_DIR                          two caches of one WebAssembly model
//     assemble                                    the sha256 of two assemblies of forward.wat
//     bench BROWSER_DIR [ENGINE] [prompt length]  ms per token and per verification
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";

import { assembleForward } from "../../../generator/pages/assemble_wasm.mjs";
import { Decoder, loadGPT } from "../../../widgets/e6/forwards.mjs";
import { erf, readSafetensors } from "../../../widgets/e6/model.mjs";
import { wasmErfGelu } from "../../../widgets/e6/wasm.mjs";

setFlagsFromString("--experimental-wasm-relaxed-simd");  // on by default from Node 22 (V8 11.4)

// the target, then the drafts: c13.json → constants, as the data stage wrote them from generator/models/family.py
const { target: TARGET, drafts: DRAFTS } = JSON.parse(
  readFileSync(new URL("../../../precomputed/c13.json", import.meta.url), "utf8")).constants;
const MODELS = [TARGET, ...DRAFTS];
const ENGINES = ["js", "wasm", "wasm-relaxed"];
const KERNELS = { js: "js", wasm: "wasm-simd128", "wasm-relaxed": "wasm-simd128" };
const compiled = {};  // forward.wat assembled and compiled once per variant and run

async function forwardWasm(variant = "standard") {
  compiled[variant] ??= await WebAssembly.compile(await assembleForward(variant));
  return compiled[variant];
}

function arrayBuffer(path) {
  const buf = readFileSync(path);
  return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
}

function engineOf(name = "js") {
  if (!ENGINES.includes(name)) throw new Error(`engine must be one of ${ENGINES.join(", ")}, got ${name}`);
  return name;
}

// a model of `engine` from a safetensors file; "wasm…" never falls back to JavaScript (loadGPT throws instead)
async function gptOf(path, engine) {
  const relaxed = engine === "wasm-relaxed";
  const options = engine === "js" ? { engine }
    : { engine: "wasm", relaxed, wasm: await forwardWasm(relaxed ? "relaxed" : "standard") };
  const gpt = await loadGPT(arrayBuffer(path), options);
  if (gpt.kernel !== KERNELS[engine]) throw new Error(`asked for ${engine}, got the ${gpt.kernel} forward`);
  return gpt;
}

const load = (dir, name, engine) => gptOf(join(dir, `${name}.safetensors`), engine);

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

async function compare(fixturePath, dir, engine) {
  const fixture = JSON.parse(readFileSync(fixturePath, "utf-8"));
  const out = {};
  for (const [name, entry] of Object.entries(fixture.models)) {
    const gpt = await load(dir, entry.file.replace(/\.safetensors$/, ""), engine);
    out[name] = { ...compareModel(entry, gpt), kernel: gpt.kernel, simd: gpt.simd ?? null };
  }
  return out;
}

async function attempt(fn) {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    return { ok: false, error: err.message, type: err.constructor.name };
  }
}

// A context overflow must throw (one call too long, or a cache already full) and leave the decoder usable.
async function overflow(dir, engine) {
  const gpt = await load(dir, DRAFTS[0], engine), context = gpt.config.block_size, decoder = new Decoder(gpt);
  const tooLong = await attempt(() => decoder.logits(new Array(context + 1).fill(1), 1));
  const full = new Array(context).fill(2);
  const fits = await attempt(() => decoder.logits(full, 1).length);
  const onePast = await attempt(() => decoder.logits(full.concat([3]), 1));
  const cachedAfter = decoder.cached;
  const again = await attempt(() => decoder.logits(full.slice(0, 10).concat([5]), 1).length);
  const badToken = await attempt(() => decoder.logits([1, 2, 99999], 1));
  return { context, tooLong, fits, onePast, cachedAfter, again, badToken, cachedAfterBadToken: decoder.cached,
           kernel: gpt.kernel };
}

const special = (v) => (Number.isFinite(v) ? v : String(v));

function read(path, asGpt, engine) {
  return attempt(async () => {
    if (asGpt) return (await gptOf(path, engine)).config;
    const { metadata, tensors } = readSafetensors(arrayBuffer(path));
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

async function bench(dir, engine, promptLength = 16) {
  const prompt = Array.from({ length: promptLength }, (_, i) => (i * 31 + 5) % 2048), out = {}, gpts = {};
  for (const name of MODELS) gpts[name] = await load(dir, name, engine);
  for (const name of MODELS) timeModel(gpts[name], prompt, 1);  // warm-up: JIT, caches
  for (const name of MODELS) out[name] = timeModel(gpts[name], prompt, 5);
  for (const name of MODELS.slice(1)) {
    for (const clock of ["wall", "cpu"]) out[name][clock].c = out[name][clock].msPerToken / out[TARGET][clock].msPerToken;
  }
  return out;
}

// Which forward loadGPT returns, and why (kernelNote): by default; asked for JavaScript; when SIMD does not
// validate; when forward.wasm cannot be fetched, read or compiled; when "wasm" is demanded but cannot run.
async function loader(dir) {
  const bytes = arrayBuffer(join(dir, `${DRAFTS[0]}.safetensors`)), wasm = await forwardWasm();
  const pick = (options) => attempt(async () => {
    const gpt = await loadGPT(bytes, options);
    return { kernel: gpt.kernel, note: gpt.kernelNote ?? null, simd: gpt.simd ?? null };
  });
  const out = {
    auto: await pick({ wasm: await forwardWasm("relaxed") }), standard: await pick({ relaxed: false, wasm }),
    js: await pick({ engine: "js", wasm }),
    unreachable: await pick({ wasm: "http://127.0.0.1:9/forward.wasm" }),
    missingFile: await pick({ wasm: "file:///nonexistent/forward.wasm" }),
    notWasm: await pick({ wasm: new Uint8Array([0, 97, 115, 109, 9]) }),
    demanded: await pick({ engine: "wasm", wasm: new Uint8Array([0, 97, 115, 109, 9]) }),
  };
  const validate = WebAssembly.validate;
  WebAssembly.validate = () => false;  // as an engine without SIMD answers
  try {
    out.noSimd = await pick({ wasm, relaxed: false });
    WebAssembly.validate = (bytes) => bytes.length < 60 && validate(bytes);  // SIMD, but not relaxed SIMD
    out.noRelaxed = await pick({ wasm });
  } finally {
    WebAssembly.validate = validate;
  }
  return out;
}

// Two caches of one WebAssembly model fed in turn (the memory grows for the second) against two JavaScript
// decoders: the worst |Δlogit|, and whether the second cache's memory is the first's after it is dropped.
async function caches(dir) {
  const path = join(dir, `${DRAFTS[0]}.safetensors`), wa = await gptOf(path, "wasm"), js = await gptOf(path, "js");
  const pairs = [0, 1].map(() => [new Decoder(wa), new Decoder(js)]), tokens = [[5, 9, 200, 31], [7, 7, 1000, 2]];
  let worst = 0;
  for (let n = 1; n <= 24; n++) {
    pairs.forEach(([w, j], p) => {
      const seq = Array.from({ length: n + 3 }, (_, i) => tokens[p][i % 4] + i), last = n % 3 + 1;
      if (n % 5 === 0) { w.rollback(n - 2); j.rollback(n - 2); }
      const a = w.logits(seq, last), b = j.logits(seq, last);
      a.forEach((row, r) => row.forEach((v, i) => { worst = Math.max(worst, Math.abs(v - b[r][i])); }));
    });
  }
  return { worst, distinct: pairs[0][0].cache.at !== pairs[1][0].cache.at, kernel: wa.kernel };
}

async function erfAt(xs, engine) {  // the erf and GELU code is the same in both builds
  if (engine === "js") return xs.map(erf);
  return { inputs: Array.from(Float32Array.from(xs)), ...(await wasmErfGelu(await forwardWasm(), xs)) };
}

// forward.wat assembled twice: the same bytes?
async function assemble() {
  const out = {};
  for (const variant of ["standard", "relaxed"]) {
    const sha = async () => createHash("sha256").update(await assembleForward(variant)).digest("hex");
    out[variant] = { first: await sha(), second: await sha(), bytes: (await assembleForward(variant)).length };
  }
  return out;
}

const [mode, ...args] = process.argv.slice(2);
const jobs = {
  compare: () => compare(args[0], args[1], engineOf(args[2])),
  overflow: () => overflow(args[0], engineOf(args[1])),
  read: () => read(args[0], args[1] === "gpt", engineOf(args[2])),
  erf: () => erfAt(JSON.parse(args[0]), engineOf(args[1])),
  loader: () => loader(args[0]),
  caches: () => caches(args[0]),
  assemble: () => assemble(),
  bench: () => bench(args[0], engineOf(args[1]), args[2] ? Number(args[2]) : undefined),
};
if (!(mode in jobs)) {
  console.error(`usage: node tests/widgets/node/e6_forward.mjs (${Object.keys(jobs).join("|")}) …`);
  process.exit(2);
}
console.log(JSON.stringify(await jobs[mode]()));
