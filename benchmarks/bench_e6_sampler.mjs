// E6's decisions per round and per token in Node + Pyodide, three ways side by side, all calling the real
// widgets/sampler.py: today's glue (a JsProxy per row, verify's record in JSON; kept in
// tests/widgets/node/e6_bridge.mjs), the bridge with sampler.py forming every running sum ("py sums": the bridge before
// widgets/e6/row_sums.mjs, its pythonSums()), and the bridge as E6 runs it ("js sums": the rows' running sums formed in
// JavaScript); beside them the real target's one-token forward (forwards.mjs, WebAssembly SIMD, as E6 runs it;
// bench_e6.mjs's measurement).
//
//   node benchmarks/bench_e6_sampler.mjs [--quick] [--repeats N] [--sampler PATH] [--today-sampler PATH]
//
// --sampler: the sampler.py the bridge calls (default widgets/sampler.py); --today-sampler: the one today's glue
// calls (default the same file; e.g. `git show REV:widgets/sampler.py > /tmp/s.py` for an older revision's).
// Each measurement is speculate.mjs's own loop (its clock around every sampler call: round.ms.sampler) over
// decoders that hand out fixed 2,048-token softmax rows (a Zipf-like target, a flatter noisy draft), T = 1 and
// T = 0, k = 1, 2, 4, 8: the three make the very same decisions on the same rows, so they do the same work.
// The three take turns (the order rotates each repeat), a target forward sample between them; printed: the medians
// with quartiles and min–max over the repeats of ms per round and ms per token (the loop's clock, and the process's
// CPU time per round), the median of the paired ratios js sums / py sums and js sums / today, and the per-token
// decisions as a share of the target's forward (the goal: at most 10%). The calls here follow one another with warm
// caches; in E6 each follows a model's forward, which evicts Pyodide's working set and makes a call 2-4× as dear:
// bench_e6.mjs and bench_e6_browser.py print that figure with the real models ("per token ÷ target ms"). Not a test:
// nothing is asserted.

import { readFileSync, existsSync } from "node:fs";
import { loadavg } from "node:os";
import { setFlagsFromString } from "node:v8";
import { fileURLToPath } from "node:url";
import { samplerAdapter } from "../widgets/e6/sampler_bridge.mjs";
import { speculative } from "../widgets/e6/speculate.mjs";
import { caseDecoders, todaysAdapter } from "../tests/widgets/node/e6_bridge.mjs";
import { startPyodide } from "../tests/widgets/node/e6_lib.mjs";
import { SETTINGS, contextOf, forwardMs, rotated } from "./bench_e6.mjs";

const V = 2048, POOL = 24, KS = [1, 2, 4, 8], GLUES = ["today", "py sums", "js sums"];

function option(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
}

/** A seeded uniform stream (mulberry32) and normal draws from it: the same rows on every run. */
function gen(seed) {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
  return { uniform, normal };
}

function normalised(w) {
  const total = w.reduce((s, v) => s + v, 0);
  return Float64Array.from(w, (v) => v / total);
}

/** POOL target rows (Zipf-like over a shuffled order) and their drafts (flatter, noisy). */
function rows(seed) {
  const g = gen(seed);
  const order = Array.from({ length: V }, (_, i) => i).sort(() => g.uniform() - 0.5);
  const p = [], q = [];
  for (let n = 0; n < POOL; n++) {
    const w = new Float64Array(V);
    order.forEach((token, rank) => { w[token] = Math.exp(-1.1 * Math.log(rank + 1) + 0.3 * g.normal()); });
    const row = normalised(w);
    p.push(row);
    q.push(normalised(Array.from(row, (v) => v ** 0.8 * Math.exp(0.5 * g.normal()))));
  }
  return { p, q };
}

/** The case speculate.mjs runs: the draft's rows from q, the target's k + 1 rows from p, round after round. */
function benchCase(pool, k, greedy, rounds) {
  const targetRows = Array.from({ length: POOL }, (_, r) => Array.from({ length: k + 1 }, (_, i) => pool.p[(r + i) % POOL]));
  return { k, greedy, seed: 11, nNew: rounds, draftRows: pool.q, targetRows };
}

/** For one loop of `glue` over case c: the loop's own clock around the sampler calls (wall ms) per round and per
 * token, and the process's CPU ms per round for the whole loop (its decoders cost nothing: nearly all of it is the
 * sampler's), less sensitive to other processes on a busy machine; and the rounds' acceptance. */
async function once(glue, c) {
  const stream = c.greedy ? null : glue.stream(c.seed);
  const made = caseDecoders(c);
  const cpu0 = process.cpuUsage();
  const run = await speculative({ prompt: [0], nNew: c.nNew, k: c.k, greedy: c.greedy, stream, sampler: glue,
    target: made.target(), draft: made.draft(), pause: async () => {} });
  const cpu = process.cpuUsage(cpu0);
  stream?.destroy();
  const tested = run.rounds.reduce((n, r) => n + r.u.length, 0), kept = run.rounds.reduce((n, r) => n + r.accepted, 0);
  const n = run.rounds.length;
  return { wall: run.ms.sampler / n, token: run.ms.sampler / run.tokens.length, cpu: (cpu.user + cpu.system) / 1e3 / n,
    alpha: kept / tested, perRound: run.tokens.length / n };
}

/** The real target (precomputed/browser's float16 file, else the float32 checkpoint) with E6's WebAssembly forward,
 * and a sampler of its one-token forward after bench_e6.mjs's context (ms per forward, `calls` forwards a sample). */
async function targetForward() {
  const root = new URL("../", import.meta.url);
  const c13 = JSON.parse(readFileSync(new URL("precomputed/c13.json", root), "utf8"));
  const forwards = await import(new URL("widgets/e6/forwards.mjs", root));
  const { assembleForward } = await import(new URL("generator/pages/assemble_wasm.mjs", root));
  setFlagsFromString("--experimental-wasm-relaxed-simd");  // Node 20 (on from Node 22)
  const relaxed = forwards.relaxedSupported();
  const wasm = await WebAssembly.compile(await assembleForward(relaxed ? "relaxed" : "standard"));
  const name = c13.constants.target, f16 = new URL(`precomputed/browser/${name}.safetensors`, root);
  const bytes = readFileSync(existsSync(f16) ? f16 : new URL(`models/${name}/model.safetensors`, root));
  const gpt = await forwards.loadGPT(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
    { engine: "wasm", wasm, relaxed });
  const { context, fresh } = contextOf(c13, SETTINGS.full, [1]);
  return { name, sample: () => forwardMs(forwards.Decoder, gpt, context, fresh.slice(0, 1), SETTINGS.full.calls) };
}

function quantile(sorted, f) {
  const at = (sorted.length - 1) * f, lo = Math.floor(at);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (at - lo);
}

function spread(values) {
  const s = [...values].sort((a, b) => a - b);
  return { median: quantile(s, 0.5), q1: quantile(s, 0.25), q3: quantile(s, 0.75), min: s[0], max: s[s.length - 1] };
}

const fmt = (x) => x.toFixed(3);
const cell = (s) => `${fmt(s.median)} [${fmt(s.q1)}–${fmt(s.q3)}] (${fmt(s.min)}–${fmt(s.max)})`;
const ratio = (s) => `${s.median.toFixed(2)} (${s.min.toFixed(2)}–${s.max.toFixed(2)})`;

async function main() {
  const quick = process.argv.includes("--quick");
  const repeats = Number(option("--repeats", quick ? 5 : 15));
  const rounds = quick ? 20 : 40;
  const samplerPath = option("--sampler", fileURLToPath(new URL("../widgets/sampler.py", import.meta.url)));
  const todayPath = option("--today-sampler", samplerPath);
  const pyodide = await startPyodide(samplerPath);
  const bridge = samplerAdapter(pyodide);
  const glues = { today: todaysAdapter(pyodide, todayPath), "py sums": bridge.pythonSums(), "js sums": bridge };
  const target = await targetForward();
  const pool = rows(20241);
  const cases = [false, true].flatMap((greedy) => KS.map((k) => ({ key: `T=${greedy ? 0 : 1} k=${k}`,
    c: benchCase(pool, k, greedy, rounds) })));
  const times = Object.fromEntries(cases.map(({ key }) => [key, Object.fromEntries(GLUES.map((g) => [g,
    { wall: [], token: [], cpu: [] }]))]));
  const ratios = Object.fromEntries(cases.map(({ key }) => [key, { py: [], today: [] }]));
  const forwardSamples = [], facts = {};
  for (const { c } of cases) for (const name of GLUES) await once(glues[name], c);  // warm-up
  for (let i = 0; i < 3; i++) target.sample();
  const load0 = loadavg();
  for (let r = 0; r < repeats; r++) {
    for (const [j, { key, c }] of cases.entries()) {
      const got = {};
      for (const name of rotated(GLUES, r * cases.length + j)) got[name] = await once(glues[name], c);
      for (const name of GLUES) for (const m of ["wall", "token", "cpu"]) times[key][name][m].push(got[name][m]);
      ratios[key].py.push(got["js sums"].token / got["py sums"].token);
      ratios[key].today.push(got["js sums"].token / got.today.token);
      facts[key] = got.today;
      if (j % 4 === 0) forwardSamples.push(target.sample());
    }
  }
  const load1 = loadavg(), fwd = spread(forwardSamples);
  const loads = [load0, load1].map((l) => l.map((x) => x.toFixed(2)).join(" ")).join(" → ");
  console.log(`E6 decisions, Node ${process.version} + Pyodide ${pyodide.version}, ${V} tokens, ${repeats} ` +
    `interleaved repeats of ${rounds} rounds; load ${loads}`);
  console.log(`today: today's glue with ${todayPath}; py sums / js sums: sampler_bridge.mjs with ${samplerPath}, the ` +
    "running sums formed by sampler.py / by row_sums.mjs");
  console.log(`target forward (${target.name}, WebAssembly, one token after ${SETTINGS.full.context}): ` +
    `${cell(fwd)} ms over ${forwardSamples.length} samples`);
  const parts = [["cpu", "CPU ms per round (the whole loop)"], ["wall", "sampler ms per round (the loop's clock)"],
    ["token", "sampler ms per token (the loop's clock)"]];
  for (const [m, what] of parts) {
    console.log(`${what}: median [quartiles] (min–max)` + (m === "token" ? "; js/py, js/today: median of the paired " +
      "ratios (min–max); js sums ÷ the target's forward (median ÷ median)" : ""));
    for (const { key } of cases) {
      const t = times[key], share = (100 * spread(t["js sums"].token).median / fwd.median).toFixed(1);
      const tail = m !== "token" ? "" : `  js/py ${ratio(spread(ratios[key].py))}  js/today ` +
        `${ratio(spread(ratios[key].today))}  ÷ forward ${share}%`;
      console.log(`  ${key.padEnd(9)} α ${fmt(facts[key].alpha)}  ${facts[key].perRound.toFixed(2)} tokens/round  ` +
        GLUES.map((g) => `${g} ${cell(spread(t[g][m]))}`).join("  ") + tail);
    }
  }
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`bench_e6_sampler.mjs: FAILED: ${err.stack || err}\n`);
  process.exit(1);
});
