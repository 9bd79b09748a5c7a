"""Math rendered at build time: arithmatex's formulas become KaTeX HTML (+ MathML), rendered in Node."""
import html
import json
import re
import shutil
import subprocess
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[2]

MATH = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.S)
KATEX_RENDER = ROOT / "generator" / "pages" / "katex_render.mjs"


def render_math(output, name):
    """Replace arithmatex's \\( … \\) and \\[ … \\] by KaTeX's HTML, rendered now with node, so that math
    reads without JavaScript and the page loads no math script (only KaTeX's CSS and fonts)."""
    found = list(MATH.finditer(output))
    if not found:
        return output
    items = [{"tex": html.unescape(m.group(2)).strip()[2:-2], "display": m.group(1) == "div"} for m in found]
    node = shutil.which("node")
    if node is None:
        raise PluginError(f"{name}: node is needed to render the math at build time (install Node 20)")
    run = subprocess.run([node, str(KATEX_RENDER)], input=json.dumps(items), capture_output=True,
                         text=True, cwd=ROOT)
    if run.returncode != 0:
        raise PluginError(f"{name}: {run.stderr.strip()}")
    rendered = iter(json.loads(run.stdout))
    return MATH.sub(lambda m: f'<{m.group(1)} class="arithmatex">{next(rendered)}</{m.group(1)}>', output)
