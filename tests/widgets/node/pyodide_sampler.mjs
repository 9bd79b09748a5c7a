// Node driver for tests/widgets/test_sampler_pyodide.py: runs widgets/sampler.py, byte for byte, inside real
// Pyodide under Node.
//
//   node tests/widgets/node/pyodide_sampler.mjs JOB.json
//
// JOB.json: {"sampler": "<path of sampler.py>", "exercise": "<path of tests/widgets/sampler_exercise.py>",
//            "cases": [{"p": [...], "q": [...], "n": N, "seed": S,
//                       "scheme": "...", "chunk": C or null}, ...]}
//
// Pyodide comes from the local npm package (node_modules/pyodide) with its
// default indexURL, i.e. the folder of that package; any attempt to reach the
// network fails the run. Prints ONE line of JSON on stdout, serialised by
// Python's json.dumps inside Pyodide so every float round-trips exactly, and
// exits 0. On any failure: a message on stderr and exit status 1.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { installPython, PYTHON_DIR } from "../../../widgets/py/load.mjs";
import { widgetsPython } from "./e6_lib.mjs";

const NAME = "pyodide_sampler.mjs";

// The Python side: the sampler, installed as the worker installs it (widgets/py/load.mjs), runs every case.
// Everything it returns is one json.dumps string.
const DRIVER = `
import importlib, json, sys, time

sampler = importlib.import_module("sampler")
if sampler.__file__ != SAMPLER_DIR + "/sampler.py":
    raise RuntimeError(f"imported the wrong sampler module: {sampler.__file__}")

job = json.loads(JOB_TEXT)
importlib.invalidate_caches()  # sampler_exercise.py was written after the folder was read
exercise = importlib.import_module("sampler_exercise")  # tests/widgets/sampler_exercise.py, the file CPython runs too

t0 = time.perf_counter()
results = exercise.exercise(sampler, job["cases"])
run_ms = (time.perf_counter() - t0) * 1000.0

json.dumps(dict(
    ok=True,
    pyodide_version=PYODIDE_VERSION,
    pyodide_module=PYODIDE_MODULE,
    python_version=".".join(map(str, sys.version_info[:3])),
    python_version_full=sys.version,
    platform=sys.platform,
    load_ms=LOAD_MS,
    run_ms=run_ms,
    sampler_sha256=SAMPLER_SHA256,
    results=results,
), allow_nan=False, separators=(",", ":"))
`;

function fail(message) {
  process.stderr.write(`${NAME}: FAILED: ${message}\n`);
  process.exit(1);
}

// Pyodide reads its files from disk in Node; a fetch would mean the network.
const realFetch = globalThis.fetch;
globalThis.fetch = (resource, ...rest) => {
  const url = String(resource instanceof Request ? resource.url : resource);
  if (!url.startsWith("file:")) {
    throw new Error(`network access attempted (${url}); Pyodide must load from node_modules/pyodide`);
  }
  return realFetch(resource, ...rest);
};

async function main() {
  const jobPath = process.argv[2];
  if (!jobPath) fail(`usage: node tests/widgets/node/${NAME} JOB.json`);

  let jobText, job, samplerBytes, exerciseBytes;
  try {
    jobText = readFileSync(jobPath, "utf8");
    job = JSON.parse(jobText);
  } catch (err) {
    fail(`cannot read the job file ${jobPath}: ${err.message}`);
  }
  if (typeof job.sampler !== "string" || typeof job.exercise !== "string" || !Array.isArray(job.cases)) {
    fail(`job file ${jobPath} needs "sampler" and "exercise" (paths) and "cases" (a list)`);
  }
  try {
    samplerBytes = readFileSync(job.sampler);
    exerciseBytes = readFileSync(job.exercise);
  } catch (err) {
    fail(`cannot read a Python source the job names: ${err.message}`);
  }

  // the static form is `import { loadPyodide } from "pyodide"`; the dynamic one
  // lets a missing package end in a clear message instead of a loader trace
  let loadPyodide, pyodideModule;
  try {
    pyodideModule = import.meta.resolve("pyodide");
    ({ loadPyodide } = await import("pyodide"));
  } catch (err) {
    fail(`cannot import the npm package "pyodide" (${err.message}); run \`npm ci\` in the repository root`);
  }

  let pyodide;
  const t0 = performance.now();
  try {
    // no indexURL: the default is the local package folder; Python's own
    // output goes to stderr so stdout carries only the JSON line
    pyodide = await loadPyodide({
      stdout: (line) => process.stderr.write(`[pyodide stdout] ${line}\n`),
      stderr: (line) => process.stderr.write(`[pyodide stderr] ${line}\n`),
    });
  } catch (err) {
    fail(`loadPyodide() from node_modules/pyodide failed: ${err.stack || err}`);
  }
  const loadMs = performance.now() - t0;

  let line;
  try {
    installPython(pyodide, await widgetsPython(job.sampler));
    pyodide.FS.writeFile(`${PYTHON_DIR}/sampler_exercise.py`, new Uint8Array(exerciseBytes));
    const ns = pyodide.toPy({
      SAMPLER_DIR: PYTHON_DIR,
      JOB_TEXT: jobText,
      LOAD_MS: loadMs,
      PYODIDE_VERSION: pyodide.version,
      PYODIDE_MODULE: pyodideModule,
      SAMPLER_SHA256: createHash("sha256").update(samplerBytes).digest("hex"),
    });
    line = pyodide.runPython(DRIVER, { globals: ns });
    ns.destroy();
  } catch (err) {
    // a PythonError's message is the Python traceback
    fail(`running the sampler in Pyodide failed:\n${err.message || err}`);
  }
  if (typeof line !== "string" || !line.startsWith("{")) fail(`unexpected driver output: ${line}`);
  process.stdout.write(line + "\n", () => process.exit(0));
}

main().catch((err) => fail(err.stack || String(err)));
