// The runs of the Pyodide worker (pyodide-worker.mjs imports this module): each {type: "run"} request chunk by
// chunk, yielding between chunks, and stopped by a {type: "cancel", id} for it alone.

// Requests the page cancelled ({type: "cancel", id}): a run stops before its next chunk. Between two chunks a run
// lets the event loop turn (a message channel, no timer clamp), so that a cancel, another experiment's request or
// E6's rounds get in; runs of several experiments then take turns, each with its own state in Python (_runs).
export const cancelled = new Set();
export const running = new Set(); // ids of the requests that arrived and have not ended

function nextTurn() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => { channel.port1.close(); resolve(); };
    channel.port2.postMessage(null);
  });
}

/** E2's, the pair's and TV's run of m.n rounds: sampler.run_chunks through the worker's glue (call), a progress
 * message after each chunk (post), then the summary; its Python state is dropped however it ends. */
export async function runChunks(m, call, post) {
  const t0 = performance.now();
  let paused = 0;
  call("c13_start", m.id, m.key, m.p, m.q, m.scheme, m.seed, m.n, m.chunk);
  try {
    for (;;) {
      if (cancelled.has(m.id)) return; // the page has already settled it
      const step = call("c13_step", m.id);
      if (step === undefined || step === null) break;
      const [done, accepted] = step.toJs();
      step.destroy();
      post({ type: "progress", id: m.id, done, n: m.n, accepted });
      if (done >= m.n) break;
      const before = performance.now();
      await nextTurn();
      paused += performance.now() - before;
    }
    const result = JSON.parse(call("c13_finish", m.id));
    result.ms = performance.now() - t0 - paused; // the time in Python, not the turns of other requests
    post({ type: "done", id: m.id, result });
  } finally {
    cancelled.delete(m.id);
    call("c13_drop", m.id);
  }
}
