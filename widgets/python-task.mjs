// The requests of python-host.js as the experiments hold them: a Task groups one experiment's requests so that its
// 取消 settles those, and only those, at once; the errors a request settles with.

// E6's 取消 settles within this long even when the worker is busy (it answers sooner in every other case)
export const CANCEL_MS = 700;

/** The error a cancelled request or run settles with, on the page and in the worker (e6/speculate.mjs). */
export function cancelledError() {
  const err = new Error("已取消");
  err.cancelled = true;
  return err;
}

/** The worker's {type: "error"} as an Error (E6 marks a cancelled run). */
export function workerError(message) {
  const err = new Error(message.message);
  if (message.cancelled) err.cancelled = true;
  if (Array.isArray(message.kept)) err.kept = message.kept; // E6: the files the worker holds, loaded and checked
  return err;
}

/** One experiment's share of the worker: the requests it makes through it, cancelled together by cancel() and by
 * nothing else (another experiment's 取消 leaves them, and the worker, alone). */
export class Task {
  constructor(host) {
    this.host = host;
    this.cancelled = false;
    this.ids = new Set();     // its requests in the worker
    this.waiters = new Set(); // its requests still waiting for Pyodide
  }

  /** Settle this task's requests as cancelled, now; the worker drops them (a run stops before its next chunk).
   * The worker, Pyodide and what other requests loaded stay. */
  cancel() {
    if (this.cancelled) return;
    this.cancelled = true;
    for (const waiter of this.waiters) waiter.reject(cancelledError());
    this.waiters.clear();
    for (const id of this.ids) this.host.cancelRequest(id);
    this.ids.clear();
  }
}
