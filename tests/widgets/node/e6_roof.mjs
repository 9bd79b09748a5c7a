// Node driver for tests/widgets/test_e6_roof.py: the reader's roof (widgets/e6/roof.mjs and roof.wat) and the
// roofline's renderer and cost model (widgets/figures/roofline.mjs).
//
//   node tests/widgets/node/e6_roof.mjs JOB [ARGS.json], JOB one of
//     assemble          the sha256 of two assemblies of roof.wat, its size, exports, validity
//     fake              measureRoof under a fake clock of 0.1 ms steps and fake probes
//     cancel            the same, cancelled after a few blocks
//     real              the real probes (roof.wasm and the JavaScript ones), shape only
//     figure ARGS.json  rooflineFigure(args) and the figures of the cost model
//     run               runRoof twice with the committed models' configs
//
// Prints ONE line of JSON. No figure asserted on comes from a real clock: the "real" case reports shapes only.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { assembleWat } from "../../../generator/pages/assemble_wasm.mjs";
import { anchorRoof, attainable, forwardCost, modelFigures, predictedV, roofTime, rooflineFigure, runPoints }
  from "../../../widgets/figures/roofline.mjs";
import { ROOF, jsProbes, measureRoof, probes, runRoof, wasmProbes } from "../../../widgets/e6/roof.mjs";
import { random } from "./e6_lib.mjs";

const ROOT = new URL("../../../", import.meta.url);
const WAT = new URL("widgets/e6/roof.wat", ROOT).pathname;
const STEP = 0.1;
// the fake machine: 20 GB/s at the probe's buffer, 30 GFLOP/s, each block ±2 %
export const MACHINE = { bandwidthGBs: 20, peakGflops: 30 };
const JITTER = 0.02;


/** A fake clock (read floored to 0.1 ms; each reading costs 0.4 µs) and probes that spend its time, not real work. */
function fakeMachine(seed, bytes) {
  const r = random(seed);
  const state = { t: 1000 + 7 * r(), calls: 0 };
  const clock = () => {
    state.t += 0.0004;
    return Math.floor(state.t / STEP) * STEP;
  };
  const spend = (ms) => { state.t += ms * (1 + JITTER * (2 * r() - 1)); };
  const probe = { kernel: "fake", note: null, bytes, flopsPerIter: 96,
    read: (passes) => { state.calls += 1; spend((passes * bytes) / (MACHINE.bandwidthGBs * 1e6)); },
    madd: (iters) => { state.calls += 1; spend((iters * 96) / (MACHINE.peakGflops * 1e6)); } };
  return { clock, probe, state };
}

const noPause = () => Promise.resolve();

async function fake() {
  const bytes = 14_820_352;
  const runs = [];
  for (const seed of [1, 2, 3]) {
    const m = fakeMachine(seed, bytes);
    runs.push(await measureRoof({ clock: m.clock, probe: m.probe, bytes, pause: noPause }));
  }
  return { runs, machine: MACHINE, settings: ROOF };
}

async function cancel() {
  const bytes = 1_000_000;
  const m = fakeMachine(9, bytes);
  let asked = 0, callsAtCancel = null;
  // 取消 arrives at the sixth question: after the warm-up (two questions a round) and a block or two
  const cancelled = () => {
    asked += 1;
    if (asked < 2 * ROOF.warmUps + 2) return false;
    callsAtCancel ??= m.state.calls;
    return true;
  };
  try {
    await measureRoof({ clock: m.clock, probe: m.probe, bytes, cancelled, pause: noPause });
    return { cancelled: false };
  } catch (err) {
    return { cancelled: !!err.cancelled, message: err.message, asked, callsAtCancel, after: m.state.calls - callsAtCancel };
  }
}

const finite = (s) => s && ["median", "min", "max", "q1", "q3"].every((k) => Number.isFinite(s[k]) && s[k] > 0);

async function real() {
  const bytes = 4 * 3_705_088;
  const settings = { ...ROOF, blocks: 3, minBlocks: 3 };
  const wasm = await measureRoof({ bytes, probe: await wasmProbes(bytes, await assembleWat(WAT)), settings });
  const js = await measureRoof({ bytes, probe: jsProbes(bytes, "test"), settings });
  const shape = (r) => ({ kernel: r.kernel, note: r.note, bytes: r.bytes, n: [r.bandwidthGBs.n, r.peakGflops.n],
    finite: finite(r.bandwidthGBs) && finite(r.peakGflops), blocks: r.blocks.length,
    shortest: Math.min(...r.blocks.map((b) => b.ms)), minBlockMs: r.minBlockMs });
  return { wasm: shape(wasm), js: shape(js) };
}

async function assemble() {
  const first = await assembleWat(WAT), second = await assembleWat(WAT);
  const sha = (b) => createHash("sha256").update(b).digest("hex");
  const module = await WebAssembly.compile(first);
  return { first: sha(first), second: sha(second), bytes: first.length, valid: WebAssembly.validate(first),
    exports: WebAssembly.Module.exports(module).map((e) => e.name).sort(),
    imports: WebAssembly.Module.imports(module).map((i) => `${i.module}.${i.name}:${i.kind}`) };
}

function figure(path) {
  const args = JSON.parse(readFileSync(path, "utf8"));
  const c13 = JSON.parse(readFileSync(new URL("precomputed/c13.json", ROOT), "utf8"));
  const anchor = anchorRoof(c13.anchor);
  const models = { target: modelFigures(args.configs.target), draft: modelFigures(args.configs.draft) };
  const points = runPoints({ reader: args.reader, anchor: c13.anchor, models, names: args.names, k: args.k,
    context: args.context });
  const roofs = [{ ...anchor, short: "H100" }, ...args.roofs];
  const costs = [1, args.k + 1].map((n) => forwardCost(models.target, n, args.context));
  return {
    markup: rooflineFigure({ id: "t-roof", roofs, points }), points, anchor, models, costs,
    times: costs.map((c) => roofTime(args.reader, c)),
    predictedV: predictedV(args.reader, models.target, args.k, args.context),
    attainable: args.probes.map((i) => attainable(args.reader, i)),
    noRoof: (() => { try { rooflineFigure({ roofs: [], points }); return null; } catch (e) { return e.message; } })(),
  };
}

async function run() {
  const config = (name) => JSON.parse(readFileSync(new URL(`models/${name}/config.json`, ROOT), "utf8"));
  const { target, drafts } = JSON.parse(readFileSync(new URL("precomputed/c13.json", ROOT), "utf8")).constants;
  const models = { target: { config: config(target), kernel: "wasm-simd128" }, draft: { config: config(drafts[0]) },
    names: ["tokenizer.json", `${target}.safetensors`, `${drafts[0]}.safetensors`] };
  const wasm = await WebAssembly.compile(await assembleWat(WAT));
  const first = await runRoof(models, { cancelled: () => false, wasm });
  const second = await runRoof(models, { cancelled: () => false, wasm });
  // forwards in JavaScript: the JavaScript probes, like with like
  const js = await runRoof({ ...models, target: { ...models.target, kernel: "js" } }, { cancelled: () => false });
  // roof.wasm missing beside SIMD forwards: refused in words, never a scalar roof in its place
  const missing = await probes(1024, "file:///nonexistent/roof.wasm", "wasm-simd128").then((p) => p.kernel,
    (err) => ({ error: err.message }));
  return { first: { ...first, blocks: first.blocks?.length }, missing, js: { kernel: js.kernel, note: js.note, error: js.error },
    sameMeasurement: first.blocks !== undefined && first.blocks === second.blocks };
}

const [cmd, arg] = process.argv.slice(2);
const jobs = { assemble, fake, cancel, real, figure: () => figure(arg), run };
if (!jobs[cmd]) {
  process.stderr.write(`usage: node tests/widgets/node/e6_roof.mjs ${Object.keys(jobs).join("|")} [ARGS.json]\n`);
  process.exit(2);
}
Promise.resolve(jobs[cmd]()).then((out) => process.stdout.write(JSON.stringify(out) + "\n"), (err) => {
  process.stderr.write(`e6_roof.mjs: ${err?.stack || err}\n`);
  process.exit(1);
});
