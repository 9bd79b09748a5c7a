// The reader's machine for E6's roofline (widgets/figures/roofline.mjs), measured in the worker after each run's
// measuring phase (so that a run is judged against the machine as it was then): memory bandwidth at the target's working set and the SIMD multiply-add peak of one
// core, with the two probes of roof.wat (assembled into roof.wasm beside this file) where the forwards ran in
// WebAssembly SIMD, plain JavaScript loops where they ran in JavaScript: like with like. Should roof.wasm not load
// (missing, or no answer within fetchMs) beside SIMD forwards, the roof is not measured and the result says why.
//
// Bandwidth: a buffer as large as the target's float32 weights (4 × parameters, from its config), written once (a
// page never written reads as the zero page, from the cache), then read whole `passes` times in one block.
// Peak: `iters` rounds of twelve independent f32x4 mul + add chains, no memory traffic. As in timing.mjs, a block
// lasts at least fifty steps of the clock and at least 5 ms (in a worker performance.now() steps by 0.1 ms): its
// work grows until it does (those blocks are discarded and warm the code up), and one sample is the block's work ÷
// its time. The first blocks of each probe are not kept (an engine runs a function's first calls with its baseline
// compiler). Blocks of the two probes alternate, `blocks` of each, fewer (never under `minBlocks`) once `budgetMs` have
// passed; between blocks the loop asks `cancelled()` and yields to the worker's event loop now and then, so that 取消
// reaches it. The whole takes well under a second. No DOM: Node runs this file too (tests/widgets/node/e6_roof.mjs).

import { modelFigures } from "../figures/roofline.mjs";
import { simdSupported, wasmBytes } from "./forwards.mjs";
import { cancelledError } from "./speculate.mjs";
import { spread } from "./spread.mjs";
import { TIMING, blockLength, clockStep } from "./timing.mjs";

// maxBytes: the most one bandwidth block reads (passes × buffer); maxIters: the most rounds of one peak block
// fetchMs: the longest roof.wasm's download may take (well under the page's watchdog for a silent run)
export const ROOF = { ...TIMING, blocks: 7, minBlocks: 3, budgetMs: 600, warmUps: 2, maxBytes: 2e9,
  maxIters: 20_000_000, fetchMs: 15_000 };
// FLOPs of one round of roof.wat's madd (12 accumulators × 4 lanes × a mul and an add) and of the JavaScript one
// (12 scalar chains × a mul and an add)
export const WASM_FLOPS_PER_ITER = 96;
export const JS_FLOPS_PER_ITER = 24;
const PAGE = 65536;
const M = 0.9999, C = 1e-4; // a = a × M + C heads for 1 and stays a normal number

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** The probes of roof.wasm over a buffer of `bytes` (rounded up to 128). source: a Module, bytes or a URL (fetched
 * within ROOF.fetchMs). */
export async function wasmProbes(bytes, source) {
  const module = source instanceof WebAssembly.Module ? source
    : await WebAssembly.compile(source instanceof ArrayBuffer || ArrayBuffer.isView(source) ? source
      : await wasmBytes(new URL(source ?? "./roof.wasm", import.meta.url), AbortSignal.timeout(ROOF.fetchMs)));
  const size = Math.ceil(bytes / 128) * 128;
  const memory = new WebAssembly.Memory({ initial: Math.ceil(size / PAGE) + 1 });
  const { exports } = await WebAssembly.instantiate(module, { env: { memory } });
  new Float32Array(memory.buffer, 0, size / 4).fill(1);
  return { kernel: "wasm-simd128", note: null, bytes: size, flopsPerIter: WASM_FLOPS_PER_ITER,
    read: (passes) => exports.read(0, size, passes), madd: (iters) => exports.madd(iters, M, C) };
}

/** The same two probes in plain JavaScript (scalar: its peak is not the SIMD one). */
export function jsProbes(bytes, note) {
  const f = new Float32Array(Math.ceil(bytes / 128) * 32).fill(1);
  const read = (passes) => {
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    for (let p = 0; p < passes; p++) {
      for (let i = 0; i < f.length; i += 8) {
        s0 += f[i]; s1 += f[i + 1]; s2 += f[i + 2]; s3 += f[i + 3];
        s4 += f[i + 4]; s5 += f[i + 5]; s6 += f[i + 6]; s7 += f[i + 7];
      }
    }
    return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
  };
  const madd = (iters) => {
    const a = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
    let [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11] = a;
    for (let i = 0; i < iters; i++) {
      a0 = a0 * M + C; a1 = a1 * M + C; a2 = a2 * M + C; a3 = a3 * M + C; a4 = a4 * M + C; a5 = a5 * M + C;
      a6 = a6 * M + C; a7 = a7 * M + C; a8 = a8 * M + C; a9 = a9 * M + C; a10 = a10 * M + C; a11 = a11 * M + C;
    }
    return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;
  };
  return { kernel: "js", note, bytes: f.byteLength, flopsPerIter: JS_FLOPS_PER_ITER, read, madd };
}

/** The probes that match the forwards' kernel ("wasm-simd128" or "js"): roof.wasm's beside SIMD forwards (a
 * failure to load it is thrown, in words: a scalar roof would not compare with them), the JavaScript ones beside
 * JavaScript forwards. Without a kernel: roof.wasm's where this engine has SIMD, else JavaScript's. */
export async function probes(bytes, source, kernel) {
  const simd = kernel ? kernel === "wasm-simd128" : simdSupported();
  if (!simd) return jsProbes(bytes, "前向用的是 JavaScript，屋顶也用 JavaScript 测（标量，峰值比 SIMD 低）");
  try {
    return await wasmProbes(bytes, source);
  } catch (err) {
    const why = err?.name === "TimeoutError" ? `${Math.round(ROOF.fetchMs / 1000)} 秒内没有下载完` : err?.message || err;
    throw new Error(`测屋顶线失败：roof.wasm 没能载入（${why}）。你的前向用的是 WebAssembly SIMD，` +
      "改用 JavaScript 测出的屋顶和它不可比，这里不画你的屋顶；上面的实测不受影响，刷新页面再跑一次可以重试。");
  }
}

function clockError(kind, n, ms) {
  return new Error(`测屋顶线失败：${kind === "bandwidth" ? `读 ${n} 遍` : `${n} 轮乘加`}之后，浏览器的时钟只走了 ${ms} ms，` +
    "不够一段样本。这个浏览器的计时器可能被关掉或放慢了。");
}

/** One kept block: the work n grows until the block lasts at least minMs by the clock. → {n, ms} */
function timedBlock(run, n, max, clock, minMs, settings, kind) {
  for (;;) {
    const t0 = clock();
    run(n);
    const ms = clock() - t0;
    if (ms >= minMs) return { n, ms };
    if (n >= max) throw clockError(kind, n, ms);
    const guess = ms > 0 ? Math.ceil((n * minMs * settings.aimAbove) / ms) : n * 10;
    n = Math.min(max, Math.max(n + 1, guess));
  }
}

/**
 * The reader's roof. bytes: the buffer the bandwidth probe reads (the target's float32 weights); probe: the probes
 * (default probes(bytes, wasm, kernel): kernel, the forwards'); clock, pause, settings for tests.
 * → {bandwidthGBs, peakGflops: spread.mjs spreads (median, quartiles, min, max, n) over the blocks, kernel, note,
 *    bytes, step, minBlockMs, blocks: [{kind, n, ms}], stopped: "blocks" | "budget", ms}
 */
export async function measureRoof({ clock, cancelled, bytes, wasm, probe, pause, kernel, settings = ROOF } = {}) {
  const now = clock || (() => performance.now());
  const wait = pause || tick;
  if (!(bytes > 0)) throw new Error(`measureRoof: bytes = ${bytes}`);
  const step = clockStep(now);
  if (step === null || step > settings.coarsestStepMs) throw new Error("测屋顶线失败：浏览器的时钟太粗或不走。");
  const minMs = blockLength(step, settings);
  const p = probe ?? (await probes(bytes, wasm, kernel));
  // GB/s = bytes per ms ÷ 1e6, GFLOP/s = FLOPs per ms ÷ 1e6
  const kinds = {
    bandwidth: { run: p.read, size: 1, max: Math.max(1, Math.ceil(settings.maxBytes / p.bytes)),
      rate: (b) => (b.n * p.bytes) / b.ms / 1e6, out: [] },
    peak: { run: p.madd, size: 1000, max: settings.maxIters, rate: (b) => (b.n * p.flopsPerIter) / b.ms / 1e6, out: [] },
  };
  const start = now();
  // untimed: a few blocks of each, grown to length and discarded. An engine first runs a function with its baseline
  // compiler and swaps in the optimised code for its later calls (V8 compiles it meanwhile, off this thread)
  for (let i = 0; i < settings.warmUps; i++) {
    for (const [kind, k] of Object.entries(kinds)) {
      if (cancelled?.()) throw cancelledError();
      k.size = timedBlock(k.run, k.size, k.max, now, minMs, settings, kind).n;
    }
    await wait();
  }
  const blocks = [];
  let lastYield = now(), stopped = "blocks";
  for (let r = 0; r < settings.blocks; r++) {
    if (r >= settings.minBlocks && now() - start >= settings.budgetMs) { stopped = "budget"; break; }
    for (const kind of r % 2 ? ["peak", "bandwidth"] : ["bandwidth", "peak"]) {
      if (cancelled?.()) throw cancelledError();
      if (now() - lastYield >= settings.yieldEveryMs) {
        await wait();
        lastYield = now();
        if (cancelled?.()) throw cancelledError();
      }
      const k = kinds[kind];
      const block = timedBlock(k.run, k.size, k.max, now, minMs, settings, kind);
      k.size = block.n;
      k.out.push(k.rate(block));
      blocks.push({ kind, ...block });
    }
  }
  return { bandwidthGBs: spread(kinds.bandwidth.out), peakGflops: spread(kinds.peak.out), kernel: p.kernel,
    note: p.note, bytes: p.bytes, step, minBlockMs: minMs, blocks, stopped, ms: now() - start };
}

/**
 * The roof of a run's result: the reader's machine measured now, with the probes of the forwards' kernel, and the
 * figures of the run's two models from their configs (roofline.mjs modelFigures: what the page needs to place their
 * forwards). A failure other than 取消 is reported in the result ({error}); the run itself stands.
 * models: {target, draft, names} as engine.mjs holds them (names[1], names[2]: the two .safetensors); wasm: roof.wasm
 * (measureRoof's; the file beside this module by default).
 */
export async function runRoof({ target, draft, names }, { clock, cancelled, wasm }) {
  const name = (file) => file.replace(/\.safetensors$/, "");
  const figures = { target: { name: name(names[1]), ...modelFigures(target.config) },
    draft: { name: name(names[2]), ...modelFigures(draft.config) } };
  try {
    const measured = await measureRoof({ clock, cancelled, bytes: 4 * figures.target.parameters,
      kernel: target.kernel ?? "js", wasm });
    return { ...measured, models: figures };
  } catch (err) {
    if (err?.cancelled) throw err;
    return { error: err?.message || String(err), models: figures };
  }
}
