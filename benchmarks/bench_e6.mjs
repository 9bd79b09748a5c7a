// E6's costs in JavaScript: what our three models cost per token, c, v(k), and the speedup of speculative over
// target-only sampling, with the real browser modules (forwards.mjs's WebAssembly SIMD forward, speculate.mjs,
// engine.mjs's glue over widgets/sampler.py in Pyodide), and beside them model.mjs's JavaScript forward. No asserts.
//
//   node benchmarks/bench_e6.mjs [--quick] [--repeats N] [--drafts c1_dim64,...] [--ks 1,2,...] [--json OUT]
//
// The same measurement runs in Chromium (benchmarks/bench_e6_browser.py imports this file into a page and calls
// runBench with the site's copies of the modules), so this file has no top-level import of Node modules.
//
// Method, as `make measure` (generator/data/measure.py, timing.py) does it with torch: warm-up first (untimed);
// then `repeats` passes over the accounting's prompts × seeds (read from c13.json), in each of which the models'
// one-token forwards and the target's k + 1-position forwards are timed (their order rotated every time), then
// every draft × k runs speculatively with a target-only run before every `baselineEvery` of them (order rotated).
// One forward sample = the mean of `calls` forwards over the new positions after a cache of `context` positions
// (the cut back to the context is inside the timed loop: it only resets a counter, and one clock reading over
// all calls keeps Chromium's coarse clock out of the figure). Speculative and target-only sampling at T = 1,
// the same prompts and seeds; the target-only runs of a repeat are pooled into one baseline; speedup = target-only
// ms per token ÷ speculative ms per token, on model time (the forwards the formula counts) and end to end (the
// Python sampler's decisions and the calls into Pyodide included). Medians with quartiles and min–max.

import { formatSideBySide, formatTable } from "./bench_e6_table.mjs";

export const SETTINGS = {
  full: { repeats: 3, nNew: 32, context: 48, calls: 10, baselineEvery: 4, seeds: null },
  quick: { repeats: 2, nNew: 4, context: 16, calls: 2, baselineEvery: 4, seeds: 1 },
};

export function stats(values) {
  // median, quartiles (the inclusive method of Python's statistics.quantiles), min, max, n
  const v = [...values].sort((a, b) => a - b);
  const at = (q) => {
    const pos = q * (v.length - 1);
    const lo = Math.floor(pos);
    return lo + 1 < v.length ? v[lo] + (v[lo + 1] - v[lo]) * (pos - lo) : v[lo];
  };
  return { median: at(0.5), q1: at(0.25), q3: at(0.75), min: v[0], max: v[v.length - 1], n: v.length };
}

export function rotated(items, r) {
  // started at a different place each time, reversed on odd times: no item always goes first (timing.py's)
  const shift = r % items.length;
  const out = [...items.slice(shift), ...items.slice(0, shift)];
  return r % 2 ? out.reverse() : out;
}

const now = () => performance.now();

export function forwardMs(Decoder, gpt, context, fresh, calls) {
  // ms per forward of `gpt` over fresh.length new positions after a KV cache holding `context`
  const dec = new Decoder(gpt);
  dec.logits(context, 1);
  const tokens = context.concat(fresh);
  const start = now();
  for (let i = 0; i < calls; i++) {
    dec.rollback(context.length);
    dec.logits(tokens, fresh.length);
  }
  return (now() - start) / calls;
}

function forwardBlock(env, index, samples) {
  // one sample of every model's one-token forward (in turn) and of the target's k + 1-position forwards; right after
  // each model's, one call into Pyodide that does nothing (env.nop): what a decision costs there before its own work
  const { Decoder, gpts, target, drafts, ks, context, fresh, calls, nop } = env;
  const one = {};
  for (const name of rotated([target, ...drafts], index)) {
    one[name] = forwardMs(Decoder, gpts[name], context, fresh.slice(0, 1), calls);
    (samples.ms[name] ??= []).push(one[name]);
    if (nop) {
      const start = now();
      nop();
      ((samples.nop ??= {})[name] ??= []).push(now() - start);
    }
  }
  for (const d of drafts) (samples.c[d] ??= []).push(one[d] / one[target]);
  for (const k of rotated(ks, index)) {
    (samples.v[k] ??= []).push(forwardMs(Decoder, gpts[target], context, fresh.slice(0, k + 1), calls) / one[target]);
  }
}

async function timedRun(env, job, config) {
  // one run, target-only (config null) or speculative; returns [wall ms, model ms, tokens, result]
  const { Decoder, gpts, target, sampler, spec, nNew } = env;
  // no pause between rounds (E6 yields to its worker's event loop; its totals leave the pauses out, as here)
  const args = { target: new Decoder(gpts[target]), prompt: job.prompt, nNew, greedy: false,
                 stream: sampler.stream(job.seed), sampler, clock: now, pause: async () => {} };
  if (config) Object.assign(args, { draft: new Decoder(gpts[config.draft]), k: config.k });
  const start = now();
  const res = config ? await spec.speculative(args) : await spec.targetOnly(args);
  const wall = res.ms.total ?? now() - start;
  if (args.stream?.destroy) args.stream.destroy();
  return [wall, res.ms.target + (res.ms.draft ?? 0), res.tokens.length, res];
}

async function speculativePass(env, job, configs, spent) {
  for (const [i, config] of configs.entries()) {
    if (i % env.baselineEvery === 0) add(spent, "target_only", await timedRun(env, job, null));
    add(spent, `${config.draft} ${config.k}`, await timedRun(env, job, config));
  }
}

function add(spent, key, [wall, model, tokens, res]) {
  const cell = (spent[key] ??= { wall: 0, model: 0, sampler: 0, tokens: 0, rounds: 0, accepted: 0, tested: 0 });
  cell.wall += wall;
  cell.sampler += res.ms.sampler;
  cell.model += model;
  cell.tokens += tokens;
  if (res.rounds) {
    cell.rounds += res.rounds.length;
    for (const r of res.rounds) {
      cell.accepted += r.accepted;
      cell.tested += r.kind === "resampled" ? r.accepted + 1 : r.accepted; // accept tests up to the first reject
    }
  }
}

function poolSpeedups(spent, samples, counts) {
  // one sample per repeat: the pooled target-only ms per token ÷ each configuration's
  const base = spent.target_only;
  delete spent.target_only;
  (samples.baseSampler ??= []).push(base.sampler / base.tokens);  // one draw per token, each after a target forward
  for (const [key, cell] of Object.entries(spent)) {
    const s = (samples.speedup[key] ??= { model: [], wall: [], targetMs: [], specMs: [] });
    s.model.push((base.model / base.tokens) / (cell.model / cell.tokens));
    s.wall.push((base.wall / base.tokens) / (cell.wall / cell.tokens));
    s.targetMs.push(base.wall / base.tokens);
    s.specMs.push(cell.wall / cell.tokens);
    (s.samplerPerRound ??= []).push(cell.sampler / cell.rounds);
    counts[key] ??= { tokens: cell.tokens, rounds: cell.rounds, accepted: cell.accepted, tested: cell.tested };
  }
}

async function warmUp(env) {
  // every forward size, every draft's speculative loop and the target-only loop once, untimed
  const { Decoder, gpts, target, drafts, ks, context, fresh, calls } = env;
  for (const name of [target, ...drafts]) forwardMs(Decoder, gpts[name], context, fresh.slice(0, 1), calls);
  for (const k of ks) forwardMs(Decoder, gpts[target], context, fresh.slice(0, k + 1), calls);
  const job = env.jobs[0];
  await timedRun(env, job, null);
  for (const draft of drafts) await timedRun(env, job, { draft, k: Math.max(...ks) });
}

export function jobsOf(c13, setting) {
  // the accounting's prompts (their token ids from c13.json) × its seeds
  const ids = Object.fromEntries(c13.prompts.map((p) => [p.text, p.tokens]));
  const seeds = setting.seeds ? c13.accounting.seeds.slice(0, setting.seeds) : c13.accounting.seeds;
  return c13.accounting.prompts.flatMap((text) => seeds.map((seed) => ({ text, prompt: ids[text], seed })));
}

export function contextOf(c13, setting, ks) {
  // the fixed context: the prompts followed by the target's own greedy text (c13.json's greedy.reference)
  const seq = c13.prompts.flatMap((p) => [...p.tokens, ...(c13.greedy.reference[p.text] ?? [])]);
  const need = setting.context + Math.max(...ks) + 1;
  if (seq.length < need) throw new Error(`only ${seq.length} tokens of text for a context of ${need}`);
  return { context: seq.slice(0, setting.context), fresh: seq.slice(setting.context, need) };
}

// Runs the whole measurement. modules: {Decoder, targetOnly, speculative}; gpts: {name: GPT}; jsGpts: the same
// with the JavaScript forward, timed in turn (forwards only); sampler: the engine's adapter over widgets/sampler.py.
export async function runBench({ modules, gpts, jsGpts, sampler, nop, c13, setting, drafts, ks, log = () => {} }) {
  const target = c13.constants.target, jobs = jobsOf(c13, setting);
  const env = { Decoder: modules.Decoder, spec: modules, gpts, sampler, nop, target, drafts, ks, jobs,
                calls: setting.calls, nNew: setting.nNew, baselineEvery: setting.baselineEvery,
                ...contextOf(c13, setting, ks) };
  for (const { prompt } of jobs) {
    const need = prompt.length + setting.nNew + Math.max(...ks);
    if (need > gpts[target].config.block_size) throw new Error(`a prompt needs ${need} positions`);
  }
  const started = now();
  await warmUp(env);
  if (jsGpts) await warmUp({ ...env, gpts: jsGpts });
  log(`warm-up done in ${((now() - started) / 1000).toFixed(1)} s`);
  const samples = { ms: {}, c: {}, v: {}, speedup: {} };
  const counts = {};
  const configs = ks.flatMap((k) => drafts.map((draft) => ({ draft, k })));
  for (let r = 0; r < setting.repeats; r++) {
    const spent = {};
    for (const [j, job] of rotated(jobs, r).entries()) {
      const index = r * jobs.length + j;
      for (const js of rotated(jsGpts ? [false, true] : [false], index)) {  // the JS forward in turn, when given
        forwardBlock(js ? { ...env, gpts: jsGpts, nop: null } : env, index,
                     js ? (samples.js ??= { ms: {}, c: {}, v: {} }) : samples);
      }
      await speculativePass(env, job, rotated(configs, index), spent);
    }
    poolSpeedups(spent, samples, counts);
    log(`repeat ${r + 1}/${setting.repeats} done at ${((now() - started) / 1000).toFixed(1)} s`);
  }
  return summarize(samples, counts, { target, drafts, ks, setting, jobs, seconds: (now() - started) / 1000,
                                       simd: gpts[target].simd });
}

const forwardStats = (s, ks) => ({ ms: Object.fromEntries(Object.entries(s.ms).map(([name, v]) => [name, stats(v)])),
                                    v: ks.map((k) => ({ k, ...stats(s.v[k]) })) });

function summarize(samples, counts, { target, drafts, ks, setting, jobs, seconds, simd }) {
  const speedup = {};
  for (const draft of drafts) {
    speedup[draft] = ks.map((k) => {
      const s = samples.speedup[`${draft} ${k}`];
      const n = counts[`${draft} ${k}`];
      return { k, model: stats(s.model), wall: stats(s.wall), targetOnlyMsPerToken: stats(s.targetMs),
               speculativeMsPerToken: stats(s.specMs), samplerMsPerRound: stats(s.samplerPerRound), ...n, alpha: n.tested ? n.accepted / n.tested : null,
               tokensPerTargetForward: n.tokens / n.rounds };
    });
  }
  const mean = (xs) => (xs?.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  return {
    target, drafts, ks, method: { ...setting, jobs: jobs.length, seconds },
    // a browser's clock is coarse (0.1 ms steps, jittered so that a mean is unbiased): the nop call as a mean
    nopMs: samples.nop && Object.fromEntries(Object.entries(samples.nop).map(([name, v]) => [name, mean(v)])),
    targetOnlySamplerMsPerToken: stats(samples.baseSampler),
    ...forwardStats(samples, ks), c: Object.fromEntries(drafts.map((d) => [d, stats(samples.c[d])])),
    speedup, js: samples.js && forwardStats(samples.js, ks), simd,  // the JavaScript forward's, when it ran too
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Chromium (called by benchmarks/bench_e6_browser.py in a page of the served site)
// ---------------------------------------------------------------------------------------------------------------

// widgets/sampler.py and its glue installed as the E2/E6 worker installs them (widgets/py/load.mjs, `load`), then
// engine.mjs's adapter over them
export function pythonSampler(engine, load, pyodide, sources) {
  load.installPython(pyodide, sources);
  return engine.samplerAdapter(pyodide);
}

async function fetchBytes(urls) {
  // the first of `urls` that answers 200
  for (const url of urls) {
    const res = await fetch(url);
    if (res.ok) return [url, await res.arrayBuffer()];
  }
  throw new Error(`none of ${urls.join(", ")} could be fetched`);
}

// site: the site's root URL; fallback: a folder with the weights when the site has none yet; argv: the options
export async function browserMain({ site, fallback, c13, measured, argv }) {
  const { setting, drafts, ks } = parseArgs(argv, c13);
  const e6 = new URL("assets/c13/e6/", site);
  const forwards = await import(new URL("forwards.mjs", e6));
  const spec = await import(new URL("speculate.mjs", e6));
  const engine = await import(new URL("engine.mjs", e6));
  const sets = { js: {}, wasm: {} };
  for (const name of [c13.constants.target, ...drafts]) {
    const file = `${name}.safetensors`;
    const [url, bytes] = await fetchBytes([new URL(`assets/c13/models/${file}`, site).href, fallback + file]);
    sets.js[name] = await forwards.loadGPT(bytes, { engine: "js" });
    sets.wasm[name] = await forwards.loadGPT(bytes, { engine: "wasm" });  // the site's forward.wasm, or an error
    console.log(`bench_e6: ${name}: ${url}`);
  }
  const vendor = new URL("assets/vendor/pyodide/", site).href;
  const { loadPyodide } = await import(vendor + "pyodide.mjs");
  const pyodide = await loadPyodide({ indexURL: vendor });
  const load = await import(new URL("assets/c13/py/load.mjs", site));
  const sources = await load.pythonSources(load.fetchFrom(new URL("assets/c13/", site)));
  const sampler = pythonSampler(engine, load, pyodide, sources);
  const results = await runBench({ modules: { Decoder: forwards.Decoder, ...spec }, gpts: sets.wasm, jsGpts: sets.js,
                                   sampler, nop: pyodide.runPython("lambda: None"), c13, setting, drafts, ks,
                                   log: (s) => console.log(`bench_e6: ${s}`) });
  const where = `Chromium ${navigator.userAgent.match(/Chrome\/([\d.]+)/)?.[1] ?? ""}`.trim();
  results.machine = { where, cores: navigator.hardwareConcurrency };
  return { results, lines: [...formatTable(results, where, measured), ...formatSideBySide(results)] };
}

// ---------------------------------------------------------------------------------------------------------------
// Node
// ---------------------------------------------------------------------------------------------------------------

export function parseArgs(argv, c13) {
  const opts = { quick: false, repeats: null, drafts: c13.constants.drafts, ks: c13.constants.ks, json: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--quick") opts.quick = true;
    else if (a === "--repeats") opts.repeats = Number(next());
    else if (a === "--drafts") opts.drafts = next().split(",");
    else if (a === "--ks") opts.ks = next().split(",").map(Number);
    else if (a === "--json") opts.json = next();
    else throw new Error(`unknown option ${a}; options: --quick, --repeats N, --drafts a,b, --ks 1,2, --json OUT`);
  }
  if (opts.repeats !== null && !(Number.isInteger(opts.repeats) && opts.repeats >= 1)) {
    throw new Error(`--repeats must be a positive integer`);
  }
  for (const d of opts.drafts) if (!c13.constants.drafts.includes(d)) throw new Error(`unknown draft ${d}`);
  for (const k of opts.ks) if (!(Number.isInteger(k) && k >= 1 && k <= 8)) throw new Error(`k must be 1…8, got ${k}`);
  const setting = { ...(opts.quick ? SETTINGS.quick : SETTINGS.full) };
  if (opts.repeats) setting.repeats = opts.repeats;
  return { ...opts, setting };
}

async function nodeMain(argv) {
  const [fs, os, v8] = await Promise.all(["node:fs", "node:os", "node:v8"].map((m) => import(m)));
  const root = new URL("../", import.meta.url);
  const readJSON = (rel) => JSON.parse(fs.readFileSync(new URL(rel, root), "utf8"));
  const c13 = readJSON("precomputed/c13.json");
  const measured = fs.existsSync(new URL("precomputed/measured.json", root)) ? readJSON("precomputed/measured.json") : null;
  const opts = parseArgs(argv, c13);
  const log = (s) => process.stderr.write(`bench_e6: ${s}\n`);
  const forwards = await import(new URL("widgets/e6/forwards.mjs", root));
  const spec = await import(new URL("widgets/e6/speculate.mjs", root));
  const engine = await import(new URL("widgets/e6/engine.mjs", root));
  const { assembleForward } = await import(new URL("generator/pages/assemble_wasm.mjs", root));
  v8.setFlagsFromString("--experimental-wasm-relaxed-simd");  // Node 20 (on from Node 22)
  const relaxed = forwards.relaxedSupported();  // forward.wat assembled as the build does, the build E6 would fetch
  const wasm = await WebAssembly.compile(await assembleForward(relaxed ? "relaxed" : "standard"));
  const sets = { js: {}, wasm: {} };
  for (const name of [c13.constants.target, ...opts.drafts]) {
    // the browser's float16 files when the data stage wrote them; else the float32 checkpoints (same arithmetic)
    const f16 = new URL(`precomputed/browser/${name}.safetensors`, root);
    const file = fs.existsSync(f16) ? f16 : new URL(`models/${name}/model.safetensors`, root);
    const bytes = fs.readFileSync(file);
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
    [sets.js[name], sets.wasm[name]] = [await forwards.loadGPT(buffer, { engine: "js" }), await forwards.loadGPT(buffer, { engine: "wasm", wasm, relaxed })];
    log(`${name}: ${file.pathname.slice(root.pathname.length)}`);
  }
  const { sampler, nop } = await nodeSampler(engine, root);
  const results = await runBench({ modules: { Decoder: forwards.Decoder, ...spec }, gpts: sets.wasm, jsGpts: sets.js,
                                   sampler, nop, c13, setting: opts.setting, drafts: opts.drafts, ks: opts.ks, log });
  const cpu = os.cpus()[0]?.model ?? "unknown CPU", where = `Node ${process.version}`;
  results.machine = { where, cpu, cores: os.cpus().length, load: os.loadavg() };
  console.log(`${where}, ${cpu}, ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}`);
  for (const l of [...formatTable(results, where, measured), ...formatSideBySide(results)]) console.log(l);
  if (opts.json) fs.writeFileSync(opts.json, JSON.stringify(results, null, 1));
}

async function nodeSampler(engine, root) {
  // Pyodide from node_modules (never the network), widgets/sampler.py and its glue as the worker installs them
  const realFetch = globalThis.fetch;
  globalThis.fetch = (resource, ...rest) => {
    const url = String(resource?.url ?? resource);
    if (!url.startsWith("file:")) throw new Error(`network access attempted: ${url}`);
    return realFetch(resource, ...rest);
  };
  const { startPyodide } = await import(new URL("tests/widgets/node/e6_lib.mjs", root));
  const pyodide = await startPyodide();
  return { sampler: engine.samplerAdapter(pyodide), nop: pyodide.runPython("lambda: None") };
}

if (typeof process !== "undefined" && process.argv?.[1]?.endsWith("bench_e6.mjs")) {
  nodeMain(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`bench_e6: FAILED: ${err.stack || err}\n`);
    process.exit(1);
  });
}
