// The one way sampler.py and its glue get into a Pyodide: the worker (widgets/pyodide-worker.mjs), the Node drivers of
// the tests (tests/widgets/node/e6_lib.mjs startPyodide) and the benchmarks all call pythonSources and installPython.
//
// The files, by their path under widgets/ (the site serves widgets/ as assets/c13/): sampler.py, the one acceptance
// sampler, and the glue that calls it: py/c13_worker.py (E2, the pair, the warm-up) and py/c13_e6.py (E6's bridge).
// Each is written into one folder of Python's file system, which goes first on sys.path; sampler and c13_worker are
// imported at once, c13_e6 when E6 first asks (pyodide.pyimport).

export const PYTHON_DIR = "/home/pyodide/c13";
export const PYTHON_FILES = ["sampler.py", "py/c13_worker.py", "py/c13_e6.py"];
const IMPORTED_AT_ONCE = ["sampler", "c13_worker"];

/** {path: text or bytes} for every file of PYTHON_FILES, read with `read(path)` (a promise or a value); `replace`
 * gives another text for a path (a test's or a benchmark's other sampler.py). */
export async function pythonSources(read, replace = {}) {
  const texts = await Promise.all(PYTHON_FILES.map((path) => (path in replace ? replace[path] : read(path))));
  return Object.fromEntries(PYTHON_FILES.map((path, i) => [path, texts[i]]));
}

/** A reader for pythonSources that fetches each file from `base` (the folder holding sampler.py) and fails, naming
 * the file, on an HTTP error. */
export function fetchFrom(base) {
  return async (path) => {
    const url = new URL(path, base).href;
    const response = await fetch(url, { cache: "no-cache" });
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    return response.text();
  };
}

/** The sources written into PYTHON_DIR (one folder, by file name), the folder put first on sys.path and sampler and
 * the worker's glue imported. Returns pyodide. */
export function installPython(pyodide, sources) {
  pyodide.FS.mkdirTree(PYTHON_DIR);
  for (const path of PYTHON_FILES) {
    if (sources[path] === undefined) throw new Error(`Python source ${path} is missing`);
    pyodide.FS.writeFile(`${PYTHON_DIR}/${path.split("/").pop()}`, sources[path]);
  }
  const sys = pyodide.pyimport("sys");
  const path = sys.path;
  if (!path.includes(PYTHON_DIR)) path.insert(0, PYTHON_DIR);
  path.destroy();
  sys.destroy();
  for (const name of IMPORTED_AT_ONCE) pyodide.pyimport(name).destroy();
  return pyodide;
}
