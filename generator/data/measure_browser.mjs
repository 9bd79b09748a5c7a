// `make measure`'s second engine: E6's own forwards (widgets/e6/forwards.mjs — the WebAssembly SIMD one, and the
// plain JavaScript one it falls back to) timed in Node on the build machine, on the float16 files the site serves
// (precomputed/browser/), with the measuring phase E6 runs in the reader's worker (widgets/e6/timing.mjs: blocks
// of repeated calls, each at least 5 ms, in rotated order). generator/data/measure.py runs it and stores what it
// prints (JSON) in measured.json beside torch's figures.
//   node generator/data/measure_browser.mjs BROWSER_DIR CONTEXT_JSON [--quick]
// CONTEXT_JSON: {"target": name, "drafts": [names], "ks": [k…], "context": [ids], "new": [ids]} (the positions
// torch is timed on). Prints {"node", "engines": {kernel: {ms_per_forward, c, v}}, "roof"} with measure.py's
// statistics; roof: this machine's memory bandwidth at the target's float32 working set and one core's SIMD
// mul + add peak, by E6's own probes (widgets/e6/roof.mjs, roof.wat), for the roofline E6 draws.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import v8 from "node:v8";

import { assembleForward, assembleWat } from "../pages/assemble_wasm.mjs";
import { Decoder, loadGPT, relaxedSupported } from "../../widgets/e6/forwards.mjs";
import { TIMING, measureForwards } from "../../widgets/e6/timing.mjs";
import { spread } from "../../widgets/e6/spread.mjs";
import { measureRoof } from "../../widgets/e6/roof.mjs";
import { modelFigures } from "../../widgets/figures/roofline.mjs";

const ROUNDS = { full: 9, quick: 3 };
const ROOF_WAT = fileURLToPath(new URL("../../widgets/e6/roof.wat", import.meta.url));

function bytesOf(path) {
  const buf = readFileSync(path);
  return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
}

/** One engine's figures: per draft and k a measuring phase (target, draft, verify of k + 1 positions). */
async function timeEngine(engine, wasm, relaxed, dir, job, rounds) {
  const load = (name) => loadGPT(bytesOf(join(dir, `${name}.safetensors`)), { engine, wasm, relaxed });
  const target = await load(job.target);
  const drafts = Object.fromEntries(await Promise.all(job.drafts.map(async (d) => [d, await load(d)])));
  const ms = { [job.target]: [] };
  const c = {};
  const v = Object.fromEntries(job.ks.map((k) => [k, []]));
  const settings = { ...TIMING, rounds, minRounds: rounds, budgetMs: Infinity };
  for (const k of job.ks) {
    for (const name of job.drafts) {
      const out = await measureForwards({ target: new Decoder(target), draft: new Decoder(drafts[name]),
        context: job.context, drafted: job.new.slice(0, k), clock: () => performance.now(),
        pause: () => Promise.resolve(), settings });
      for (const s of out.samples) {
        ms[job.target].push(s.target);
        (ms[name] ??= []).push(s.draft);
        (c[name] ??= []).push(s.draft / s.target);
        v[k].push(s.verify / s.target);
      }
    }
  }
  const kernel = target.kernel ?? "js";
  return [kernel, target.config, {
    kernel, simd: target.simd ?? null, ms_per_forward: Object.fromEntries(Object.entries(ms).map(([n, xs]) => [n, spread(xs)])),
    c: Object.fromEntries(Object.entries(c).map(([n, xs]) => [n, spread(xs)])),
    v: job.ks.map((k) => ({ k, ...spread(v[k]) })),
  }];
}

async function main([dir, contextPath, ...flags]) {
  if (!dir || !contextPath) throw new Error("usage: node generator/data/measure_browser.mjs BROWSER_DIR CONTEXT_JSON [--quick]");
  const job = JSON.parse(readFileSync(contextPath, "utf8"));
  const rounds = flags.includes("--quick") ? ROUNDS.quick : ROUNDS.full;
  v8.setFlagsFromString("--experimental-wasm-relaxed-simd");  // Node 20 (on from Node 22), as Chromium has it
  const relaxed = relaxedSupported();  // the build of forward.wat E6 would fetch here: relaxed where it validates
  const wasm = await WebAssembly.compile(await assembleForward(relaxed ? "relaxed" : "standard"));
  const engines = {};
  let config;
  for (const engine of ["wasm", "js"]) {
    const [kernel, targetConfig, figures] = await timeEngine(engine, wasm, relaxed, dir, job, rounds);
    engines[kernel] = figures;
    config = targetConfig;
  }
  const bytes = 4 * modelFigures(config).parameters;  // as the reader's worker measures it (roof.mjs runRoof)
  const roofWasm = await WebAssembly.compile(await assembleWat(ROOF_WAT));
  const r = await measureRoof({ bytes, wasm: roofWasm, clock: () => performance.now(), pause: () => Promise.resolve() });
  const roof = { kernel: r.kernel, bytes, bandwidth_gbs: r.bandwidthGBs, peak_gflops: r.peakGflops };
  return { node: process.version, rounds, engines, roof };
}

main(process.argv.slice(2)).then((out) => process.stdout.write(JSON.stringify(out)), (err) => {
  process.stderr.write(`measure_browser.mjs: ${err?.message || err}\n`);
  process.exit(1);
});
