// E6's bridge to widgets/sampler.py in Pyodide: every draw, accept test and greedy pick of the two loops
// (speculate.mjs) is a call into sampler.py through widgets/py/c13_e6.py; JavaScript only moves probabilities into
// Python's buffers, forms the running sums the draws search (row_sums.mjs: plain additions, bit for bit accumulate's),
// and reads the results back.
//
// Python owns the rows: float64 arrays (array("d")) that the glue (c13_e6.py) allocates, nP for the target's rows, nQ
// for the draft's and one of running sums; one int32 array for each call's numbers and the drafted tokens; one float64
// array for the answers. JavaScript writes each softmax row into its buffer through a Float64Array view of Pyodide's
// memory (PyProxy.getBuffer: no copy on the Python side, no proxy per row): a draw's row, with its running sums, into
// the slot of its position in the round, where verify finds it again (the same array: rows are new arrays per forward,
// never changed after); before verify, the target's rows. verify asks for its final draw's running sums when it knows
// which they are (the glue calls `fill` back: the residual's at the first rejection, else the bonus row's), so one row
// of k + 1 is summed: forming all k + 1 before the call cost more than the call back (~9 µs a row, written into memory
// the forward has just pushed out of the caches). Each call follows a model's forward, which leaves Pyodide cold: a
// call that does nothing costs 20-30 µs there (benchmarks/bench_e6.mjs prints it), and every argument, proxy and line
// of Python several times its warm price. So the calls take no arguments (the stream is handed over once per run,
// e6_use) and the answers are plain numbers: the token as the call's value; the uniform, and verify's uniforms and
// accept probabilities (None written as NaN, read back as null), in the answer array; verify's kind as a string; p(x)
// and q(x) of verify's record read from JavaScript's own rows. A view is detached when Pyodide's memory grows (any
// Python call may grow it): it is taken again before each use.

import { residualSums, runningSums } from "./row_sums.mjs";

const NAMES = ["e6_buffers", "e6_stream", "e6_use", "e6_draw", "e6_greedy_pick", "e6_verify"];
const [K, SLOT, SUMMED, DRAFTED] = [0, 1, 2, 3];  // c13_e6.py's int32 array

/** The Python-owned buffers and JavaScript's views of them, renewed when a row's length or a count outgrows them. */
class Buffers {
  constructor(allocate) {
    this.allocate = allocate;
    this.size = -1;
    this.nP = 0;
    this.nQ = 0;
    this.arrays = [];  // PyProxies of the Python arrays
    this.held = [];    // their PyBuffers
    this.slots = [];   // the JavaScript row each draft slot holds
  }

  /** Views of buffers for nP target rows, nQ draft rows and one row of running sums, of `size` probabilities. */
  fit(size, nP, nQ) {
    if (size !== this.size || nP > this.nP || nQ > this.nQ) {
      this.release();
      this.slots = [];
      this.size = size;
      this.nP = Math.max(nP, this.nP);
      this.nQ = Math.max(nQ, this.nQ, 1);
      const list = this.allocate(this.nP, this.nQ, size);
      this.arrays = Array.from({ length: list.length }, (_, i) => list.get(i));
      list.destroy();
    }
    return this.views();
  }

  /** The views, taken again when Pyodide's memory has grown since (a detached view has no bytes). */
  views() {
    if (!this.held.length || this.held[this.held.length - 1].data.byteLength === 0) {
      for (const b of this.held) b.release();
      const last = this.arrays.length - 1, { nP, nQ } = this;
      this.held = this.arrays.map((a, i) => a.getBuffer(i === last - 1 ? "i32" : "f64"));
      const data = this.held.map((b) => b.data);
      this.current = { p: data.slice(0, nP), q: data.slice(nP, nP + nQ), sums: data[last - 2], ints: data[last - 1],
        out: data[last] };
    }
    return this.current;
  }

  release() {
    for (const b of this.held) b.release();
    for (const a of this.arrays) a.destroy();
    this.held = [];
    this.arrays = [];
  }
}

/** A row into its buffer (one copy, inside JavaScript). */
function put(buffer, row) {
  if (row.length !== buffer.length) throw new Error(`概率行的长度 ${row.length} 与词表大小 ${buffer.length} 不一致。`);
  buffer.set(row);
}

const orNull = (x) => (Number.isNaN(x) ? null : x);

/** verify's record (the keys in sampler.verify's order): its numbers from the answer array, p(x) and q(x) of the n
 * tested positions from the rows JavaScript wrote. */
function record(out, kind, pRows, qRows, drafted) {
  const n = out[3];
  const tested = drafted.slice(0, n);
  const list = (at) => Array.from(out.subarray(at, at + n), orNull);
  const greedy = Number.isNaN(out[2]);  // T = 0: no uniforms, no probabilities (the answers hold none)
  return { p: tested.map((x, i) => pRows[i][x]), q: tested.map((x, i) => qRows[i][x]),
    accept_prob: greedy ? tested.map(() => null) : list(4 + n), u: greedy ? tested.map(() => null) : list(4),
    accepted: out[0], final_u: orNull(out[2]), kind, token: out[1] };
}

/** The sampler adapter speculate.mjs calls: every decision made by sampler.py in Pyodide (one adapter per Pyodide:
 * the glue's buffers are its). Its pythonSums() is the same adapter with every running sum left to sampler.py (the
 * path before row_sums.mjs, kept for the benchmark and the parity test). */
export function samplerAdapter(pyodide) {
  const glue = pyodide.pyimport("c13_e6");
  const fn = Object.fromEntries(NAMES.map((name) => [name, glue[name]]));
  const buffers = new Buffers(fn.e6_buffers);
  let current = null;  // the stream the glue holds (null: none, or T = 0)
  let next = 0;        // the position in the round of the next draw, its slot
  let k = 0;           // the drafted count of the verify in progress
  // verify's final draw at position i: the residual of p_i and q_i after a rejection there, else the bonus row p_k
  glue.e6_summer((i) => {
    const view = buffers.views();
    if (i < k) residualSums(view.p[i], view.q[i], view.sums);
    else runningSums(view.p[i], view.sums);
  });
  const use = (stream) => {
    if (stream === current) return;
    fn.e6_use(stream ?? undefined);  // undefined arrives as None
    current = stream;
    next = 0;
  };
  /** The row into the slot of its position (the draw's row, or the greedy pick's), its sums when asked. */
  const one = (row, sums) => {
    const view = buffers.fit(row.length, 0, 1);
    const slot = next++ % view.q.length;
    put(view.q[slot], row);
    buffers.slots[slot] = row;
    if (sums) runningSums(row, view.sums);
    view.ints[SLOT] = slot;
    view.ints[SUMMED] = sums ? 1 : 0;
  };
  const adapter = (sums) => ({
    stream: (seed) => fn.e6_stream(seed),
    draw(stream, row) {
      use(stream);
      one(row, sums);
      const token = fn.e6_draw();
      return { token, u: buffers.views().out[0] };
    },
    greedyPick(row) {
      use(null);
      one(row, false);
      return fn.e6_greedy_pick();
    },
    verify(stream, pRows, qRows, drafted) {
      use(stream ?? null);
      k = drafted.length;
      if (pRows.length !== k + 1 || qRows.length !== k) {
        throw new Error(`verify：${k} 个草稿 token 需要 ${k + 1} 行目标分布和 ${k} 行草稿分布，` +
          `收到 ${pRows.length} 行和 ${qRows.length} 行。`);
      }
      const view = buffers.fit(pRows[0].length, k + 1, k);
      pRows.forEach((row, i) => put(view.p[i], row));
      qRows.forEach((row, i) => {  // the drafts' rows are in their slots since their draws, unless moved since
        if (buffers.slots[i] !== row) put(view.q[i], (buffers.slots[i] = row));
      });
      const ints = view.ints;
      [ints[K], ints[SUMMED]] = [k, sums ? 1 : 0];
      ints.set(drafted, DRAFTED);
      const kind = fn.e6_verify();
      next = 0;
      return record(buffers.views().out, kind, pRows, qRows, drafted);
    },
    pythonSums: () => adapter(false),
  });
  return adapter(true);
}
