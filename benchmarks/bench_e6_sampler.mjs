// E6's sampler time per round in Node + Pyodide: today's glue (a JsProxy per row, verify's record in JSON; kept in
// tests/e6_bridge.mjs) against the bridge (widgets/e6/sampler_bridge.mjs: rows written into Python-owned buffers,
// slot numbers and plain numbers across), both calling the real widgets/sampler.py.
//
//   node benchmarks/bench_e6_sampler.mjs [--quick] [--repeats N] [--sampler PATH] [--today-sampler PATH]
//
// --sampler: the sampler.py the bridge calls (default widgets/sampler.py); --today-sampler: the one today's glue
// calls (default the same file; e.g. `git show REV:widgets/sampler.py > /tmp/s.py` for an older revision's).
// Each measurement is speculate.mjs's own loop (its clock around every sampler call: round.ms.sampler) over
// decoders that hand out fixed 2,048-token softmax rows (a Zipf-like target, a flatter noisy draft), T = 1 and
// T = 0, k = 1, 2, 4, 8: the two glues make the very same decisions on the same rows, so they do the same work.
// The glues alternate (which goes first swaps each repeat); printed: the median ms per round with quartiles and
// min–max over the repeats, and the median of the paired ratios bridge / today, in CPU time and on the loop's clock.
// Not a test: nothing is asserted.

import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { samplerAdapter } from "../widgets/e6/sampler_bridge.mjs";
import { speculative } from "../widgets/e6/speculate.mjs";
import { caseDecoders, todaysAdapter } from "../tests/e6_bridge.mjs";
import { startPyodide } from "../tests/e6_lib.mjs";

const V = 2048, POOL = 24, KS = [1, 2, 4, 8];

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

/** For one loop of `glue` over case c, per round: the loop's own clock around the sampler calls (wall ms) and the
 * process's CPU ms for the whole loop (its decoders cost nothing: nearly all of it is the sampler's), less sensitive
 * to other processes on a busy machine; and the rounds' acceptance. */
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
  return { wall: run.ms.sampler / n, cpu: (cpu.user + cpu.system) / 1e3 / n, rounds: n, alpha: kept / tested };
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

async function main() {
  const quick = process.argv.includes("--quick");
  const repeats = Number(option("--repeats", quick ? 5 : 15));
  const rounds = quick ? 20 : 40;
  const samplerPath = option("--sampler", fileURLToPath(new URL("../widgets/sampler.py", import.meta.url)));
  const todayPath = option("--today-sampler", samplerPath);
  const pyodide = await startPyodide(samplerPath);
  const glues = { today: todaysAdapter(pyodide, todayPath), bridge: samplerAdapter(pyodide) };
  const pool = rows(20241);
  const cases = [false, true].flatMap((greedy) => KS.map((k) => ({ key: `T=${greedy ? 0 : 1} k=${k}`,
    c: benchCase(pool, k, greedy, rounds) })));
  const blank = () => ({ today: [], bridge: [], ratio: [] });
  const times = Object.fromEntries(cases.map(({ key }) => [key, { wall: blank(), cpu: blank() }]));
  const facts = {};
  for (const { c } of cases) for (const name of ["today", "bridge"]) await once(glues[name], c);  // warm-up
  const load0 = loadavg();
  for (let r = 0; r < repeats; r++) {
    for (const { key, c } of cases) {
      const got = {};
      for (const name of r % 2 ? ["bridge", "today"] : ["today", "bridge"]) got[name] = await once(glues[name], c);
      for (const m of ["wall", "cpu"]) {
        times[key][m].today.push(got.today[m]);
        times[key][m].bridge.push(got.bridge[m]);
        times[key][m].ratio.push(got.bridge[m] / got.today[m]);
      }
      facts[key] = got.today;
    }
  }
  const load1 = loadavg();
  console.log(`E6 sampler time per round, Node ${process.version} + Pyodide ${pyodide.version}, ${V} tokens, ` +
    `${repeats} interleaved repeats of ${rounds} rounds; load ${load0.map((x) => x.toFixed(2)).join(" ")} → ` +
    `${load1.map((x) => x.toFixed(2)).join(" ")}`);
  console.log(`today: today's glue with ${todayPath}; bridge: sampler_bridge.mjs with ${samplerPath}`);
  for (const [m, what] of [["cpu", "CPU ms per round (the whole loop)"], ["wall", "sampler ms per round (the loop's clock)"]]) {
    console.log(`${what}: median [quartiles] (min–max); bridge/today: median of the paired ratios (min–max)`);
    for (const { key } of cases) {
      const t = times[key][m], r = spread(t.ratio);
      console.log(`  ${key.padEnd(9)} α ${fmt(facts[key].alpha)}  today ${cell(spread(t.today))}  ` +
        `bridge ${cell(spread(t.bridge))}  bridge/today ${r.median.toFixed(2)} (${r.min.toFixed(2)}–${r.max.toFixed(2)})`);
    }
  }
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`bench_e6_sampler.mjs: FAILED: ${err.stack || err}\n`);
  process.exit(1);
});
