// The plain arithmetic that feeds widgets/sampler.py's draws in E6, formed in JavaScript: a row's running sums, and
// the residual's weights max(0, p - q) with their running sums. In Pyodide a pass over a row in Python boxes each of
// its 2,048 floats (~0.15 ms); here it is ~2 µs. The sums are written into Python's buffers (sampler_bridge.mjs) and
// sampler.py searches them: every comparison with u, the search and the zero-weight tail stay there.
//
// Bit for bit what CPython forms (tests/widgets/test_row_sums.py): float64 additions, left to right, one per entry, as
// itertools.accumulate does them, and the residual's weight as sampler.residual_weight defines it.

/** sampler.residual_weight: p - q where p > q, else +0 (0.0 in Python). Without a branch: p > q is a coin toss on real
 * rows, and a mispredicted branch made a row cost 4× as much; (p > q) is 1 or 0, and + 0 makes the -0 of 0 times a
 * negative difference +0. The same as Python's for all finite p, q >= 0 (E6's rows, softmaxes of finite logits). */
export const residualWeight = (p, q) => (p > q) * (p - q) + 0;

/** out[i] = row[0] + row[1] + … + row[i], summed in order (out.length entries). The sum starts at -0, which adds
 * nothing to any float (even to -0), so out[0] is row[0] itself, as accumulate's first item. */
export function runningSums(row, out) {
  let s = -0;
  for (let i = 0; i < out.length; i++) {
    s += row[i];
    out[i] = s;
  }
  return out;
}

/** out[i] = the running sums of the residual weights of p and q (sampler.residual(p, q), then accumulate). */
export function residualSums(p, q, out) {
  let s = -0;
  for (let i = 0; i < out.length; i++) {
    s += residualWeight(p[i], q[i]);
    out[i] = s;
  }
  return out;
}
