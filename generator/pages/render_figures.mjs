// Renders the build-time (static) version of every figure with the very modules the widgets run in the browser
// (widgets/figures/*.mjs), so a figure has one renderer. stdin: JSON [{"figure": name, "args": {...}}, ...];
// stdout: JSON [markup, ...] in the same order. A figure that cannot be drawn stops the build, named.
import { renderFigure } from "../../widgets/figures/index.mjs";

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  let requests;
  try {
    requests = JSON.parse(input);
  } catch (err) {
    process.stderr.write(`render_figures: the request is not JSON: ${err.message}\n`);
    process.exit(1);
  }
  const out = [];
  for (const [i, request] of requests.entries()) {
    try {
      out.push(renderFigure(request.figure, request.args));
    } catch (err) {
      process.stderr.write(`render_figures: request ${i}: ${err.message}\n`);
      process.exit(1);
    }
  }
  process.stdout.write(JSON.stringify(out));
});
