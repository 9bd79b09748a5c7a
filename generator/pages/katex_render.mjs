// Renders TeX to HTML at build time with the KaTeX of node_modules, so the pages load no math script.
// stdin: JSON [{"tex": "...", "display": true|false}, ...]; stdout: JSON ["<span class=\"katex\">…", ...].
// A formula KaTeX cannot parse stops the build: the message names the formula.
// Trusted: only \htmlData and \htmlClass (E2's formula marks its terms with data-term="A" … so that the widget
// can make them buttons); every other command that would write HTML attributes or links stays refused.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
let katex;
try {
  katex = require("katex");
} catch (e) {
  process.stderr.write("katex is not in node_modules: run npm ci\n");
  process.exit(1);
}

const TRUSTED = new Set(["\\htmlData", "\\htmlClass"]);
const OPTIONS = {
  throwOnError: true,
  output: "htmlAndMathml",
  trust: (context) => TRUSTED.has(context.command),
  // the HTML extension is what E2's formula uses on purpose: not worth a warning; anything else non-strict warns
  strict: (code) => (code === "htmlExtension" ? "ignore" : "warn"),
};

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const out = [];
  for (const { tex, display } of JSON.parse(input)) {
    try {
      out.push(katex.renderToString(tex, { ...OPTIONS, displayMode: display }));
    } catch (e) {
      process.stderr.write(`KaTeX cannot render ${JSON.stringify(tex)}: ${e.message}\n`);
      process.exit(1);
    }
  }
  process.stdout.write(JSON.stringify(out));
});
