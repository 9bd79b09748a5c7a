// Node driver for tests/widgets/test_e6_timing.py: E6's measuring phase (widgets/e6/timing.mjs) and its figures
// (spread.mjs) under fake clocks that step by 0.1 ms as a browser's performance.now() does in a worker of a page
// that is not cross-origin isolated; then the whole worker side (engine.mjs, with the real models and the real
// widgets/sampler.py in Pyodide) under such a clock, with 再测一次 (e6-measure) adding samples.
//
//   node tests/widgets/node/e6_timing.mjs JOB.json
//
// JOB.json: {"sampler": path of sampler.py, "browser": folder of the browser files, "seeds": [[a, b], ...],
//            "run": {prompt, draft, k, temperature, nNew, seed}}
// Prints ONE line of JSON (see main). No figure here comes from a real clock: every clock is a fake one.

import { readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Engine } from "../../../widgets/e6/engine.mjs";
import { Decoder } from "../../../widgets/e6/model.mjs";
import { addSamples } from "../../../widgets/e6/report.js";
import { figures } from "../../../widgets/e6/spread.mjs";
import { TIMING, measureForwards } from "../../../widgets/e6/timing.mjs";
import { random, startPyodide, targetOf } from "./e6_lib.mjs";

const STEP = 0.1; // ms: the clock's step
// the fake machine: ms per call of each forward, each call ±2 %, and the machine's speed wandering ±3 % from one
// clock reading to the next (load from elsewhere); k = 4
export const COSTS = { target: 1.23, draft: 0.137, verify: 4.51 };
const JITTER = 0.02;
const WANDER = 0.03;
const K = 4;
// the verdict's runs (engine.mjs runTimes): five pairs, each loop's total and its forwards' own time in ms
const run = (total, model, tokens) => ({ total, model, target: model, draft: 0, sampler: total - model, tokens,
  targetForwards: tokens, draftForwards: 0, rounds: 0 });
const FACTS = { k: K, generated: 40, rounds: 14, targetForwards: 14, draftForwards: 56, tested: 50, accepted: 30,
  runs: { target: [80, 84, 78, 90, 82].map((ms) => run(ms, ms - 20, 32)),
    speculative: [60, 58, 66, 61, 59].map((ms) => run(ms, ms - 25, 40)) } };

function fail(message) {
  process.stderr.write(`e6_timing.mjs: FAILED: ${message}\n`);
  process.exit(1);
}


/** Fake time: `spend` moves it, each reading costs 0.4 µs, and clock() reads it floored to the step. */
function fakeTime(seed, step = STEP) {
  const r = random(seed);
  const state = { t: 1000 + 7 * r(), speed: 1, reads: 0 };
  const clock = () => {
    state.t += 0.0004;
    state.reads += 1;
    state.speed = 1 + WANDER * (2 * r() - 1);
    return Math.floor(state.t / step) * step;
  };
  const spend = (ms) => { state.t += state.speed * ms * (1 + JITTER * (2 * r() - 1)); };
  return { clock, spend, state };
}

/** A decoder of the fake machine: each call spends its cost of fake time. */
function fakeDecoder(time, one, many) {
  return { forwards: 0, probs(tokens, last) { time.spend(last === 1 ? one : many); this.forwards += 1; return []; } };
}

function fakeMachine(seed, step) {
  const time = fakeTime(seed, step);
  return { time, target: fakeDecoder(time, COSTS.target, COSTS.verify), draft: fakeDecoder(time, COSTS.draft, 0) };
}

const input = { context: [5, 6, 7, 8, 9, 10], drafted: [11, 12, 13, 14] };

/** One measuring phase on the fake machine; beside it, the old way: each call timed alone (20 calls a kind). */
async function fakeRun(seed) {
  const m = fakeMachine(seed);
  const timing = await measureForwards({ target: m.target, draft: m.draft, ...input, clock: m.time.clock,
    pause: async () => {} });
  const alone = (dec, last) => Array.from({ length: 20 }, () => {
    const t0 = m.time.clock();
    dec.probs(input.context, last);
    return m.time.clock() - t0;
  });
  return { timing, facts: FACTS.runs, measured: figures(timing.samples, FACTS), single: { target: alone(m.target, 1), draft: alone(m.draft, 1) } };
}

/** A phase cancelled after its first round: how many forwards ran after the cancel was asked. */
async function fakeCancel() {
  const m = fakeMachine(99);
  let asked = null;
  const forwards = () => m.target.forwards + m.draft.forwards;
  try {
    await measureForwards({ target: m.target, draft: m.draft, ...input, clock: m.time.clock, pause: async () => {},
      cancelled: () => asked !== null, onRound: () => { asked ??= forwards(); } });
    return { cancelled: false };
  } catch (err) {
    return { cancelled: !!err.cancelled, message: err.message, after: forwards() - asked };
  }
}

/** Clocks that cannot time blocks (one that stands, one of 16.7 ms steps) and a coarse one that can (1 ms). */
async function otherClocks() {
  const out = {};
  for (const [name, clock] of [["standing", () => 5], ["coarse", null], ["ms", null]]) {
    const m = fakeMachine(3, name === "coarse" ? 16.7 : 1);
    const started = Date.now();
    try {
      const t = await measureForwards({ target: m.target, draft: m.draft, ...input, clock: clock || m.time.clock,
        pause: async () => {} });
      out[name] = { step: t.step, minBlockMs: t.minBlockMs, shortest: Math.min(...t.blocks.map((b) => b.ms)) };
    } catch (err) {
      out[name] = { error: err.message, cancelled: !!err.cancelled };
    }
    out[name].wallMs = Date.now() - started; // not a timing of anything measured: how long the refusal took
  }
  return out;
}


/** The real models under a fake clock: every Decoder.logits call spends fake time by the model's width and the
 * positions it feeds (the real forward runs too, untimed by anything real). */
function fakeForwards(time) {
  const logits = Decoder.prototype.logits;
  Decoder.prototype.logits = function (tokens, last) {
    const fed = tokens.length - Math.min(this.cached, tokens.length - last);
    time.spend((this.gpt.config.n_embd / 256) ** 2 * 1.2 * (1 + 0.8 * (fed - 1)));
    return logits.call(this, tokens, last);
  };
}

/** The worker side in Node: runs and measure requests, each answered as the page would get it. */
function engineOf(pyodide, folder, time) {
  const fetches = {};
  const waiting = new Map();
  const post = (m) => {
    const w = waiting.get(m.id);
    if (m.type === "e6-event") { w.events.push(m.event.type); w.onEvent?.(m.event); return; }
    waiting.delete(m.id);
    w.resolve(m.type === "done" ? { result: m.result, events: w.events } : { error: m.message, cancelled: !!m.cancelled,
      events: w.events });
  };
  const fetchFn = async (url) => {
    const name = fileURLToPath(url).split("/").pop();
    fetches[name] = (fetches[name] || 0) + 1;
    return new Response(readFileSync(fileURLToPath(url)));
  };
  const engine = new Engine({ pyodide, post, fetchFn, clock: time.clock });
  const modelsURL = pathToFileURL(folder + "/").href;
  let id = 0;
  const ask = (type, args, onEvent) => new Promise((resolve) => {
    id += 1;
    waiting.set(id, { resolve, onEvent, events: [] });
    engine.handle({ type, id, args, target: targetOf(folder), modelsURL, files: null });
  });
  return { ask, engine, fetches };
}

/** A run, then 再测一次 twice (samples added as the page adds them), one cancelled and one refused between. */
async function engineSession(job) {
  const time = fakeTime(17);
  fakeForwards(time);
  const pyodide = await startPyodide(job.sampler);
  const { ask, engine, fetches } = engineOf(pyodide, job.browser, time);
  const first = await ask("e6-run", job.run);
  if (!first.result) throw new Error(`the run failed: ${first.error}`);
  const shown = [first.result];
  const again = (result) => ask("e6-measure", { draft: result.draft, context: result.timing.context,
    drafted: result.timing.drafted });
  const measures = [];
  for (let i = 0; i < 2; i++) {
    const answer = await again(shown[shown.length - 1]);
    if (!answer.result) throw new Error(`再测一次 failed: ${answer.error}`);
    measures.push({ events: answer.events, samples: answer.result.timing.samples.length, kernel: answer.result.kernel });
    shown.push(addSamples(shown[shown.length - 1], answer.result.timing));
  }
  const cancel = await ask("e6-measure", { draft: job.run.draft, ...first.result.timing },
    (event) => { if (event.type === "e6-sample") engine.handle({ type: "e6-cancel" }); });
  const refused = await ask("e6-measure", { draft: job.run.draft, context: [], drafted: [] });
  const after = await again(shown[shown.length - 1]);
  const second = await ask("e6-run", job.run);
  return { first: first.result, events: first.events, second: second.result, measures,
    n: shown.map((r) => r.measured.n), last: shown[shown.length - 1].measured,
    cancel: { error: cancel.error, cancelled: cancel.cancelled, events: cancel.events },
    refused: { error: refused.error, cancelled: refused.cancelled }, after: { ok: !!after.result }, fetches };
}

async function main() {
  const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
  const pairs = [];
  for (const [a, b] of job.seeds) pairs.push([await fakeRun(a), await fakeRun(b)]);
  const out = { costs: COSTS, step: STEP, settings: TIMING, pairs, cancel: await fakeCancel(), clocks: await otherClocks() };
  if (job.run) out.engine = await engineSession(job);
  process.stdout.write(JSON.stringify(out) + "\n", () => process.exit(0));
}

main().catch((err) => fail(err.stack || String(err)));
