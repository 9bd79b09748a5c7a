// Every figure module's renderers by name, gathered from the modules (each registers its own in `FIGURES`, next
// to the functions): the build (generator/pages/render_figures.mjs) draws the static versions through this table,
// the widgets import the same functions for the live ones. A name registered twice stops the import.
import { FIGURES as alphaPositions } from "./alpha_positions.mjs";
import { FIGURES as measuredCosts } from "./measured_costs.mjs";
import { FIGURES as replay } from "./replay.mjs";
import { FIGURES as requestPath } from "./request_path.mjs";
import { FIGURES as roofline } from "./roofline.mjs";
import { FIGURES as roundTimeline } from "./round_timeline.mjs";
import { FIGURES as speedup } from "./speedup.mjs";
import { FIGURES as stacked } from "./stacked.mjs";
import { FIGURES as tensor } from "./tensor.mjs";
import { FIGURES as tvCurve } from "./tv_curve.mjs";
import { FIGURES as verifySteps } from "./verify_steps.mjs";
import { FIGURES as whenFaster } from "./when_faster.mjs";

const MODULES = {
  "alpha_positions.mjs": alphaPositions, "measured_costs.mjs": measuredCosts, "replay.mjs": replay,
  "request_path.mjs": requestPath, "roofline.mjs": roofline, "round_timeline.mjs": roundTimeline,
  "speedup.mjs": speedup, "stacked.mjs": stacked, "tensor.mjs": tensor, "tv_curve.mjs": tvCurve,
  "verify_steps.mjs": verifySteps, "when_faster.mjs": whenFaster
};

export const FIGURES = {};
for (const [module, table] of Object.entries(MODULES)) {
  for (const [name, draw] of Object.entries(table)) {
    if (name in FIGURES) throw new Error(`figure ${name} is registered twice (again in ${module})`);
    FIGURES[name] = draw;
  }
}

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
