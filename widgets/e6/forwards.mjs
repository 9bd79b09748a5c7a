// E6's two forwards behind one loader: the WebAssembly SIMD one (forward.wat, run by wasm.mjs) where the
// JavaScript engine has 128-bit SIMD, else the plain JavaScript one (model.mjs). The model it returns says which
// in `kernel` ("wasm-simd128" or "js"), and why it is not the WebAssembly one in `kernelNote` when so. The
// WebAssembly one comes in two builds: forward-relaxed.wasm (fused multiply-adds) where the engine validates
// relaxed SIMD, else forward.wasm; `simd` says which ("relaxed" or "standard").
// The Decoder (model.mjs) runs either: it asks the model for its cache (gpt.newCache) when it has its own.

import { Decoder, GPT, checkConfig, checkedWeights, modelFile } from "./model.mjs";
import { WasmGPT, wasmShapeProblem } from "./wasm.mjs";

export { Decoder };

// The smallest module with a SIMD instruction: one function returning v128.const 0. Engines without SIMD
// refuse to validate it.
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0,
  10, 22, 1, 20, 0, 253, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11]);

// ... and one with f32x4.relaxed_madd of three v128.const 0: engines without relaxed SIMD refuse it
const zeros = () => [253, 12, ...new Array(16).fill(0)];
const RELAXED_PROBE = new Uint8Array([...SIMD_PROBE.slice(0, 19), 10, 61, 1, 59, 0, ...zeros(), ...zeros(), ...zeros(),
  253, 133, 2, 11]);

const validates = (bytes) => {
  try {
    return typeof WebAssembly === "object" && WebAssembly.validate(bytes);
  } catch {
    return false;
  }
};
export const simdSupported = () => validates(SIMD_PROBE);
export const relaxedSupported = () => validates(RELAXED_PROBE);

const compiled = new Map();  // the forward.wasm URL → Promise of its compiled module (one download per worker)

/** A .wasm file's bytes: fetched (HTTP errors named), or read from disk where the URL is a file: (Node). */
export async function wasmBytes(url, signal) {
  if (url.protocol === "file:") {  // Node (tests, benchmarks) reading the built site's file
    const { readFile } = await import("node:fs/promises");
    return readFile(url);
  }
  const response = await fetch(url, { signal });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.arrayBuffer();
}

// source: a compiled WebAssembly.Module, the .wasm bytes, or its URL (default: the build beside this file)
function forwardModule(source, relaxed) {
  if (source instanceof WebAssembly.Module) return Promise.resolve(source);
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return WebAssembly.compile(source);
  const url = new URL(source ?? (relaxed ? "./forward-relaxed.wasm" : "./forward.wasm"), import.meta.url);
  if (!compiled.has(url.href)) {
    const module = wasmBytes(url).then((bytes) => WebAssembly.compile(bytes));
    module.catch(() => compiled.delete(url.href));  // a failed download is tried again by the next model
    compiled.set(url.href, module);
  }
  return compiled.get(url.href);
}

function jsModel(config, tensors, note) {
  const gpt = new GPT(config, tensors);
  if (note) gpt.kernelNote = note;
  return gpt;
}

/**
 * A GPT from safetensors bytes with the fastest forward this engine runs. engine: "auto" (default: WebAssembly
 * SIMD, else JavaScript, the reason recorded in kernelNote), "wasm" (WebAssembly or an error) or "js".
 * relaxed: which build (default: relaxed SIMD where it validates); wasm: where that build comes from (a Module,
 * bytes or a URL; default forward-relaxed.wasm or forward.wasm beside this module).
 * A bad file or config throws model.mjs's errors whichever the engine.
 */
export async function loadGPT(buffer, { engine = "auto", wasm, relaxed = relaxedSupported() } = {}) {
  const { config, tensors } = modelFile(buffer);
  if (engine === "js") return jsModel(config, tensors, null);
  if (engine !== "auto" && engine !== "wasm") throw new Error(`loadGPT: unknown engine ${engine}`);
  checkedWeights(checkConfig(config), tensors);  // the model's own errors first, whichever forward runs it
  const fallback = (why) => {
    if (engine === "wasm") throw new Error(`loadGPT: the WebAssembly forward cannot run: ${why}`);
    return jsModel(config, tensors, `未使用 WebAssembly SIMD，改用 JavaScript 计算：${why}`);
  };
  if (!simdSupported()) return fallback("这个浏览器的 JavaScript 引擎不支持 WebAssembly SIMD");
  const problem = wasmShapeProblem(checkConfig(config));
  if (problem) return fallback(`模型的形状不合 SIMD 内核的要求：${problem}`);
  try {
    const gpt = await WasmGPT.create(await forwardModule(wasm, relaxed), config, tensors);
    gpt.simd = relaxed ? "relaxed" : "standard";
    return gpt;
  } catch (err) {
    return fallback(`载入 forward.wasm: ${err?.message || err}（不影响结果，只是慢一些）`);
  }
}
