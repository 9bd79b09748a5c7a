"""MkDocs glue (named in mkdocs.yml `hooks:`): every page's Markdown is a Jinja2 template rendered with c13.json.

- Data: the JSON at $C13_DATA (default precomputed/c13.json), read through the data contract
  (generator/contract.py: schema version, digest, every key the pages read); a problem stops the build with
  the file and the key named.
- Templates: delimiters that cannot clash with LaTeX or Markdown — `[[ expression ]]`, `[% statement %]`,
  `[# comment #]` — StrictUndefined, autoescape of every inserted string, and any error fails the build.
- Filters: the named number formats of generator/pages/formats.py (pct, times, num, ms, frac, fixed2, …) and `tok`,
  which shows a token's label as text (escaped for HTML and for Markdown alike).
- Per page: the count of in-page experiments is taken from the rendered page (its <section class="c13-exp">
  elements), each experiment gets its file:// notice, and a page with experiments carries the data the
  widgets need as <script type="application/json" id="c13-widget-data"> (embedded, never fetched).
- Figures: the static version of every picture is drawn at build time by the widgets' own renderers
  (widgets/figures/*.mjs, run in Node by generator/pages/figures.py), the same code the browser runs live.
- Files: widgets/ (with its subfolders) and the pinned browser packages from node_modules (KaTeX CSS and fonts, iframe-worker,
  Pyodide) are added to the build as generated files, so nothing is copied into docs/.
- Math: arithmatex's formulas are rendered to HTML (+ MathML) at build time by generator/pages/katex_render.mjs,
  so they read without JavaScript and the page loads no math script; the search index gets them as readable
  text (generator/pages/search_text.py).
"""
import json
import re
import sys
from pathlib import Path

from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# after the path fix: MkDocs loads hooks by file path
from generator.errors import InputError  # noqa: E402
from generator.pages.context import build_context  # noqa: E402
from generator.pages.data_file import DataError, data_path, load_data  # noqa: E402
from generator.pages.experiments import EXPERIMENT_COUNT, add_notices  # noqa: E402
from generator.pages.math import render_math  # noqa: E402
from generator.pages.preview import data_fix, error_markdown, in_preview  # noqa: E402
from generator.pages.search_text import rewrite_index  # noqa: E402
from generator.pages.templates import make_env, render_page  # noqa: E402
from generator.pages.vendor import add_browser_files, add_model_files  # noqa: E402
from generator.pages.widget_payload import script_json, widget_data  # noqa: E402
from mkdocs.exceptions import PluginError  # noqa: E402

# ---------------------------------------------------------------------------------------------
# MkDocs events
# ---------------------------------------------------------------------------------------------

_state = {}


def on_config(config):
    _state.clear()
    try:
        ctx, widget = _load()
    except DataError as e:
        if not in_preview():
            raise
        # the preview shows it in every page until the data is fixed (generator/pages/preview.py)
        _state.update(error=e, fix=data_fix(data_path()))
        return config
    ctx["qa_contact"] = (config.extra.get("c13") or {}).get("qa_contact") or "课程的答疑渠道"
    _state.update(ctx=ctx, env=make_env(), widget=widget)
    return config


def _load():
    """The template context and the widgets' data, from the data file: any fault is one line naming the file (and
    its field)."""
    path = data_path()
    try:
        data = load_data(path)
        ctx = build_context(data)
        return ctx, script_json(widget_data(data, ctx))
    except DataError:
        raise
    except InputError as e:  # a bad optional input beside it (measured.json), named with its field
        raise DataError(e.path, e.field, e.problem) from None
    except (KeyError, ValueError, IndexError, TypeError, AttributeError) as e:
        raise DataError(path, None, f"cannot derive the page's figures ({type(e).__name__}: {e}); regenerate it "
                                    "with `make data`") from None



def on_files(files, config):
    """The browser files; E6's come from the data, so a preview whose data failed (on_config) builds without them,
    and one that fails here shows its error in every page: a failed preview build would leave page loads waiting."""
    files = add_browser_files(files, config)
    if "error" in _state:
        return files
    try:
        return add_model_files(files, config)
    except DataError as e:  # the data changed since on_config read it
        if not in_preview():
            raise
        _state.update(error=e, fix=data_fix(data_path()))
        return files


def on_page_markdown(markdown, page, config, files):
    if "error" in _state:
        return error_markdown(_state["error"], _state["fix"])
    try:
        return render_page(_state["env"], _state["ctx"], markdown, page.file.src_uri)
    except PluginError as e:
        if not in_preview():
            raise
        return error_markdown(e)



def on_page_content(html, page, config, files):
    return add_notices(html, page)


SEARCH_DIALOG = '<div class="md-search" data-md-component="search" role="dialog">'


def on_post_page(output, page, config):
    output = render_math(output, page.file.src_uri)
    # the theme's search overlay is a dialog without a name; screen readers announce it as 搜索
    output = output.replace(SEARCH_DIALOG, SEARCH_DIALOG[:-1] + ' aria-label="搜索">', 1)
    if EXPERIMENT_COUNT in output:
        raise PluginError(f"{page.file.src_uri}: the experiment count placeholder was left in the page")
    if getattr(page, "c13_experiments", None):
        tag = f'<script type="application/json" id="c13-widget-data">{_state["widget"]}</script>'
        if "</body>" not in output:
            raise PluginError(f"{page.file.src_uri}: no </body> to put the widget data before")
        output = output.replace("</body>", tag + "\n</body>", 1)
    return output


def on_post_template(output, template_name, config):
    """The 404 page gets root-absolute URLs when site_url is unset; make them relative so that it also
    finds its styles under a sub-path (all pages of this site sit at the top level)."""
    if template_name != "404.html":
        return output
    output = re.sub(r'\b(href|src)="/(?!/)', r'\1="', output)
    return output.replace('"base": "/"', '"base": "."').replace('"search": "/assets/', '"search": "assets/')


@event_priority(-50)  # after the search plugin wrote its index, before the offline plugin inlines it
def on_post_build(config):
    """The search index as UTF-8 text rather than \\u escapes (the same JSON at about half the bytes), its
    formulas as readable text: the plugin indexed the pages before their math was rendered."""
    path = Path(config.site_dir) / "search" / "search_index.json"
    if path.is_file():
        index = rewrite_index(json.loads(path.read_text(encoding="utf-8")))
        path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
