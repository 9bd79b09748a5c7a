// Node driver for tests/widgets/test_e6_explain.py: the pure parts of E6's explanation of a run — the round's
// timeline (widgets/figures/round_timeline.mjs) and the regime and sampler times of widgets/e6/explain.js.
//
//   node tests/widgets/node/e6_explain.mjs MODE ARGS.json, MODE one of
//     timeline   roundSegments(args) and roundTimeline(args), or the error
//     regime     regime(roof, modelFigures(config), positions, context, ms) per roof
//     verdict    roofVerdict(r, predictedV, measuredV, thresholds) per case given
//     sampler    samplerTimes(result)
//     sayings    sayings(...) per case given: the values E6's words are filled with
//
// Prints ONE line of JSON.
import { readFileSync } from "node:fs";
import { regime, roofVerdict, samplerTimes, sayings } from "../../../widgets/e6/explain.js";
import { modelFigures } from "../../../widgets/figures/roofline.mjs";
import { roundSegments, roundTimeline } from "../../../widgets/figures/round_timeline.mjs";

const [mode, file] = process.argv.slice(2);
const args = JSON.parse(readFileSync(file, "utf8"));
let out;
if (mode === "timeline") {
  try {
    out = { segments: roundSegments(args), svg: roundTimeline(args) };
  } catch (err) {
    out = { error: err.message };
  }
} else if (mode === "regime") {
  const model = modelFigures(args.config);
  out = args.roofs.map((roof) => regime(roof, model, args.positions, args.context, args.measuredMs));
} else if (mode === "verdict") {
  out = args.cases.map((c) => roofVerdict({ overRoof: c.overRoof }, c.predictedV, c.measuredV, args.thresholds));
} else if (mode === "sayings") {
  out = args.cases.map((c) => sayings(c.result, c.k, c.ratio, c.r, c.verdict, c.roofC, c.times, c.opts));
} else if (mode === "sampler") {
  out = samplerTimes(args);
} else {
  process.stderr.write(`e6_explain.mjs: unknown mode ${mode}\n`);
  process.exit(2);
}
process.stdout.write(JSON.stringify(out) + "\n");
