// What the Node drivers of E6's tests share: real Pyodide with widgets/sampler.py importable (as the worker puts it),
// and a small seeded generator for their fake machines.
import { readFileSync } from "node:fs";

const SAMPLER_DIR = "/home/pyodide/c13"; // where the worker puts it too

/** Pyodide from node_modules, sampler.py (at samplerPath) written into its file system and imported. */
export async function startPyodide(samplerPath) {
  const { loadPyodide } = await import("pyodide");
  const pyodide = await loadPyodide({ stdout: (l) => process.stderr.write(`[py] ${l}\n`),
    stderr: (l) => process.stderr.write(`[py] ${l}\n`) });
  pyodide.FS.mkdirTree(SAMPLER_DIR);
  pyodide.FS.writeFile(`${SAMPLER_DIR}/sampler.py`, new Uint8Array(readFileSync(samplerPath)));
  pyodide.runPython(`import sys\nsys.path.insert(0, "${SAMPLER_DIR}")\nimport sampler`);
  return pyodide;
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
