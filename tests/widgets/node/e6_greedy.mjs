// Node driver for tests/widgets/test_e6_greedy.py: E6's worker side (widgets/e6/engine.mjs, speculate.mjs, model.mjs,
// tokenizer.mjs) with the real widgets/sampler.py in real Pyodide (node_modules/pyodide, offline), on the float16
// browser files the data stage writes (precomputed/browser/).
//
//   node tests/widgets/node/e6_greedy.mjs JOB.json
//
// JOB.json: {"sampler": path of sampler.py, "browser": folder of the browser files,
//            "runs": [{prompt, draft, k, temperature, nNew, seed}, ...]      full Engine runs, in order
//            "replay": {prompt_ids, draft, k, seed, nNew}                      one T = 1 run that keeps its rows
//            "cancel": {prompt, draft, k, temperature, nNew, seed}}           cancelled after its first round
// Prints ONE line of JSON: {"runs": [{result} | {error, cancelled}], "replay": {...}, "cancel": {...},
// "fetches": {file: count}, "load_ms"}. Any failure of the driver itself: a message on stderr, exit 1.

import { readFileSync } from "node:fs";
import { pathToFileURL, fileURLToPath } from "node:url";
import { Engine, samplerAdapter } from "../../../widgets/e6/engine.mjs";
import { Decoder, GPT } from "../../../widgets/e6/model.mjs";
import { speculative, targetOnly } from "../../../widgets/e6/speculate.mjs";
import { TIMING } from "../../../widgets/e6/timing.mjs";
import { startPyodide, targetOf } from "./e6_lib.mjs";


function fail(message) {
  process.stderr.write(`e6_greedy.mjs: FAILED: ${message}\n`);
  process.exit(1);
}

// nothing may reach the network: Pyodide and the models are read from disk
const realFetch = globalThis.fetch;
globalThis.fetch = (resource, ...rest) => {
  const url = String(resource instanceof Request ? resource.url : resource);
  if (!url.startsWith("file:")) throw new Error(`network access attempted (${url})`);
  return realFetch(resource, ...rest);
};

/** An Engine whose fetch reads the browser files from disk (counted), with run(args) → Promise. */
function makeEngine(pyodide, folder) {
  const fetches = {};
  const waiting = new Map();
  const events = new Map();
  const post = (m) => {
    if (m.type === "e6-event") {
      events.get(m.id).push(m.event);
      if (m.event.type === "e6-round" && waiting.get(m.id)?.onRound) waiting.get(m.id).onRound(m.event);
      return;
    }
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.type === "done") w.resolve({ result: m.result, events: events.get(m.id) });
    else w.resolve({ error: m.message, cancelled: m.cancelled, events: events.get(m.id) });
  };
  const fetchFn = async (url) => {
    const name = fileURLToPath(url).split("/").pop();
    fetches[name] = (fetches[name] || 0) + 1;
    return new Response(readFileSync(fileURLToPath(url)));
  };
  // each run ends with a measuring phase (tests/widgets/node/e6_timing.mjs tests it): three rounds here keep the many
  // runs short
  const engine = new Engine({ pyodide, post, fetchFn, timing: { ...TIMING, rounds: 3, runs: 1 } });
  const modelsURL = pathToFileURL(folder + "/").href;
  let nextId = 1;
  const run = (args, onRound) => {
    const id = nextId++;
    events.set(id, []);
    return new Promise((resolve) => {
      waiting.set(id, { resolve, onRound });
      engine.handle({ type: "e6-run", id, args, target: targetOf(folder), modelsURL, files: null });
    });
  };
  return { run, engine, fetches };
}

/** One T = 1 speculative run and one target-only run with the same seed, keeping the first rows each used, so
 * that CPython's sampler can redo their first decisions. */
async function replay(pyodide, folder, job) {
  const load = (name) => GPT.fromSafetensors(new Uint8Array(readFileSync(`${folder}/${name}.safetensors`)).buffer);
  const target = load(targetOf(folder)), draft = load(job.draft);
  const base = samplerAdapter(pyodide);
  const kept = { qRows: [], drawU: [] };
  const sampler = {
    ...base,
    draw(stream, row) {
      const out = base.draw(stream, row);
      if (!kept.first) kept.first = Array.from(row);
      if (kept.qRows.length < job.k && !kept.verify) { kept.qRows.push(Array.from(row)); kept.drawU.push(out.u); }
      return out;
    },
    verify(stream, pRows, qRows, drafted) {
      const rec = base.verify(stream, pRows, qRows, drafted);
      kept.verify ??= { pRows: pRows.map((r) => Array.from(r)), drafted, rec };
      return rec;
    },
  };
  const common = { prompt: job.prompt_ids, nNew: job.nNew, greedy: false, sampler };
  const s1 = base.stream(job.seed);
  const spec = await speculative({ ...common, target: new Decoder(target), draft: new Decoder(draft), k: job.k, stream: s1 });
  const specKept = { qRows: kept.qRows, drawU: kept.drawU, ...kept.verify };
  kept.first = null;
  kept.verify = true; // the target-only run keeps only its first row
  const s2 = base.stream(job.seed);
  const alone = await targetOnly({ ...common, target: new Decoder(target), stream: s2 });
  s1.destroy();
  s2.destroy();
  return { speculative: { tokens: spec.tokens, ...specKept }, target: { tokens: alone.tokens, firstRow: kept.first } };
}

async function main() {
  const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
  const t0 = performance.now();
  const pyodide = await startPyodide(job.sampler);
  const loadMs = performance.now() - t0;
  const { run, fetches, engine } = makeEngine(pyodide, job.browser);
  const out = { load_ms: loadMs, runs: [] };
  for (const args of job.runs || []) {
    const { result, error, cancelled, events } = await run(args);
    const kinds = {};
    for (const e of events) kinds[e.type] = (kinds[e.type] || 0) + 1;
    out.runs.push(result ? { result, events: kinds } : { error, cancelled, events: kinds });
  }
  if (job.cancel) {
    const answer = await run(job.cancel, () => engine.handle({ type: "e6-cancel" }));
    out.cancel = { error: answer.error, cancelled: answer.cancelled,
      rounds: answer.events.filter((e) => e.type === "e6-round").length };
  }
  if (job.replay) out.replay = await replay(pyodide, job.browser, job.replay);
  out.fetches = fetches;
  process.stdout.write(JSON.stringify(out) + "\n", () => process.exit(0));
}

main().catch((err) => fail(err.stack || String(err)));
