// Records the files of Python's standard library that the live experiments import, in real Pyodide under Node
// (node_modules/pyodide, its full python_stdlib.zip): Pyodide's own start-up, widgets/sampler.py, the worker's
// Python glue (PY_SETUP in widgets/pyodide-worker.mjs, read from that file) and E6's glue (samplerAdapter in
// widgets/e6/engine.mjs), each exercised: E2's rounds and chunked runs in every scheme, E6's draw, greedy pick
// and verify, and a Python error raised through a call from JavaScript (Pyodide formats its traceback).
//
//   node tests/record_stdlib.mjs            prints the archive's members those imports read, one a line, sorted
//   node tests/record_stdlib.mjs --write    rewrites generator/pages/stdlib_modules.txt (the kept list)
//
// The site's trimmed python_stdlib.zip keeps exactly the members of the kept list (generator/pages/stdlib.py);
// tests/test_stdlib_trim.py runs this and checks that the list still covers what is imported.

import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const LIST = join(ROOT, "generator", "pages", "stdlib_modules.txt");

const HEADER = `# The members of Pyodide's python_stdlib.zip that the site's trimmed copy keeps (generator/pages/stdlib.py).
# Recorded by \`node tests/record_stdlib.mjs --write\`: the modules that Pyodide's start-up, widgets/sampler.py,
# the worker's glue (pyodide-worker.mjs) and E6's glue (e6/engine.mjs) import when exercised in Pyodide under
# Node, plus the parent folders. Checked in Chromium by tests/browser/test_stdlib_trim_live.py. A module missing here
# makes the worker reload with the full archive (assets/vendor/pyodide/full/python_stdlib.zip), once.
`;

// The archive's members behind every module loaded from it (packages: their __init__.py), and their folders.
const LIST_MEMBERS = `
import sys
_zip = "/lib/python%d%d.zip/" % sys.version_info[:2]
_members = set()
for _m in list(sys.modules.values()):
    _f = getattr(_m, "__file__", None) or ""
    _spec = getattr(_m, "__spec__", None)
    if _f.startswith(_zip) and getattr(_spec, "origin", None) != "frozen":
        _rel = _f[len(_zip):]
        _members.add(_rel)
        _parts = _rel.split("/")[:-1]
        for _i in range(1, len(_parts) + 1):
            _members.add("/".join(_parts[:_i]) + "/")
"\\n".join(sorted(_members))
`;

function workerSetup() {
  const text = readFileSync(join(ROOT, "widgets", "pyodide-worker.mjs"), "utf8");
  const found = text.match(/const PY_SETUP = `([\s\S]*?)`;/);
  if (!found) throw new Error("PY_SETUP not found in widgets/pyodide-worker.mjs");
  return found[1];
}

function exerciseE2(pyodide) {
  const p = JSON.stringify([0.5, 0.25, 0.125, 0.125]);
  const q = JSON.stringify([0.25, 0.25, 0.25, 0.25]);
  const call = (name, ...args) => pyodide.globals.get(name)(...args);
  for (const scheme of ["naive", "resample_p", "correct"]) {
    for (let i = 0; i < 3; i++) call("c13_round", "k", p, q, scheme, 7, i);
    call("c13_start", 1, "k", p, q, scheme, 7, 2000, 500);
    while (call("c13_step", 1)) { /* every chunk */ }
    call("c13_finish", 1);
  }
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
    pyodide.globals.get("c13_round")("bad", "[1]", "[0]", "no-such-scheme", 1, 0);
  } catch (err) {
    if (!String(err.message).includes("Error")) throw err;
  }
}

export async function record() {
  const { loadPyodide } = await import(pathToFileURL(join(ROOT, "node_modules", "pyodide", "pyodide.mjs")).href);
  const pyodide = await loadPyodide({ stdout: () => {}, stderr: () => {} });
  pyodide.FS.mkdirTree("/home/pyodide/c13");
  pyodide.FS.writeFile("/home/pyodide/c13/sampler.py", readFileSync(join(ROOT, "widgets", "sampler.py"), "utf8"));
  pyodide.runPython(workerSetup());
  exerciseE2(pyodide);
  await exerciseE6(pyodide);
  exerciseErrors(pyodide);
  return pyodide.runPython(LIST_MEMBERS).split("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const members = await record();
  if (process.argv.includes("--write")) writeFileSync(LIST, HEADER + members.join("\n") + "\n");
  else process.stdout.write(members.join("\n") + "\n");
}
