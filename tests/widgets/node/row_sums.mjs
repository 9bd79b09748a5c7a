// Node driver for tests/widgets/test_row_sums.py: widgets/e6/row_sums.mjs over the job's rows, the answers as raw
// float64 bytes (little-endian, base64), so that Python compares them bit for bit.
//
//   node tests/widgets/node/row_sums.mjs JOB.json
//
// JOB.json: {"rows": [base64 of a row's doubles], "pairs": [[base64 p, base64 q]]}. Prints ONE line of JSON:
// {"sums": [runningSums of each row], "weights": [residualWeight of each pair, entry by entry], "residualSums":
// [residualSums of each pair]}, each base64, written into Float64Arrays as the bridge writes Python's buffers.

import { readFileSync } from "node:fs";
import { residualSums, residualWeight, runningSums } from "../../../widgets/e6/row_sums.mjs";

const doubles = (b64) => {
  const bytes = Buffer.from(b64, "base64");
  return new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8).slice();  // aligned copy
};
const b64 = (array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString("base64");

const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
const rows = job.rows.map(doubles);
const pairs = job.pairs.map(([p, q]) => [doubles(p), doubles(q)]);
const out = {
  sums: rows.map((row) => b64(runningSums(row, new Float64Array(row.length)))),
  weights: pairs.map(([p, q]) => b64(Float64Array.from(p, (v, i) => residualWeight(v, q[i])))),
  residualSums: pairs.map(([p, q]) => b64(residualSums(p, q, new Float64Array(p.length)))),
};
process.stdout.write(JSON.stringify(out) + "\n");
