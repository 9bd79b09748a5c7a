// Assembles E6's hand-written WebAssembly (widgets/e6/forward.wat) with wabt, the pinned build-time package
// (package.json devDependencies; never copied into the site), in two variants: forward.wasm, standard 128-bit SIMD,
// with the linear layers' kernels of matmul.wat, and forward-relaxed.wasm with those of matmul_relaxed.wat
// (relaxed SIMD's fused multiply-add), each put in place of forward.wat's `;; @kernels` line. The same text always
// gives the same bytes: no names section, no debug information, the features given explicitly.
//   node generator/pages/assemble_wasm.mjs OUT.wasm [relaxed]   writes one variant (OUT "-": to stdout, as the
//                                                               page build, vendor.py, reads it into the site)
//   node generator/pages/assemble_wasm.mjs OUT.wasm IN.wat   any other .wat of widgets/e6/ as it is (roof.wat:
//                                                               assets/c13/e6/roof.wasm, the roofline's probes)
// Node tests import assembleForward() / assembleWat(path) and assemble in memory.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const source = (name) => fileURLToPath(new URL(`../../widgets/e6/${name}`, import.meta.url));
export const WAT = source("forward.wat");
const KERNELS = { standard: source("matmul.wat"), relaxed: source("matmul_relaxed.wat") };
const MARKER = /^ {2};; @kernels:.*$/m;

// forward.wat with the variant's kernels in place of its marker line
export function forwardText(variant = "standard") {
  if (!(variant in KERNELS)) throw new Error(`unknown variant ${variant} (standard or relaxed)`);
  const text = readFileSync(WAT, "utf8");
  if (!MARKER.test(text)) throw new Error(`${WAT} lacks its ";; @kernels:" line`);
  return text.replace(MARKER, () => readFileSync(KERNELS[variant], "utf8"));
}

// WAT text → .wasm bytes (Uint8Array) with the given features: names resolved, validated, no names section and
// no debug information, so that the same text always gives the same bytes
async function assemble(name, text, features) {
  const require = createRequire(import.meta.url);
  let wabt;
  try {
    wabt = await require("wabt")();
  } catch (err) {
    throw new Error(`wabt is not in node_modules (run: npm ci): ${err.message}`);
  }
  const module = wabt.parseWat(name, text, features);
  try {
    module.resolveNames();
    module.validate(features);
    return new Uint8Array(module.toBinary({ log: false, write_debug_names: false }).buffer);
  } finally {
    module.destroy();
  }
}

// the variant ("standard" or "relaxed") → the .wasm bytes (Uint8Array)
export function assembleForward(variant = "standard") {
  const features = { simd: true, bulk_memory: true, relaxed_simd: variant === "relaxed" };
  return assemble("forward.wat", forwardText(variant), features);
}

// a .wat file as it is (standard SIMD, bulk memory) → its .wasm bytes, assembled the same way, byte for byte
export function assembleWat(path) {
  return assemble(path.split("/").pop(), readFileSync(path, "utf8"), { simd: true, bulk_memory: true });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [out, variant = "standard"] = process.argv.slice(2);
  if (!out) {
    process.stderr.write("usage: node generator/pages/assemble_wasm.mjs OUT.wasm [relaxed]\n");
    process.exit(2);
  }
  (variant.endsWith(".wat") ? assembleWat(variant) : assembleForward(variant)).then((bytes) => (out === "-" ? process.stdout.write(bytes) : writeFileSync(out, bytes)), (err) => {
    process.stderr.write(`cannot assemble ${variant.endsWith(".wat") ? variant : WAT}: ${err.message}\n`);
    process.exit(1);
  });
}
