// The Pyodide worker of E2 (a module worker: Pyodide 314's loader is an ES module).
//
// It loads Pyodide from the site's own copy (indexURL = the site's assets/vendor/pyodide/ folder, given by
// the page; nothing is ever fetched from another origin), then fetches widgets/sampler.py from the site —
// the very file the generator ran for the offline figures — with its glue (widgets/py/c13_worker.py, c13_e6.py),
// and imports them (widgets/py/load.mjs). Each request below is a call of c13_worker.py.
//
// Messages from the page:
//   {type: "init", indexURL, samplerURL, warmup, stallMs}     once, first; warmup: {key, p, q, rounds} or null;
//                                                             stallMs: the page's watchdog (sets the heartbeat's pace)
//   {type: "round", id, key, p, q, scheme, seed, index}       round number `index` of the stream random.Random(seed)
//   {type: "run", id, key, p, q, scheme, seed, n, chunk}      sampler.run_chunks, reporting after each chunk
//   {type: "e6-run", id, …} / {type: "e6-cancel"}             E6, handled by e6/engine.mjs (imported on first use)
//   {type: "pair-stats", id, p, q}                            the editable pair: α, Σ p·q, resample-from-p's closed TV
// p and q are JSON texts of the distributions (Python's json reads the same doubles that JavaScript wrote);
// a key names one (prefix, draft) pair, whose sampler.Pair is built once and kept.
// Messages to the page:
//   {type: "step", step, detail}       loading steps: "loader", "runtime", "sampler"
//   {type: "bytes", file, bytes}       loading: bytes of a file received so far (progress; feeds the page's watchdog)
//   {type: "alive", waiting, waitedMs} loading: the heartbeat, while this thread is free to send it: the files it is
//                                      waiting on from the network, and for how long nothing at all has come in
//   {type: "ready", version, ms}       Pyodide and the sampler are loaded
//   {type: "warmup", ms, rounds, stopped}  the warm-up after "ready" ended (stopped: a run came first)
//   {type: "failed", step, message}    loading failed
//   {type: "round", id, record}        one round (sampler.one_round's dict)
//   {type: "progress", id, done, n, accepted}
//   {type: "done", id, result}         counts, accepted, tv, acceptance_rate, n, seed, scheme, ms, alpha, sum_pq,
//                                      and for resample_p tv_resample_p (pair-stats: alpha, sum_pq, tv_resample_p)
//   {type: "error", id, message}       a request failed (E6: also `cancelled`)
//   {type: "e6-event", id, event}      E6's progress: phases, bytes, the prompt, each token and round
//   {type: "cancel", id}                                      that request only: a run stops before its next chunk
// Cancelling one request leaves the others and everything loaded (E6's models too); only the page's cancel of
// everything (python.cancel()) terminates this worker, and a new one starts when next needed.

import { cancelled, runChunks, running } from "./pyodide-runs.mjs";
import { fetchFrom, installPython, pythonSources } from "./py/load.mjs";

let pyodide = null;
let glue = null; // the module c13_worker
let ready = null;

// The site's python_stdlib.zip is trimmed to what Pyodide's start-up and the experiments import
// (generator/pages/stdlib.py); when an import is missing from it anyway, the worker starts Python again, once, on
// the full archive kept under full/ (a console info line says so). `self.c13Stdlib` says which one runs (tests).
const FULL_STDLIB = "full/python_stdlib.zip";
const stdlib = { indexURL: null, sources: null, fallback: null };
self.c13Stdlib = "trimmed";
// the archive's members that the running Python has imported (tests/browser/test_stdlib_trim_live.py compares them
// with the kept list)
self.c13StdlibMembers = () => call("c13_stdlib_members").split("\n");
// while loading: the current step, and whether a failure was already reported (the first one is the one said)
const loading = { on: false, step: "loader", failed: false };
const BYTES_EVERY_MS = 200;

// The page's watchdog (python-host.js) must tell a start stalled on the network from one that is only slow: on a
// slow device Pyodide compiles its WebAssembly and starts Python for a minute or more without a step or a byte. So
// while loading, every wait on the network is recorded (a fetch until its answer comes, then each read of its body,
// and the imports of pyodide.mjs and pyodide.asm.mjs), and a heartbeat says which files are awaited and how long
// nothing at all has come in. A heartbeat that says "waiting, nothing for the watchdog's bound" is a network stall;
// a worker busy on its own (compiling, starting Python: no wait, or no heartbeat while its thread computes) is not.
const net = { waits: new Map(), next: 1, quietSince: 0, beat: null };

/** A wait on the network for `file` begins; the function returned ends it (something came in). */
function awaitNetwork(file) {
  const id = net.next++;
  if (net.waits.size === 0) net.quietSince = performance.now();
  net.waits.set(id, file);
  return () => {
    net.waits.delete(id);
    net.quietSince = performance.now();
  };
}

/** `promise` (an import) counted as a wait on the network for `file` until it settles. */
async function fromNetwork(file, promise) {
  const end = awaitNetwork(file);
  try {
    return await promise;
  } finally {
    end();
  }
}

function heartbeat(stallMs) {
  const every = Math.min(1000, Math.max(50, (Number(stallMs) > 0 ? Number(stallMs) : 45_000) / 10));
  let last = performance.now();
  net.beat = setInterval(() => {
    const now = performance.now();
    // a late beat: this thread was busy (Python starting), and what arrived meanwhile could not be read yet; that
    // time is not the network's
    net.quietSince = Math.min(now, net.quietSince + Math.max(0, now - last - 2 * every));
    last = now;
    const waiting = [...new Set(net.waits.values())];
    post({ type: "alive", waiting, waitedMs: waiting.length ? now - net.quietSince : 0 });
  }, every);
}

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
  post({ type: "failed", step: loading.step, message });
}

/** While loading, every fetch (pyodide.asm.wasm, python_stdlib.zip, the lock file, the Python files) is watched: an HTTP
 * error fails the start at once, and the bytes received are reported as progress. */
function watchFetches() {
  const realFetch = self.fetch.bind(self);
  self.fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const file = decodeURIComponent(new URL(url, self.location.href).pathname.split("/").pop());
    if (!loading.on) return realFetch(input, init);
    let response;
    const answered = awaitNetwork(file);
    try {
      response = await realFetch(input, init);
    } catch (err) {
      failLoading(`${file}: ${describe(err)}`);
      throw err;
    } finally {
      answered();
    }
    if (!response.ok) {
      failLoading(`${file}: HTTP ${response.status}`);
      return response;
    }
    if (!response.body) return response;
    let got = 0;
    let last = 0;
    const reader = response.body.getReader();
    // read ahead by one chunk (the default high-water mark): a read waits on the network only while the reader of
    // this body wants more, so a consumer that pauses is not taken for a stalled network
    const counted = new ReadableStream({
      async pull(controller) {
        const arrived = awaitNetwork(file);
        let chunk;
        try {
          chunk = await reader.read();
        } finally {
          arrived();
        }
        if (chunk.done) {
          post({ type: "bytes", file, bytes: got });
          controller.close();
          return;
        }
        got += chunk.value.byteLength;
        const now = performance.now();
        if (now - last > BYTES_EVERY_MS) { last = now; post({ type: "bytes", file, bytes: got }); }
        controller.enqueue(chunk.value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(counted,
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

function missingModule(err) {
  return Boolean(err) && (err.type === "ModuleNotFoundError" || /ModuleNotFoundError/.test(String(err.message)));
}

/** Python on the standard library at stdLibURL (undefined: the trimmed one, indexURL + python_stdlib.zip). Every
 * URL Pyodide may derive points at the site's own copy; no package is loaded. */
function loadRuntime(loadPyodide, stdLibURL) {
  const { indexURL } = stdlib;
  return loadPyodide({ indexURL, packageBaseUrl: indexURL, cdnUrl: indexURL, stdLibURL, stdout: () => {}, stderr: () => {} });
}

/** sampler.py and its glue written into Python's file system and imported (widgets/py/load.mjs). */
function importSampler(py) {
  installPython(py, stdlib.sources);
  glue = py.pyimport("c13_worker");
  return py;
}

/** An import missing from the trimmed archive: Python again on the full one (once; every caller waits for it). */
function fallBack(err) {
  stdlib.fallback ??= (async () => {
    const what = describe(err).match(/ModuleNotFoundError[^\n]*/)?.[0] ?? "ModuleNotFoundError";
    console.info(`c13: ${what} in the trimmed standard library; ` +
      `starting Python again with the full one (${FULL_STDLIB})`);
    const { loadPyodide } = await import(new URL("pyodide.mjs", stdlib.indexURL).href);
    pyodide = importSampler(await loadRuntime(loadPyodide, new URL(FULL_STDLIB, stdlib.indexURL).href));
    self.c13Stdlib = "full";
  })();
  return stdlib.fallback;
}

async function start(indexURL, samplerURL, stallMs) {
  const t0 = performance.now();
  let step = "loader";
  loading.on = true;
  watchFetches();
  watchConsole();
  heartbeat(stallMs);
  try {
    post({ type: "step", step, detail: "pyodide.mjs" });
    const loaderURL = new URL("pyodide.mjs", indexURL).href;
    const { loadPyodide } = await fromNetwork("pyodide.mjs", import(loaderURL));
    step = loading.step = "runtime";
    post({ type: "step", step, detail: "pyodide.asm.wasm + python_stdlib.zip" });
    stdlib.indexURL = indexURL;
    // the module loadPyodide imports first, imported here so that its download is watched as the fetches are (the
    // same URL: loadPyodide finds it loaded)
    await fromNetwork("pyodide.asm.mjs", import(new URL("pyodide.asm.mjs", indexURL).href));
    pyodide = await loadRuntime(loadPyodide, undefined);
    step = loading.step = "sampler";
    post({ type: "step", step, detail: "sampler.py" });
    stdlib.sources = await pythonSources(fetchFrom(new URL(".", samplerURL)));
    try {
      importSampler(pyodide);
    } catch (err) {
      if (!missingModule(err)) throw err;
      await fallBack(err);
    }
    loading.on = false;
    post({ type: "ready", version: pyodide.version, ms: performance.now() - t0 });
  } catch (err) {
    loading.step = step;
    failLoading(describe(err));
    loading.on = false;
    throw err;
  } finally {
    clearInterval(net.beat);
  }
}

function call(name, ...args) {
  const fn = glue[name];
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
  if (m.type === "pair-stats") {
    post({ type: "done", id: m.id, result: JSON.parse(call("c13_pair_stats", m.p, m.q)) });
    return;
  }
  if (m.type === "run") return runChunks(m, call, post);
  throw new Error(`unknown request ${m.type}`);
}

// The warm-up. WebAssembly code starts in V8's baseline tier and is optimised only once it has run hot, and a
// frame already running keeps its code: a reader's first ×100,000 run would spend its first chunks in the slow
// tier. So right after "ready" the worker runs the same calls on the default pair (sampler.run_chunks on the Pair
// a run builds, which stays cached), results discarded, in pieces of WARM_PIECE rounds with a yield to the event
// loop between: a request that arrives meanwhile waits at most one piece (about a millisecond), and a run stops it.
const WARM_PIECE = 1_000;
const warm = { stop: false };

function warmUp(pair) {
  if (!pair) return;
  const t0 = performance.now();
  let rounds = 0;
  const channel = new MessageChannel();
  const finish = (stopped) => {
    channel.port1.close();
    post({ type: "warmup", ms: performance.now() - t0, rounds, stopped });
  };
  if (warm.stop) { finish(true); return; } // a run was waiting for "ready": it goes first, and warms up
  channel.port1.onmessage = () => {
    if (warm.stop) { finish(true); return; }
    try {
      const more = call("c13_warm_step");
      rounds = Math.min(rounds + WARM_PIECE, pair.rounds);
      if (more && rounds < pair.rounds) channel.port2.postMessage(null);
      else finish(false);
    } catch (err) {
      finish(true); // a warm-up that fails costs nothing: the reader's run will build what it needs
    }
  };
  try {
    call("c13_warm_start", pair.key, pair.p, pair.q, pair.rounds, WARM_PIECE);
    channel.port2.postMessage(null);
  } catch (err) {
    finish(true);
  }
}

self.onmessage = (event) => {
  const m = event.data || {};
  if (m.type === "init") {
    if (!ready) {
      ready = start(m.indexURL, m.samplerURL, m.stallMs);
      ready.then(() => warmUp(m.warmup), () => {});
    }
    ready.catch(() => {});
    return;
  }
  // a run (E2's, E6's) warms up by itself: the warm-up ends before its next piece. Smaller requests (a round, a
  // pair's figures) are simply answered between two pieces.
  if (m.type === "cancel") {
    // E2's, the pair's and TV's runs stop before their next chunk; a short request (a round, a pair's figures)
    // finishes, and the page has dropped its answer already
    if (running.has(m.id)) cancelled.add(m.id);
    return;
  }
  if (m.type === "run" || m.type.startsWith("e6-")) warm.stop = true;
  if (!ready) {
    post({ type: "error", id: m.id, message: "the worker was not initialised" });
    return;
  }
  if (m.id !== undefined && !m.type.startsWith("e6-")) running.add(m.id);
  ready.then(async () => {
    if (cancelled.has(m.id)) { running.delete(m.id); cancelled.delete(m.id); return; } // cancelled while waiting
    try {
      try {
        await handle(m);
      } catch (err) {
        if (!missingModule(err) || m.type.startsWith("e6-") || self.c13Stdlib === "full") throw err;
        await fallBack(err);
        await handle(m);
      }
    } catch (err) {
      post({ type: "error", id: m.id, message: describe(err) });
    } finally {
      running.delete(m.id);
      cancelled.delete(m.id);
    }
  }, (err) => post({ type: "error", id: m.id, message: describe(err) }));
};
