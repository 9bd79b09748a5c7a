// Shared by the Node drivers beside it (run by tests/widgets/ and tests/pages/test_stdlib_trim.py) and by
// benchmarks/*.mjs: real Pyodide with widgets/sampler.py and its glue installed as the worker installs them, and a
// small seeded generator for their fake machines.
import { readFileSync } from "node:fs";
import { installPython, pythonSources } from "../../../widgets/py/load.mjs";

const WIDGETS = new URL("../../../widgets/", import.meta.url);

/** The Python files of widgets/py/load.mjs read from this checkout's widgets/, as the worker fetches them from the
 * site (samplerPath: another sampler.py in its place, byte for byte). */
export function widgetsPython(samplerPath) {
  const bytes = (file) => new Uint8Array(readFileSync(file));
  return pythonSources((path) => bytes(new URL(path, WIDGETS)), samplerPath ? { "sampler.py": bytes(samplerPath) } : {});
}

/** Pyodide from node_modules with sampler.py (samplerPath, default widgets/sampler.py) and its glue installed as the
 * worker installs them (widgets/py/load.mjs). */
export async function startPyodide(samplerPath) {
  const { loadPyodide } = await import("pyodide");
  const pyodide = await loadPyodide({ stdout: (l) => process.stderr.write(`[py] ${l}\n`),
    stderr: (l) => process.stderr.write(`[py] ${l}\n`) });
  return installPython(pyodide, await widgetsPython(samplerPath));
}

/** The target model's name, from the c13.json beside a folder of browser files (the page hands it to E6 the same
 * way: c13.json → constants.target). */
export function targetOf(browserFolder) {
  return JSON.parse(readFileSync(`${browserFolder}/../c13.json`, "utf8")).constants.target;
}

/** A small seeded generator (mulberry32): the same seed, the same numbers in [0, 1). */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
