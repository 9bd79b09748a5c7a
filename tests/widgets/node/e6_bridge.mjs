// Node driver for tests/widgets/test_e6_bridge.py (and benchmarks/bench_e6_sampler.mjs), holding the glue E6 had before
// its bridge (todaysAdapter, kept here for the test and the benchmark): the same rows through today's glue and through
// the bridge (widgets/e6/sampler_bridge.mjs, the adapter engine.mjs gives speculate.mjs: running sums formed in
// JavaScript; and its pythonSums(), every sum formed by sampler.py), in real Pyodide under Node with the real
// widgets/sampler.py, each run by speculate.mjs's own loops over decoders that hand out the job's rows.
//
//   node tests/widgets/node/e6_bridge.mjs JOB.json
//
// JOB.json: {"sampler": path of sampler.py, "cases": [{name, k, greedy, seed, nNew, draftRows, targetRows,
//   uniforms?}]}: the draft's j-th forward answers draftRows[j % n], the target's r-th verifying forward the k + 1
//   rows targetRows[r % n]; the target-only run's j-th forward answers draftRows[j % n] too. With `uniforms` the
//   stream is sampler.FixedStream(uniforms) instead of random.Random(seed).
// Prints ONE line of JSON: {"cases": [{name, today, bridge, pySums, grown}]}, each {speculative, target} of
// {tokens, rounds (speculative), draws (target)} or {error}; "grown" is the bridge again (after the first case,
// Pyodide's memory grew: "detached" says that a view taken before was detached), "buffers" what the last draw's
// slot held and "sums" its sums row (the last draw's running sums, at T = 1).

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { samplerAdapter } from "../../../widgets/e6/engine.mjs";
import { speculative, targetOnly } from "../../../widgets/e6/speculate.mjs";
import { startPyodide } from "./e6_lib.mjs";


// nothing may reach the network: Pyodide is read from disk
const realFetch = globalThis.fetch;
globalThis.fetch = (resource, ...rest) => {
  const url = String(resource instanceof Request ? resource.url : resource);
  if (!url.startsWith("file:")) throw new Error(`network access attempted (${url})`);
  return realFetch(resource, ...rest);
};

// The glue over sampler.py (already imported as `sampler` by the worker). A JS Float64Array row arrives as a
// JsProxy; array('d', its bytes) holds the very same doubles for one memcpy (tolist() would build 2,048 float
// objects, one allocation each), and the sampler's functions read it as they read a list.
const TODAYS_GLUE = `
import json, random
from array import array
import sampler


def _row(a):
    return array("d", a.to_bytes())


def e6_stream(seed):
    return random.Random(seed)


def e6_draw(stream, row):
    u = stream.random()
    return (sampler.draw(_row(row), u), u)


def e6_greedy_pick(row):
    return sampler.greedy_pick(_row(row))


def e6_verify(stream, p_rows, q_rows, drafted):
    rec = sampler.verify([_row(r) for r in p_rows], [_row(r) for r in q_rows], [int(x) for x in drafted], stream)
    return json.dumps(rec)
`;

const SWAPPED = `
import importlib.util, sys
_spec = importlib.util.spec_from_file_location("sampler", "/home/pyodide/today/sampler.py")
_today = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_today)
_kept = sys.modules["sampler"]
sys.modules["sampler"] = _today
try:
    exec(GLUE, globals())
finally:
    sys.modules["sampler"] = _kept
`;

/** Today's sampler adapter, as engine.mjs had it before the bridge (a JsProxy per row, verify's record in JSON), in
 * a namespace of its own; samplerPath: another sampler.py for it to import (a benchmark's baseline). */
export function todaysAdapter(pyodide, samplerPath) {
  const globals = pyodide.toPy({ GLUE: TODAYS_GLUE });
  if (samplerPath) {
    pyodide.FS.mkdirTree("/home/pyodide/today");
    pyodide.FS.writeFile("/home/pyodide/today/sampler.py", new Uint8Array(readFileSync(samplerPath)));
  }
  // the glue's `import sampler` takes that file's module, then sys.modules has the worker's sampler back
  pyodide.runPython(samplerPath ? SWAPPED : TODAYS_GLUE, { globals });
  const fn = Object.fromEntries(["e6_stream", "e6_draw", "e6_greedy_pick", "e6_verify"]
    .map((name) => [name, globals.get(name)]));
  return {
    stream: (seed) => fn.e6_stream(seed),
    draw(stream, row) {
      const pair = fn.e6_draw(stream, row);
      const [token, u] = pair.toJs();
      pair.destroy();
      return { token, u };
    },
    greedyPick: (row) => fn.e6_greedy_pick(row),
    // JS null would arrive as a JsNull; undefined arrives as None (T = 0: verify's rng=None)
    verify: (stream, pRows, qRows, drafted) => JSON.parse(fn.e6_verify(stream ?? undefined, pRows, qRows, drafted)),
  };
}


/** A stand-in for model.mjs's Decoder: its n-th forward answers rows(n) (a list of `last` Float64Arrays). */
export function scriptedDecoder(rows) {
  return { forwards: 0, rollback() {}, probs(tokens, last) { return rows(this.forwards++, last); } };
}

/** The case's decoders: the draft's j-th forward answers draftRows[j], the target's r-th targetRows[r] (k + 1 rows). */
export function caseDecoders(c) {
  const pick = (rows, n) => rows[n % rows.length];
  return {
    draft: () => scriptedDecoder((n) => [pick(c.draftRows, n)]),
    target: () => scriptedDecoder((n, last) => (last === 1 ? [pick(c.draftRows, n)] : pick(c.targetRows, n))),
  };
}

const asRows = (c) => ({ ...c, draftRows: c.draftRows.map((r) => Float64Array.from(r)),
  targetRows: c.targetRows.map((rows) => rows.map((r) => Float64Array.from(r))) });

/** A Python error's last line, as engine.mjs words it. */
const lastLine = (err) => String(err?.message || err).trim().split("\n").filter((l) => l.trim()).pop();

/** Both loops of speculate.mjs over the case's rows, with `sampler`: every decision, and nothing of the clock.
 * fixed(values): a Python FixedStream over the case's uniforms. */
async function play(sampler, c, fixed) {
  const made = caseDecoders(c);
  const out = {};
  for (const which of ["speculative", "target"]) {
    const stream = c.greedy ? null : c.uniforms ? fixed(c.uniforms) : sampler.stream(c.seed);
    const common = { prompt: [0], nNew: c.nNew, greedy: c.greedy, stream, sampler, pause: async () => {} };
    try {
      if (which === "target") {
        const draws = [];
        const run = await targetOnly({ ...common, target: made.draft(), onToken: ({ token }) => draws.push(token) });
        out.target = { tokens: run.tokens, draws };
      } else {
        const rounds = [];
        await speculative({ ...common, target: made.target(), draft: made.draft(), k: c.k,
          onRound: ({ ms, draftMs, ...r }) => rounds.push(r) }).then((run) => { out.speculative = { tokens: run.tokens, rounds }; });
      }
    } catch (err) {
      out[which] = { error: lastLine(err), python: err?.constructor?.name === "PythonError" };
    } finally {
      stream?.destroy();
    }
  }
  return out;
}

/** Pyodide's memory grown by a big allocation: every view of it taken before is detached. */
function growMemory(pyodide) {
  pyodide.runPython("_e6_probe = __import__('array').array('d', bytes(8))");
  const probe = pyodide.globals.get("_e6_probe");
  const view = probe.getBuffer("f64");
  pyodide.runPython("_e6_big = bytes(256 * 2 ** 20)\ndel _e6_big");
  const detached = view.data.byteLength === 0;
  view.release();
  probe.destroy();
  return detached;
}

async function main() {
  const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
  const pyodide = await startPyodide(job.sampler);
  const today = todaysAdapter(pyodide);
  const bridge = samplerAdapter(pyodide);
  const FixedStream = pyodide.pyimport("sampler").FixedStream;
  const fixed = (values) => {
    const list = pyodide.toPy(values);
    const stream = FixedStream(list);
    list.destroy();
    return stream;
  };
  const out = { cases: [] };
  for (const [i, raw] of job.cases.entries()) {
    const c = asRows(raw);
    const one = { name: c.name, today: await play(today, c, fixed), bridge: await play(bridge, c, fixed),
      pySums: await play(bridge.pythonSums(), c, fixed) };
    one.detached = i === 0 ? growMemory(pyodide) : null;  // once: the memory it took stays Pyodide's
    one.grown = await play(bridge, c, fixed);
    // what the glue's buffers hold now: the last draw's row in its slot and its running sums, bit for bit
    [one.buffers, one.sums] = pyodide.runPython(`import c13_e6
slot = c13_e6._e6_ints[c13_e6.SLOT]
[c13_e6._e6_q[slot].tobytes().hex(), c13_e6._e6_s.tobytes().hex()] if c13_e6._e6_q else [None, None]`).toJs();
    out.cases.push(one);
  }
  process.stdout.write(JSON.stringify(out) + "\n", () => process.exit(0));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`e6_bridge.mjs: FAILED: ${err.stack || err}\n`);
    process.exit(1);
  });
}
