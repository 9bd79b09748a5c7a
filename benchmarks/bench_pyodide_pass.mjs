// What one pass over a 2,048-probability row costs in Pyodide, beside what sampler.py's draw costs: the floor under
// E6's sampler time per round (the goal: 60% of the old glue's time).
//
//   node benchmarks/bench_pyodide_pass.mjs [--repeats N]
//
// A draw's table (sampler._table) must hold the row's running sums, each one float64 addition in the row's order,
// so that CPython and Pyodide draw the same token: in Python every one of them is a new float object, and reading
// the row out of its array('d') buffer makes another. Printed, per pass over one row (µs, median [quartiles]
// (min–max) over interleaved repeats): the boxing alone (array.tolist), a comparison pass with no allocation
// (max of a list), the running sums alone (accumulate over a list), sampler.py's table and draw from the array the
// bridge fills, and math.fsum (C doubles, no objects: a different, exactly rounded sum, shown for scale). Not a
// test: nothing is asserted.
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { startPyodide } from "../tests/widgets/node/e6_lib.mjs";

const PASSES = `
import math, random, time
from array import array
from itertools import accumulate
import sampler

_rng = random.Random(7)
_w = [math.exp(-1.1 * math.log(i + 1) + 0.3 * _rng.gauss(0, 1)) for i in range(2048)]
_t = math.fsum(_w)
row = array("d", [w / _t for w in _w])
row_list = row.tolist()
PASSES = {
    "boxing only (array.tolist)": lambda: row.tolist(),
    "compare only (max of a list)": lambda: max(row_list),
    "running sums only (accumulate a list)": lambda: list(accumulate(row_list)),
    "sampler._table(array)": lambda: sampler._table(row),
    "sampler.draw(array, u)": lambda: sampler.draw(row, 0.5),
    "math.fsum(list), for scale": lambda: math.fsum(row_list),
}


def time_pass(name, calls=50):
    f = PASSES[name]
    t0 = time.perf_counter()
    for _ in range(calls):
        f()
    return (time.perf_counter() - t0) / calls * 1e6
`;

function spread(values) {
  const s = [...values].sort((a, b) => a - b);
  const q = (f) => { const at = (s.length - 1) * f, lo = Math.floor(at); return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (at - lo); };
  return { median: q(0.5), q1: q(0.25), q3: q(0.75), min: s[0], max: s[s.length - 1] };
}

async function main() {
  const i = process.argv.indexOf("--repeats");
  const repeats = i > 0 ? Number(process.argv[i + 1]) : 15;
  const pyodide = await startPyodide(fileURLToPath(new URL("../widgets/sampler.py", import.meta.url)));
  pyodide.runPython(PASSES);
  const names = pyodide.runPython("list(PASSES)").toJs();
  const timePass = pyodide.globals.get("time_pass");
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (const n of names) timePass(n, 10);  // warm-up
  const load0 = loadavg();
  for (let r = 0; r < repeats; r++) {
    const order = r % 2 ? [...names].reverse() : names;
    for (const n of order) times[n].push(timePass(n));
  }
  const f = (x) => x.toFixed(1);
  console.log(`one pass over 2,048 float64 probabilities in Pyodide ${pyodide.version} (Node ${process.version}), ` +
    `${repeats} interleaved repeats; load ${load0.map((x) => x.toFixed(2)).join(" ")} → ` +
    `${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
  console.log("µs per pass: median [quartiles] (min–max)");
  for (const n of names) {
    const s = spread(times[n]);
    console.log(`  ${n.padEnd(40)} ${f(s.median)} [${f(s.q1)}–${f(s.q3)}] (${f(s.min)}–${f(s.max)})`);
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
