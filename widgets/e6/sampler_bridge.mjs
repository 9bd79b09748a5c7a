// E6's bridge to widgets/sampler.py in Pyodide: every draw, accept test and greedy pick of the two loops
// (speculate.mjs) is a call into sampler.py through widgets/py/c13_e6.py; JavaScript only moves probabilities into
// Python's buffers and reads the results back.
//
// Python owns the rows: float64 arrays (array("d")) that the glue (c13_e6.py) allocates, n_p for the target's rows and
// n_q for the draft's (the first of them also takes the row of every draw and greedy pick), one int32 array for
// the drafted tokens and one float64 array for the answers. JavaScript writes each softmax row into its buffer
// through a Float64Array view of Pyodide's memory (PyProxy.getBuffer: no copy on the Python side, no proxy per
// row) and calls Python with counts and slot numbers: one call per draw or greedy pick, one per verify. The answers
// are plain numbers: the token as the call's value, the uniform and verify's record (None written as NaN, read
// back as null) in the answer array, verify's kind as a string. A view is detached when Pyodide's memory grows
// (any Python call may grow it): it is taken again before each use.

const NAMES = ["e6_buffers", "e6_stream", "e6_draw", "e6_greedy_pick", "e6_verify"];

/** The Python-owned buffers and JavaScript's views of them, renewed when a row's length or a count outgrows them. */
class Buffers {
  constructor(allocate) {
    this.allocate = allocate;
    this.size = -1;
    this.nP = 0;
    this.nQ = 0;
    this.arrays = [];  // PyProxies of the Python arrays
    this.held = [];    // their PyBuffers
  }

  /** Views of buffers for nP target rows and nQ draft rows of `size` probabilities. */
  fit(size, nP, nQ) {
    if (size !== this.size || nP > this.nP || nQ > this.nQ) {
      this.release();
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
      const last = this.arrays.length - 1;
      this.held = this.arrays.map((a, i) => a.getBuffer(i === last - 1 ? "i32" : "f64"));
      const data = this.held.map((b) => b.data);
      this.current = { p: data.slice(0, this.nP), q: data.slice(this.nP, this.nP + this.nQ), drafted: data[last - 1],
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

/** verify's record from the answer array (the keys in sampler.verify's order). */
function record(out, kind) {
  const n = out[3];
  const list = (field) => Array.from(out.subarray(4 + field * n, 4 + (field + 1) * n), orNull);
  return { p: list(0), q: list(1), accept_prob: list(3), u: list(2), accepted: out[0], final_u: orNull(out[2]), kind,
    token: out[1] };
}

/** The sampler adapter speculate.mjs calls: every decision made by sampler.py in Pyodide. */
export function samplerAdapter(pyodide) {
  const glue = pyodide.pyimport("c13_e6");
  const fn = Object.fromEntries(NAMES.map((name) => [name, glue[name]]));
  const buffers = new Buffers(fn.e6_buffers);
  const one = (row) => put(buffers.fit(row.length, 0, 1).q[0], row);
  return {
    stream: (seed) => fn.e6_stream(seed),
    draw(stream, row) {
      one(row);
      const token = fn.e6_draw(stream, 0);
      return { token, u: buffers.views().out[0] };
    },
    greedyPick(row) {
      one(row);
      return fn.e6_greedy_pick(0);
    },
    // JS null would arrive as a JsNull; undefined arrives as None (T = 0: verify's rng=None)
    verify(stream, pRows, qRows, drafted) {
      const size = (pRows[0] ?? qRows[0])?.length ?? 0;
      const view = buffers.fit(size, pRows.length, Math.max(qRows.length, drafted.length));
      pRows.forEach((row, i) => put(view.p[i], row));
      qRows.forEach((row, i) => put(view.q[i], row));
      view.drafted.set(drafted);
      const kind = fn.e6_verify(stream ?? undefined, pRows.length, qRows.length, drafted.length);
      return record(buffers.views().out, kind);
    },
  };
}
