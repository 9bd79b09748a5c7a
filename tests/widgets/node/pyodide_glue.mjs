// Node driver for tests/widgets/test_python_glue.py: runs tests/widgets/glue_exercise.py in real Pyodide under Node,
// beside widgets/sampler.py and its glue installed as the worker installs them (widgets/py/load.mjs).
//
//   node tests/widgets/node/pyodide_glue.mjs
//
// Prints ONE line of JSON (Python's json.dumps inside Pyodide): the exercise's answers. On any failure: a message
// on stderr and exit status 1. Nothing may reach the network: Pyodide is read from disk.

import { readFileSync } from "node:fs";
import { PYTHON_DIR } from "../../../widgets/py/load.mjs";
import { startPyodide } from "./e6_lib.mjs";

const realFetch = globalThis.fetch;
globalThis.fetch = (resource, ...rest) => {
  const url = String(resource instanceof Request ? resource.url : resource);
  if (!url.startsWith("file:")) throw new Error(`network access attempted (${url})`);
  return realFetch(resource, ...rest);
};

async function main() {
  const pyodide = await startPyodide();
  pyodide.FS.writeFile(`${PYTHON_DIR}/glue_exercise.py`, new Uint8Array(readFileSync(new URL("../glue_exercise.py",
    import.meta.url))));
  const line = pyodide.runPython(`
import importlib, json
importlib.invalidate_caches()  # glue_exercise.py was written after the folder was read
import c13_e6, c13_worker, glue_exercise, sampler
json.dumps(dict(files={m.__name__: m.__file__ for m in (sampler, c13_worker, c13_e6)},
                answers=glue_exercise.exercise(c13_worker, c13_e6, sampler)), allow_nan=False)
`);
  process.stdout.write(line + "\n", () => process.exit(0));
}

main().catch((err) => {
  process.stderr.write(`pyodide_glue.mjs: FAILED: ${err.stack || err}\n`);
  process.exit(1);
});
