// Run by tests/pages/test_stdlib_trim.py (and by hand with --write): records the files of Python's standard library
// that the live experiments import, in real Pyodide under Node (node_modules/pyodide, its full python_stdlib.zip):
// Pyodide's own start-up, widgets/sampler.py and its glue (widgets/py/c13_worker.py; widgets/py/c13_e6.py through
// samplerAdapter in widgets/e6/engine.mjs), installed as the worker installs them (widgets/py/load.mjs), each
// exercised: E2's rounds and chunked runs in every scheme, the pair's figures and the warm-up, E6's draw, greedy pick
// and verify, and a Python error raised through a call from JavaScript (Pyodide formats its traceback).
//
//   node tests/widgets/node/record_stdlib.mjs           prints the members those imports read, one a line, sorted
//   node tests/widgets/node/record_stdlib.mjs --write   rewrites generator/pages/stdlib_modules.txt (the kept list)
//
// The site's trimmed python_stdlib.zip keeps exactly the members of the kept list (generator/pages/stdlib.py);
// tests/pages/test_stdlib_trim.py runs this and checks that the list still covers what is imported.

import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startPyodide } from "./e6_lib.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const LIST = join(ROOT, "generator", "pages", "stdlib_modules.txt");

const HEADER = `# The members of Pyodide's python_stdlib.zip that the site's trimmed copy keeps (generator/pages/stdlib.py).
# Recorded by \`node tests/widgets/node/record_stdlib.mjs --write\`: the modules that Pyodide's start-up,
# widgets/sampler.py and its glue (widgets/py/) import when exercised in Pyodide under Node, plus the parent folders.
# Checked in Chromium by tests/browser/test_stdlib_trim_live.py. A module missing here
# makes the worker reload with the full archive (assets/vendor/pyodide/full/python_stdlib.zip), once.
`;

/** The archive's members behind every module loaded from it (c13_worker.py's c13_stdlib_members, which the worker
 * gives tests/browser/test_stdlib_trim_live.py too) and their folders, sorted. */
function listMembers(pyodide) {
  const members = new Set();
  for (const file of pyodide.pyimport("c13_worker").c13_stdlib_members().split("\n").filter(Boolean)) {
    members.add(file);
    const parts = file.split("/").slice(0, -1);
    for (let i = 1; i <= parts.length; i++) members.add(`${parts.slice(0, i).join("/")}/`);
  }
  return [...members].sort();
}

function exerciseE2(pyodide) {
  const p = JSON.stringify([0.5, 0.25, 0.125, 0.125]);
  const q = JSON.stringify([0.25, 0.25, 0.25, 0.25]);
  const glue = pyodide.pyimport("c13_worker");
  const call = (name, ...args) => glue[name](...args);
  for (const scheme of ["naive", "resample_p", "correct"]) {
    for (let i = 0; i < 3; i++) call("c13_round", "k", p, q, scheme, 7, i);
    call("c13_start", 1, "k", p, q, scheme, 7, 2000, 500);
    while (call("c13_step", 1)) { /* every chunk */ }
    call("c13_finish", 1);
  }
  call("c13_pair_stats", p, q);
  call("c13_warm_start", "k", p, q, 1000, 500);
  while (call("c13_warm_step")) { /* every piece */ }
}

async function exerciseE6(pyodide) {
  const { samplerAdapter } = await import(pathToFileURL(join(ROOT, "widgets", "e6", "engine.mjs")).href);
  const s = samplerAdapter(pyodide);
  const row = Float64Array.from([0.1, 0.6, 0.3]);
  const other = Float64Array.from([0.3, 0.3, 0.4]);
  const stream = s.stream(3);
  s.draw(stream, row);
  s.greedyPick(row);
  s.verify(stream, [row, row], [other], [1]);
  s.verify(undefined, [row, row], [other], [1]);
}

function exerciseErrors(pyodide) {
  try {
    pyodide.pyimport("c13_worker").c13_round("bad", "[1]", "[0]", "no-such-scheme", 1, 0);
  } catch (err) {
    if (!String(err.message).includes("Error")) throw err;
  }
}

export async function record() {
  const pyodide = await startPyodide();
  exerciseE2(pyodide);
  await exerciseE6(pyodide);
  exerciseErrors(pyodide);
  return listMembers(pyodide);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const members = await record();
  if (process.argv.includes("--write")) writeFileSync(LIST, HEADER + members.join("\n") + "\n");
  else process.stdout.write(members.join("\n") + "\n");
}
