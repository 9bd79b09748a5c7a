"""The build-time (static) figures, drawn by the widgets' own figure modules (widgets/figures/*.mjs) in Node.

One renderer per figure: the SVG and HTML that a page shows without JavaScript come from the same functions
the live widgets call in the browser. `render` sends every request of a build to
generator/pages/render_figures.mjs in one Node process and returns the markup in the same order.
"""
import json
import shutil
import subprocess
from pathlib import Path

from mkdocs.exceptions import PluginError


ROOT = Path(__file__).resolve().parents[2]
RENDER_FIGURES = ROOT / "generator" / "pages" / "render_figures.mjs"


def request(figure, **args):
    """One figure to draw: its name in widgets/figures/index.mjs and its arguments (JSON values)."""
    return {"figure": figure, "args": args}


def render(requests):
    """The markup of each requested figure, in order, from one Node process; a failure stops the build, named."""
    if not requests:
        return []
    node = shutil.which("node")
    if node is None:
        raise PluginError("node is needed to draw the figures at build time (install Node 20)")
    payload = json.dumps(requests, ensure_ascii=False, allow_nan=False)
    run = subprocess.run([node, str(RENDER_FIGURES)], input=payload, capture_output=True, text=True,
                         encoding="utf-8", cwd=ROOT)
    if run.returncode != 0:
        raise PluginError(f"{RENDER_FIGURES.relative_to(ROOT)}: {run.stderr.strip() or 'failed'}")
    out = json.loads(run.stdout)
    if len(out) != len(requests):
        raise PluginError(f"{RENDER_FIGURES.relative_to(ROOT)}: {len(out)} figures for {len(requests)} requests")
    return out
