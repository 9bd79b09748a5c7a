// Every figure the pages and the widgets draw, by name: the build (generator/pages/render_figures.mjs) renders
// the static versions through this table, the widgets import the same functions for the live ones.
import { alphaPositions, alphaPositionsTable } from "./alpha_positions.mjs";
import { measuredCosts, measuredTable, measuredVerify } from "./measured_costs.mjs";
import { requestPath } from "./request_path.mjs";
import { replayTable, replayText } from "./replay.mjs";
import { rooflineFigure } from "./roofline.mjs";
import { sliderPlot, speedupPlot } from "./speedup.mjs";
import { outputHistogram, stackedPicture, stackedRows } from "./stacked.mjs";
import { tensorShapes } from "./tensor.mjs";
import { tvCurve, tvCurveTable } from "./tv_curve.mjs";
import { verifySteps } from "./verify_steps.mjs";

export const FIGURES = {
  request_path: requestPath,
  stacked: stackedPicture,
  stacked_rows: stackedRows,
  histogram: outputHistogram,
  tensor: tensorShapes,
  replay_table: replayTable,
  replay_text: replayText,
  tv_curve: tvCurve,
  tv_curve_table: tvCurveTable,
  verify_steps: verifySteps,
  speedup: speedupPlot,
  speedup_sliders: sliderPlot,
  alpha_positions: alphaPositions,
  alpha_positions_table: alphaPositionsTable,
  measured_costs: measuredCosts,
  measured_verify: measuredVerify,
  measured_table: measuredTable,
  roofline: rooflineFigure,
};

/** One figure's markup; an unknown name or a failing figure throws with the name in the message. */
export function renderFigure(name, args) {
  const draw = FIGURES[name];
  if (!draw) throw new Error(`unknown figure ${JSON.stringify(name)} (known: ${Object.keys(FIGURES).join(", ")})`);
  try {
    return draw(args);
  } catch (err) {
    throw new Error(`figure ${name}: ${err.message}`);
  }
}
