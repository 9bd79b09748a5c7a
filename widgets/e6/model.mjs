// The GPT of generator/models/model.py in plain JavaScript, for E6: the same architecture (learned positions,
// pre-norm LayerNorm without bias, causal self-attention over a KV cache, GELU MLP 4×, tied output embedding),
// read straight from the safetensors files the data stage writes (float16, converted to float32 on load).
// Runs in a Web Worker and in Node; no DOM, no allocation inside a forward's loops: the work buffers are reused.
// Sums run in float64 (JavaScript's numbers) and are stored as float32; torch's float32 logits agree within 1e-4.

import { readSafetensors } from "./safetensors.mjs";

export { readSafetensors };

const CONFIG_KEYS = ["vocab_size", "block_size", "n_layer", "n_head", "n_embd"];

export function checkConfig(config) {
  if (!config || typeof config !== "object") throw new Error("GPT: the config is missing");
  const out = {};
  for (const key of CONFIG_KEYS) {
    const value = config[key];
    if (!Number.isInteger(value) || value <= 0) throw new Error(`GPT config: ${key} must be a positive integer, got ${value}`);
    out[key] = value;
  }
  if (out.n_embd % out.n_head) throw new Error(`GPT config: ${out.n_head} heads do not divide n_embd = ${out.n_embd}`);
  return out;
}

// The tensors the model needs, by name, with the shape its config implies (those of the torch state_dict).
function expectedShapes({ vocab_size: V, block_size: B, n_layer: L, n_embd: C }) {
  const shapes = { "tok_emb.weight": [V, C], "pos_emb.weight": [B, C], "ln_f.weight": [C] };
  for (let i = 0; i < L; i++) {
    Object.assign(shapes, {
      [`blocks.${i}.ln1.weight`]: [C], [`blocks.${i}.attn.qkv.weight`]: [3 * C, C],
      [`blocks.${i}.attn.proj.weight`]: [C, C], [`blocks.${i}.ln2.weight`]: [C],
      [`blocks.${i}.mlp.up.weight`]: [4 * C, C], [`blocks.${i}.mlp.down.weight`]: [C, 4 * C],
    });
  }
  return shapes;
}

export function checkedWeights(config, tensors) {
  const shapes = expectedShapes(config), weights = {};
  for (const [name, shape] of Object.entries(shapes)) {
    const t = tensors[name];
    if (!t) throw new Error(`GPT: tensor ${name} is missing`);
    if (t.shape.length !== shape.length || t.shape.some((n, i) => n !== shape[i])) {
      throw new Error(`GPT: tensor ${name} has shape [${t.shape}], the config (n_embd = ${config.n_embd}, ` +
                      `vocab_size = ${config.vocab_size}, block_size = ${config.block_size}) needs [${shape}]`);
    }
    weights[name] = t.data;
  }
  const extra = Object.keys(tensors).filter((name) => !(name in shapes));
  if (extra.length) throw new Error(`GPT: unexpected tensor ${extra[0]} for this model family`);
  return weights;
}

// ---------------------------------------------------------------------------------------------- the kernels

const TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI), SQRT_PI = Math.sqrt(Math.PI), SQRT_HALF = Math.sqrt(0.5);

// The error function to float64 accuracy (|error| < 1e-14): below 2.5 the series
// erf(a) = 2/√π · e^(−a²) · Σ (2a²)^n · a / (1·3·…·(2n+1)) (all terms positive, no cancellation), from 2.5 on
// 1 − erfc(a) with erfc's continued fraction e^(−a²)/√π / (a + (1/2)/(a + 1/(a + (3/2)/(a + …)))), 40 levels.
export function erf(x) {
  const a = Math.abs(x);
  if (Number.isNaN(a)) return NaN;
  let r = 1;
  if (a < 2.5) {
    const a2 = 2 * a * a;
    let term = a, sum = a;
    for (let n = 1; term > 1e-17 * sum; n++) {
      term *= a2 / (2 * n + 1);
      sum += term;
    }
    r = TWO_OVER_SQRT_PI * Math.exp(-a * a) * sum;
  } else if (a < 6) {
    let f = 0;
    for (let n = 40; n >= 1; n--) f = (n / 2) / (a + f);
    r = 1 - Math.exp(-a * a) / SQRT_PI / (a + f);
  }
  return x < 0 ? -r : r;
}

// GELU in place, the exact form (torch's default): x · (1 + erf(x / √2)) / 2
function gelu(a, n) {
  for (let i = 0; i < n; i++) {
    const v = a[i];
    a[i] = 0.5 * v * (1 + erf(v * SQRT_HALF));
  }
}

// LayerNorm without bias, eps 1e-5, of T rows of width C: out[t] = (x[t] − mean) / √(var + eps) · w
function layerNorm(out, x, w, T, C) {
  for (let t = 0, r = 0; t < T; t++, r += C) {
    let mean = 0, sq = 0;
    for (let i = 0; i < C; i++) mean += x[r + i];
    mean /= C;
    for (let i = 0; i < C; i++) {
      const d = x[r + i] - mean;
      sq += d * d;
    }
    const inv = 1 / Math.sqrt(sq / C + 1e-5);
    for (let i = 0; i < C; i++) out[r + i] = (x[r + i] - mean) * inv * w[i];
  }
}

// out[t, o] (+)= Σ_i W[o, i] · x[t, i] for T rows: W is torch's Linear weight (out × in, rows contiguous), read
// once for all T rows (four weight rows against two input rows at a time), which is why verifying k + 1
// positions costs less than k + 1 single forwards. With add, the product is rounded to float32 first and then
// added to out (the residual stream: x + proj(y), as torch computes it).
function matmul(out, x, W, T, nIn, nOut, add = false) {
  if (T === 1) return matvec(out, x, W, nIn, nOut, add);
  let o = 0;
  for (; o + 4 <= nOut; o += 4) {
    let t = 0;
    for (; t + 2 <= T; t += 2) dot4x2(out, x, W, o, t, nIn, nOut, add);
    if (t < T) dot4x1(out, x, W, o, t, nIn, nOut, add);
  }
  for (; o < nOut; o++) {
    for (let t = 0; t < T; t++) put(out, t * nOut + o, dot(W, o * nIn, x, t * nIn, nIn), add);
  }
}

function dot(a, i0, b, j0, n) {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i0 + i] * b[j0 + i];
  return s;
}

// one input row (the common case: a single new token) against eight weight rows at a time
function matvec(out, x, W, nIn, nOut, add) {
  let o = 0;
  for (; o + 8 <= nOut; o += 8) {
    const r0 = o * nIn, r1 = r0 + nIn, r2 = r1 + nIn, r3 = r2 + nIn, r4 = r3 + nIn, r5 = r4 + nIn, r6 = r5 + nIn,
          r7 = r6 + nIn;
    let a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
    for (let i = 0; i < nIn; i++) {
      const xi = x[i];
      a0 += W[r0 + i] * xi; a1 += W[r1 + i] * xi; a2 += W[r2 + i] * xi; a3 += W[r3 + i] * xi;
      a4 += W[r4 + i] * xi; a5 += W[r5 + i] * xi; a6 += W[r6 + i] * xi; a7 += W[r7 + i] * xi;
    }
    put(out, o, a0, add); put(out, o + 1, a1, add); put(out, o + 2, a2, add); put(out, o + 3, a3, add);
    put(out, o + 4, a4, add); put(out, o + 5, a5, add); put(out, o + 6, a6, add); put(out, o + 7, a7, add);
  }
  for (; o < nOut; o++) put(out, o, dot(W, o * nIn, x, 0, nIn), add);
}

function put(out, at, s, add) {
  out[at] = add ? out[at] + Math.fround(s) : s;
}

function dot4x2(out, x, W, o, t, nIn, nOut, add) {
  const r0 = o * nIn, r1 = r0 + nIn, r2 = r1 + nIn, r3 = r2 + nIn, xa = t * nIn, xb = xa + nIn;
  let a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
  for (let i = 0; i < nIn; i++) {
    const w0 = W[r0 + i], w1 = W[r1 + i], w2 = W[r2 + i], w3 = W[r3 + i], xi = x[xa + i], yi = x[xb + i];
    a0 += w0 * xi; a1 += w1 * xi; a2 += w2 * xi; a3 += w3 * xi;
    b0 += w0 * yi; b1 += w1 * yi; b2 += w2 * yi; b3 += w3 * yi;
  }
  const at = t * nOut + o, bt = at + nOut;
  put(out, at, a0, add); put(out, at + 1, a1, add); put(out, at + 2, a2, add); put(out, at + 3, a3, add);
  put(out, bt, b0, add); put(out, bt + 1, b1, add); put(out, bt + 2, b2, add); put(out, bt + 3, b3, add);
}

function dot4x1(out, x, W, o, t, nIn, nOut, add) {
  const r0 = o * nIn, r1 = r0 + nIn, r2 = r1 + nIn, r3 = r2 + nIn, xa = t * nIn;
  let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  for (let i = 0; i < nIn; i++) {
    const xi = x[xa + i];
    a0 += W[r0 + i] * xi; a1 += W[r1 + i] * xi; a2 += W[r2 + i] * xi; a3 += W[r3 + i] * xi;
  }
  const at = t * nOut + o;
  put(out, at, a0, add); put(out, at + 1, a1, add); put(out, at + 2, a2, add); put(out, at + 3, a3, add);
}

// Causal self-attention of T new positions after `past` cached ones. qkv holds each new row's q, k, v (in that
// order, C each); k and v go into the cache first, then row t's query attends to positions 0 … past + t.
function attend(y, qkv, K, V, past, T, C, H, scores, acc) {
  const hs = C / H, scale = 1 / Math.sqrt(hs);
  for (let t = 0; t < T; t++) {
    const src = t * 3 * C, dst = (past + t) * C;
    for (let i = 0; i < C; i++) {
      K[dst + i] = qkv[src + C + i];
      V[dst + i] = qkv[src + 2 * C + i];
    }
  }
  for (let t = 0; t < T; t++) {
    const seen = past + t + 1;
    for (let h = 0; h < H; h++) {
      const q = t * 3 * C + h * hs, off = h * hs;
      let max = -Infinity, sum = 0;
      for (let j = 0; j < seen; j++) {
        let s = 0;
        for (let d = 0, kj = j * C + off; d < hs; d++) s += qkv[q + d] * K[kj + d];
        scores[j] = s * scale;
        if (scores[j] > max) max = scores[j];
      }
      for (let j = 0; j < seen; j++) sum += (scores[j] = Math.exp(scores[j] - max));
      acc.fill(0);
      for (let j = 0; j < seen; j++) {
        const a = scores[j] / sum;
        for (let d = 0, vj = j * C + off; d < hs; d++) acc[d] += a * V[vj + d];
      }
      for (let d = 0, out = t * C + off; d < hs; d++) y[out + d] = acc[d];
    }
  }
}

// softmax in float64 of one float32 row of logits
function softmaxRow(row) {
  const p = new Float64Array(row.length);
  let max = -Infinity, sum = 0;
  for (let i = 0; i < row.length; i++) if (row[i] > max) max = row[i];
  for (let i = 0; i < row.length; i++) sum += (p[i] = Math.exp(row[i] - max));
  for (let i = 0; i < row.length; i++) p[i] /= sum;
  return p;
}

// Keys and values of the positions seen so far, one Float32Array per layer, preallocated to the context.
export class KVCache {
  constructor(config) {
    const size = config.block_size * config.n_embd;
    this.keys = Array.from({ length: config.n_layer }, () => new Float32Array(size));
    this.values = Array.from({ length: config.n_layer }, () => new Float32Array(size));
    this.length = 0;
  }

  truncate(n) {
    this.length = Math.max(0, Math.min(this.length, n));
  }
}

// A safetensors file of the family → {config (from its __metadata__), tensors}
export function modelFile(buffer) {
  const { metadata, tensors } = readSafetensors(buffer);
  try {
    return { config: JSON.parse(metadata.config), tensors };
  } catch {
    throw new Error("safetensors: __metadata__.config is missing or not JSON: which model shape is this?");
  }
}

// What every forward refuses before it computes anything: a context overflow, no rows, a token out of range
export function checkFeed({ block_size: B, vocab_size: V }, tokens, past, last) {
  const T = tokens.length;
  if (past + T > B) throw new Error(`sequence of ${past + T} tokens exceeds the context of ${B}`);
  if (T < 1 || last < 1 || last > T) throw new Error(`forward: ${T} tokens, ${last} rows asked`);
  for (const id of tokens) {
    if (!Number.isInteger(id) || id < 0 || id >= V) throw new Error(`token ${id} is not in the vocabulary of ${V}`);
  }
}

export class GPT {
  constructor(config, tensors) {
    this.kernel = "js";  // the forward's kernel (widgets/e6/forwards.mjs: "js" or "wasm-simd128")
    this.config = checkConfig(config);
    const w = checkedWeights(this.config, tensors), { block_size: B, n_embd: C, vocab_size: V } = this.config;
    this.tokEmb = w["tok_emb.weight"];
    this.posEmb = w["pos_emb.weight"];
    this.lnF = w["ln_f.weight"];
    this.layers = Array.from({ length: this.config.n_layer }, (_, i) => {
      const p = `blocks.${i}.`;
      return { ln1: w[p + "ln1.weight"], qkv: w[p + "attn.qkv.weight"], proj: w[p + "attn.proj.weight"],
               ln2: w[p + "ln2.weight"], up: w[p + "mlp.up.weight"], down: w[p + "mlp.down.weight"] };
    });
    // work buffers for up to a full context of new positions, reused by every call
    this.x = new Float32Array(B * C);
    this.h = new Float32Array(B * C);
    this.qkv = new Float32Array(B * 3 * C);
    this.y = new Float32Array(B * C);
    this.hidden = new Float32Array(B * 4 * C);
    this.scores = new Float64Array(B);
    this.acc = new Float64Array(C / this.config.n_head);
    this.out = new Float32Array(B * V);
  }

  static fromSafetensors(buffer) {
    const { config, tensors } = modelFile(buffer);
    return new GPT(config, tensors);
  }

  // Feed tokens (the positions after cache.length) through the model; the cache grows by tokens.length.
  // Returns the logits of the last `last` fed positions: a view of a reused buffer, row-major [last × vocab].
  forward(tokens, cache, last = tokens.length) {
    const { n_embd: C, vocab_size: V, n_head: H } = this.config;
    const T = tokens.length, past = cache.length;
    checkFeed(this.config, tokens, past, last);
    const { x, h, qkv, y, hidden } = this;
    for (let t = 0; t < T; t++) {
      const id = tokens[t];
      for (let i = 0, e = id * C, p = (past + t) * C, r = t * C; i < C; i++) x[r + i] = this.tokEmb[e + i] + this.posEmb[p + i];
    }
    for (let l = 0; l < this.layers.length; l++) {
      const layer = this.layers[l];
      layerNorm(h, x, layer.ln1, T, C);
      matmul(qkv, h, layer.qkv, T, C, 3 * C);
      attend(y, qkv, cache.keys[l], cache.values[l], past, T, C, H, this.scores, this.acc);
      matmul(x, y, layer.proj, T, C, C, true);
      layerNorm(h, x, layer.ln2, T, C);
      matmul(hidden, h, layer.up, T, C, 4 * C);
      gelu(hidden, T * 4 * C);
      matmul(x, hidden, layer.down, T, 4 * C, C, true);
    }
    cache.length = past + T;
    const first = T - last;
    layerNorm(h, x.subarray(first * C), this.lnF, last, C);
    matmul(this.out, h, this.tokEmb, last, C, V);  // tied output embedding
    return this.out.subarray(0, last * V);
  }
}

// A model with a KV cache over a token sequence that grows and is cut back after rejections: the Decoder of
// generator/data/speculative.py. `cached` leading tokens are in the cache; the caller says how many stay valid.
export class Decoder {
  constructor(gpt) {
    this.gpt = gpt;
    this.cache = gpt.newCache?.() ?? new KVCache(gpt.config);  // the WebAssembly forward keeps its cache in its memory
    this.forwards = 0;
  }

  get cached() {
    return this.cache.length;
  }

  rollback(valid) {
    this.cache.truncate(valid);
  }

  // The float32 logits after each of the last `last` positions of tokens (copies, one Float32Array per row).
  // tokens.slice(0, cached) must be what the cache holds; the rest is fed in one forward.
  logits(tokens, last) {
    const V = this.gpt.config.vocab_size, context = this.gpt.config.block_size;
    if (tokens.length > context) throw new Error(`sequence of ${tokens.length} tokens exceeds the context of ${context}`);
    if (!(last >= 1 && last <= tokens.length)) throw new Error(`logits: ${last} rows asked of ${tokens.length} tokens`);
    this.rollback(tokens.length - last);  // the last `last` positions must be fed to get their outputs
    const out = this.gpt.forward(tokens.slice(this.cached), this.cache, last);
    this.forwards += 1;
    return Array.from({ length: last }, (_, r) => out.slice(r * V, (r + 1) * V));
  }

  // Next-token distributions (float64 softmax of the float32 logits) after each of the last `last` positions.
  probs(tokens, last) {
    return this.logits(tokens, last).map((row) => softmaxRow(row));
  }
}
