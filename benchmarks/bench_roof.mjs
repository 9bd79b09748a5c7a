// This machine on E6's roofline, in Node: memory bandwidth at the target's float32 working set and one core's SIMD
// mul + add peak, by E6's own probes (widgets/e6/roof.mjs over roof.wat, assembled here as the build does), several
// measurements in a row (medians with quartiles and min–max over each one's blocks), and v(k) as the roofline
// predicts it for the target from those figures (widgets/figures/roofline.mjs). Prints figures; asserts nothing.
//
//   node benchmarks/bench_roof.mjs [--repeats N]
import { readFileSync } from "node:fs";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

import { assembleWat } from "../generator/pages/assemble_wasm.mjs";
import { modelFile } from "../widgets/e6/model.mjs";
import { measureRoof } from "../widgets/e6/roof.mjs";
import { forwardCost, modelFigures, predictedV, roofTime } from "../widgets/figures/roofline.mjs";

const ROOT = new URL("../", import.meta.url);
const fmt = (s) => `${s.median.toFixed(1)} [${s.q1.toFixed(1)}–${s.q3.toFixed(1)}] (${s.min.toFixed(1)}–${s.max.toFixed(1)})`;

function targetConfig() {
  // the target's config as the browser file records it (c13.json names the target and the browser folder)
  const c13 = JSON.parse(readFileSync(new URL("precomputed/c13.json", ROOT), "utf8"));
  const file = new URL(`precomputed/${c13.browser.dir}/${c13.constants.target}.safetensors`, ROOT);
  const buf = readFileSync(file);
  const { config } = modelFile(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  return { name: c13.constants.target, config, ks: c13.constants.ks };
}

async function main(argv) {
  const at = argv.indexOf("--repeats");
  const repeats = at >= 0 ? Number(argv[at + 1]) : 3;
  const { name, config, ks } = targetConfig();
  const model = modelFigures(config);
  const bytes = 4 * model.parameters;
  const wasm = await WebAssembly.compile(await assembleWat(fileURLToPath(new URL("widgets/e6/roof.wat", ROOT))));
  console.log(`# ${os.cpus()[0]?.model ?? "?"}, ${os.cpus().length} cores, Node ${process.version}; load ` +
              os.loadavg().map((x) => x.toFixed(2)).join(" "));
  console.log(`# ${name}: ${(bytes / 1e6).toFixed(1)} MB of float32 weights read per forward`);
  for (let r = 0; r < repeats; r++) {
    const out = await measureRoof({ bytes, wasm, clock: () => performance.now(), pause: () => Promise.resolve() });
    const roof = { bandwidthGBs: out.bandwidthGBs.median, peakGflops: out.peakGflops.median };
    const context = Math.floor(config.block_size / 2);
    const one = roofTime(roof, forwardCost(model, 1, context));
    console.log(`repeat ${r + 1} (${out.kernel}): bandwidth ${fmt(out.bandwidthGBs)} GB/s, peak ${fmt(out.peakGflops)} ` +
                `GFLOP/s; roofline ${name} forward ≥ ${one.toFixed(3)} ms; predicted v(k): ` +
                ks.map((k) => `${k}: ${predictedV(roof, model, k, context).toFixed(2)}`).join(", "));
  }
}

main(process.argv.slice(2)).catch((err) => {
  console.error(`bench_roof.mjs: ${err?.message || err}`);
  process.exit(1);
});
