// The Pyodide worker of E2 (a module worker: Pyodide 314's loader is an ES module).
//
// It loads Pyodide from the site's own copy (indexURL = the site's assets/vendor/pyodide/ folder, given by
// the page; nothing is ever fetched from another origin), then fetches widgets/sampler.py from the site —
// the very file the generator ran for the offline figures — and imports it as the module `sampler`.
//
// Messages from the page:
//   {type: "init", indexURL, samplerURL}                      once, first
//   {type: "round", id, key, p, q, scheme, seed, index}       round number `index` of the stream random.Random(seed)
//   {type: "run", id, key, p, q, scheme, seed, n, chunk}      sampler.run_chunks, reporting after each chunk
//   {type: "e6-run", id, …} / {type: "e6-cancel"}             E6, handled by e6/engine.mjs (imported on first use)
// p and q are JSON texts of the distributions (Python's json reads the same doubles that JavaScript wrote);
// a key names one (prefix, draft) pair, whose sampler.Pair is built once and kept.
// Messages to the page:
//   {type: "stage", stage, detail}     loading steps: "loader", "runtime", "sampler"
//   {type: "bytes", file, bytes}       loading: bytes of a file received so far (progress; feeds the page's watchdog)
//   {type: "ready", version, ms}       Pyodide and the sampler are loaded
//   {type: "failed", stage, message}   loading failed
//   {type: "round", id, record}        one round (sampler.one_round's dict)
//   {type: "progress", id, done, n, accepted}
//   {type: "done", id, result}         counts, accepted, tv, acceptance_rate, n, seed, scheme, ms
//   {type: "error", id, message}       a request failed (E6: also `cancelled`)
//   {type: "e6-event", id, event}      E6's progress: stages, bytes, the prompt, each token and round
// Cancelling is done by the page: it terminates this worker and starts a new one when next needed.

const PY_SETUP = `
import json, random, sys, time
sys.path.insert(0, "/home/pyodide/c13")
import sampler

_pairs = {}
_stream = {"key": None, "index": -1, "rng": None}
_run = {"gen": None, "pair": None, "last": None}


def c13_pair(key, p_json, q_json):
    if key not in _pairs:
        p = [float(v) for v in json.loads(p_json)]
        q = [float(v) for v in json.loads(q_json)]
        _pairs[key] = sampler.Pair(p, q)
    return _pairs[key]


def c13_round(key, p_json, q_json, scheme, seed, index):
    pair = c13_pair(key, p_json, q_json)
    ident = (key, scheme, seed)
    if _stream["key"] != ident or _stream["index"] != index - 1:
        rng = random.Random(seed)
        for _ in range(index):
            sampler.one_round(pair, rng, scheme)
        _stream.update(key=ident, rng=rng)
    record = sampler.one_round(pair, _stream["rng"], scheme)
    _stream["index"] = index
    return json.dumps(record)


def c13_start(key, p_json, q_json, scheme, seed, n, chunk):
    pair = c13_pair(key, p_json, q_json)
    _run.update(gen=sampler.run_chunks(pair, n, seed, scheme, chunk), pair=pair, last=None)


def c13_step():
    result = next(_run["gen"], None)
    if result is None:
        return None
    _run["last"] = result
    return (result["n"], result["accepted"])


def c13_finish():
    result, pair = _run["last"], _run["pair"]
    s = sampler.summary(result, pair)
    _run.update(gen=None, pair=None, last=None)
    return json.dumps(dict(counts=result["counts"], accepted=result["accepted"], n=s["n"], seed=s["seed"],
                           scheme=s["scheme"], tv=s["tv"], acceptance_rate=s["acceptance_rate"],
                           alpha=pair.alpha, sum_pq=pair.sum_pq))
`;

let pyodide = null;
let ready = null;
// while loading: the current stage, and whether a failure was already reported (the first one is the one said)
const loading = { on: false, stage: "loader", failed: false };
const BYTES_EVERY_MS = 200;

function post(message) {
  self.postMessage(message);
}

function describe(err) {
  return (err && (err.message || String(err))) || "unknown error";
}

/** A loading failure, told to the page once: Pyodide itself may swallow it (a failed wasm instantiation only
 * warns, a missing standard library only logs) and then never settle its promise. */
function failLoading(message) {
  if (!loading.on || loading.failed) return;
  loading.failed = true;
  post({ type: "failed", stage: loading.stage, message });
}

/** While loading, every fetch (pyodide.asm.wasm, python_stdlib.zip, the lock file, sampler.py) is watched: an HTTP
 * error fails the start at once, and the bytes received are reported as progress. */
function watchFetches() {
  const realFetch = self.fetch.bind(self);
  self.fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const file = decodeURIComponent(new URL(url, self.location.href).pathname.split("/").pop());
    if (!loading.on) return realFetch(input, init);
    let response;
    try {
      response = await realFetch(input, init);
    } catch (err) {
      failLoading(`${file}: ${describe(err)}`);
      throw err;
    }
    if (!response.ok) {
      failLoading(`${file}: HTTP ${response.status}`);
      return response;
    }
    if (!response.body) return response;
    let got = 0;
    let last = 0;
    const counter = new TransformStream({
      transform(chunk, controller) {
        got += chunk.byteLength;
        const now = performance.now();
        if (now - last > BYTES_EVERY_MS) { last = now; post({ type: "bytes", file, bytes: got }); }
        controller.enqueue(chunk);
      },
      flush() { post({ type: "bytes", file, bytes: got }); },
    });
    return new Response(response.body.pipeThrough(counter),
      { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Pyodide reports some failures only on the console (e.g. "wasm instantiation failed!"): while loading, a
 * warning or error on the console ends the start with its text. */
function watchConsole() {
  for (const level of ["warn", "error"]) {
    const real = console[level].bind(console);
    console[level] = (...args) => {
      failLoading(args.map((a) => describe(a)).join(" "));
      real(...args);
    };
  }
  self.addEventListener("error", (event) => failLoading(describe(event.error || event.message)));
  self.addEventListener("unhandledrejection", (event) => failLoading(describe(event.reason)));
}

async function start(indexURL, samplerURL) {
  const t0 = performance.now();
  let stage = "loader";
  loading.on = true;
  watchFetches();
  watchConsole();
  try {
    post({ type: "stage", stage, detail: "pyodide.mjs" });
    const loaderURL = new URL("pyodide.mjs", indexURL).href;
    const { loadPyodide } = await import(loaderURL);
    stage = loading.stage = "runtime";
    post({ type: "stage", stage, detail: "pyodide.asm.wasm + python_stdlib.zip" });
    // every URL Pyodide may derive points at the site's own copy; no package is loaded
    pyodide = await loadPyodide({
      indexURL,
      packageBaseUrl: indexURL,
      cdnUrl: indexURL,
      stdout: () => {},
      stderr: () => {},
    });
    stage = loading.stage = "sampler";
    post({ type: "stage", stage, detail: "sampler.py" });
    const response = await fetch(samplerURL, { cache: "no-cache" });
    if (!response.ok) throw new Error(`${samplerURL}: HTTP ${response.status}`);
    const source = await response.text();
    pyodide.FS.mkdirTree("/home/pyodide/c13");
    pyodide.FS.writeFile("/home/pyodide/c13/sampler.py", source);
    pyodide.runPython(PY_SETUP);
    loading.on = false;
    post({ type: "ready", version: pyodide.version, ms: performance.now() - t0 });
  } catch (err) {
    loading.stage = stage;
    failLoading(describe(err));
    loading.on = false;
    throw err;
  }
}

function call(name, ...args) {
  const fn = pyodide.globals.get(name);
  try {
    return fn(...args);
  } finally {
    fn.destroy();
  }
}

// E6 (live speculative decoding in this worker): its module, with the models, loads on the first E6 request
let e6 = null;

function handleE6(m) {
  e6 ??= import(new URL("e6/engine.mjs", import.meta.url).href);
  e6.then((module) => module.handle(m, pyodide, post), (err) => {
    e6 = null;
    post({ type: "error", id: m.id, message: `E6 的程序文件没能载入：${describe(err)}。请确认站点是完整构建的（make site）。` });
  });
}

function handle(m) {
  if (m.type.startsWith("e6-")) {
    handleE6(m);
    return;
  }
  if (m.type === "round") {
    const text = call("c13_round", m.key, m.p, m.q, m.scheme, m.seed, m.index);
    post({ type: "round", id: m.id, record: JSON.parse(text) });
    return;
  }
  if (m.type === "run") {
    const t0 = performance.now();
    call("c13_start", m.key, m.p, m.q, m.scheme, m.seed, m.n, m.chunk);
    for (;;) {
      const step = call("c13_step");
      if (step === undefined || step === null) break;
      const [done, accepted] = step.toJs();
      step.destroy();
      post({ type: "progress", id: m.id, done, n: m.n, accepted });
      if (done >= m.n) break;
    }
    const result = JSON.parse(call("c13_finish"));
    result.ms = performance.now() - t0;
    post({ type: "done", id: m.id, result });
    return;
  }
  throw new Error(`unknown request ${m.type}`);
}

self.onmessage = (event) => {
  const m = event.data || {};
  if (m.type === "init") {
    if (!ready) ready = start(m.indexURL, m.samplerURL);
    ready.catch(() => {});
    return;
  }
  if (!ready) {
    post({ type: "error", id: m.id, message: "the worker was not initialised" });
    return;
  }
  ready.then(() => {
    try {
      handle(m);
    } catch (err) {
      post({ type: "error", id: m.id, message: describe(err) });
    }
  }, (err) => post({ type: "error", id: m.id, message: describe(err) }));
};
