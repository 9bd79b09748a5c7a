// The GPT of widgets/e6/model.mjs with its forward in WebAssembly SIMD (the kernels of forward.wat): the same
// architecture, config checks, error messages and contract (forward(tokens, cache, last), a KV cache that
// truncates), with every float32 of the model, its KV caches and its work buffers in the module's memory.
// The float32 sums of the kernels agree with torch's float32 logits within 1e-4, as the float64 ones of model.mjs do.
// widgets/e6/forwards.mjs decides which forward a reader gets; this file only runs the WebAssembly one.

import { checkConfig, checkFeed, checkedWeights } from "./model.mjs";

const PAGE = 65536;

// Why these kernels cannot run a shape of the family (null when they can): they take 8 outputs and 4 inputs at a
// time and a head's floats 4 at a time.
export function wasmShapeProblem({ n_embd: C, n_head: H, vocab_size: V }) {
  if (C % 8) return `n_embd = ${C} 不是 8 的倍数`;
  if ((C / H) % 4) return `每个头的宽度 ${C / H} 不是 4 的倍数`;
  if (V % 8) return `vocab_size = ${V} 不是 8 的倍数`;
  return null;
}

// A linear layer's weight (nOut × nIn, rows contiguous) in the kernels' order: blocks of 8 output rows, each as its
// two halves of 4 rows one after the other, and in a half, for each group of 4 inputs, the 4 rows' 4 values one
// after another.
function pack(dst, at, W, nOut, nIn) {
  for (let o = 0; o < nOut; o++) {
    const base = at + (o >> 2) * nIn * 4 + (o & 3) * 4;
    for (let i = 0; i < nIn; i++) dst[base + (i >> 2) * 16 + (i & 3)] = W[o * nIn + i];
  }
}

// Byte offsets handed out one after another, each 16-byte aligned (a v128 load never straddles two regions)
class Layout {
  constructor() {
    this.end = 0;
  }

  take(floats) {
    const at = this.end;
    this.end += Math.ceil(floats / 4) * 16;
    return at;
  }
}

// The keys and values of the positions seen so far, in the model's memory: for each layer K then V, a full
// context of rows each. `at` is its byte offset; made by WasmGPT.newCache, it serves that model only.
export class WasmKVCache {
  constructor(gpt, at) {
    this.gpt = gpt;
    this.at = at;
    this.length = 0;
  }

  truncate(n) {
    this.length = Math.max(0, Math.min(this.length, n));
  }
}

export class WasmGPT {
  // module: the compiled forward.wasm. Throws model.mjs's errors for a bad config or weights.
  static async create(module, config, tensors) {
    const cfg = checkConfig(config), w = checkedWeights(cfg, tensors);
    const problem = wasmShapeProblem(cfg);
    if (problem) throw new Error(`forward.wasm cannot run this shape: ${problem}`);
    const layout = planLayout(cfg);
    const memory = new WebAssembly.Memory({ initial: Math.ceil(layout.end / PAGE) });
    const instance = await WebAssembly.instantiate(module, { env: { memory } });
    return new WasmGPT(cfg, w, layout, memory, instance.exports);
  }

  constructor(config, w, layout, memory, kernels) {
    this.kernel = "wasm-simd128";
    this.config = config;
    this.memory = memory;
    this.kernels = kernels;
    this.at = layout.at;
    this.memoryEnd = layout.end;
    this.tokEmb = w["tok_emb.weight"];  // the embedding lookups read these in JavaScript
    this.posEmb = w["pos_emb.weight"];
    const f = new Float32Array(memory.buffer), { n_embd: C, vocab_size: V } = config, at = layout.at;
    const put = (offset, data) => f.set(data, offset / 4);
    put(at.lnF, w["ln_f.weight"]);
    pack(f, at.head / 4, w["tok_emb.weight"], V, C);  // tied output embedding
    at.layers.forEach((l, i) => {
      const p = `blocks.${i}.`;
      put(l.ln1, w[p + "ln1.weight"]);
      put(l.ln2, w[p + "ln2.weight"]);
      pack(f, l.qkv / 4, w[p + "attn.qkv.weight"], 3 * C, C);
      pack(f, l.proj / 4, w[p + "attn.proj.weight"], C, C);
      pack(f, l.up / 4, w[p + "mlp.up.weight"], 4 * C, C);
      pack(f, l.down / 4, w[p + "mlp.down.weight"], C, 4 * C);
    });
    // the memory of caches no longer referenced (a Decoder dropped) goes back to the next newCache()
    this.freeCaches = [];
    this.cacheBytes = config.n_layer * 2 * config.block_size * C * 4;
    this.released = typeof FinalizationRegistry === "function"
      ? new FinalizationRegistry((offset) => this.freeCaches.push(offset)) : null;
  }

  // A new, empty KV cache in this model's memory (the memory grows for it, unless a dropped cache's is free)
  newCache() {
    let at = this.freeCaches.pop();
    if (at === undefined) {
      at = this.memoryEnd;
      this.memoryEnd += this.cacheBytes;
      const missing = this.memoryEnd - this.memory.buffer.byteLength;
      if (missing > 0) this.memory.grow(Math.ceil(missing / PAGE));
    }
    const cache = new WasmKVCache(this, at);
    this.released?.register(cache, at);
    return cache;
  }

  // model.mjs's GPT.forward: the positions after cache.length, the logits of the last `last` of them
  // (a view of the module's memory, valid until the next forward, row-major [last × vocab]).
  forward(tokens, cache, last = tokens.length) {
    const { n_embd: C, vocab_size: V, n_head: H, block_size: B } = this.config;
    if (!(cache instanceof WasmKVCache) || cache.gpt !== this) {
      throw new Error("forward: this cache is not one of this model's (make it with gpt.newCache())");
    }
    const T = tokens.length, past = cache.length, at = this.at, k = this.kernels;
    checkFeed(this.config, tokens, past, last);
    const f = new Float32Array(this.memory.buffer);
    for (let t = 0; t < T; t++) {
      for (let i = 0, e = tokens[t] * C, p = (past + t) * C, r = at.x / 4 + t * C; i < C; i++) {
        f[r + i] = this.tokEmb[e + i] + this.posEmb[p + i];
      }
    }
    const plane = B * C * 4;  // bytes of one layer's keys (or values)
    at.layers.forEach((l, i) => {
      const K = cache.at + 2 * i * plane, Vs = K + plane;
      k.layer_norm(at.h, at.x, l.ln1, T, C);
      k.matmul(at.qkv, at.h, l.qkv, T, C, 3 * C, 0);
      k.attend(at.y, at.qkv, K, Vs, past, T, C, H, at.scores);
      k.matmul(at.x, at.y, l.proj, T, C, C, 1);
      k.layer_norm(at.h, at.x, l.ln2, T, C);
      k.matmul(at.hidden, at.h, l.up, T, C, 4 * C, 0);
      k.gelu(at.hidden, T * 4 * C);
      k.matmul(at.x, at.hidden, l.down, T, 4 * C, C, 1);
    });
    cache.length = past + T;
    k.layer_norm(at.h, at.x + (T - last) * C * 4, at.lnF, last, C);
    k.matmul(at.out, at.h, at.head, last, C, V, 0);
    return new Float32Array(this.memory.buffer, at.out, last * V);
  }
}

// Where everything lives in the memory: the weights, then the work buffers for a full context of new positions
// (the caches come after, as they are made).
function planLayout({ vocab_size: V, block_size: B, n_layer: L, n_embd: C }) {
  const mem = new Layout(), at = {};
  at.lnF = mem.take(C);
  at.head = mem.take(V * C);
  at.layers = Array.from({ length: L }, () => ({
    ln1: mem.take(C), qkv: mem.take(3 * C * C), proj: mem.take(C * C),
    ln2: mem.take(C), up: mem.take(4 * C * C), down: mem.take(4 * C * C),
  }));
  Object.assign(at, { x: mem.take(B * C), h: mem.take(B * C), qkv: mem.take(B * 3 * C), y: mem.take(B * C),
                      hidden: mem.take(B * 4 * C), scores: mem.take(B + 4), out: mem.take(B * V) });
  return { at, end: mem.end };
}

// erf and GELU of the kernels at the given points (for the tests): [erf(x)…], [gelu(x)…]
export async function wasmErfGelu(module, xs) {
  const n = Math.ceil(xs.length / 4) * 4, memory = new WebAssembly.Memory({ initial: Math.ceil((8 * n + 16) / PAGE) });
  const { exports } = await WebAssembly.instantiate(module, { env: { memory } });
  const f = new Float32Array(memory.buffer);
  f.set(xs, 0);
  f.set(xs, n);
  exports.erf(0, n);
  exports.gelu(4 * n, n);
  return { erf: Array.from(f.subarray(0, xs.length)), gelu: Array.from(f.subarray(n, n + xs.length)) };
}
