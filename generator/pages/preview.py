"""`make preview`: the lesson on 127.0.0.1 with live reload, for authors editing docs/ (stage 3 only).

MkDocs' own development server builds the pages into a temporary folder and rebuilds them when docs/, the widgets,
the theme override or the data folder change; the open page reloads itself. Two things differ from `make site`:
- a page whose template fails is not a failed build (which would leave every page load waiting until the error is
  fixed): the hooks draw a box in its place that names the file, the line and the error (PREVIEW_ERROR), and the next
  save that fixes it brings the page back;
- warnings do not stop it (no --strict), and nothing is checked for the published site: `make site` does that.
Keeping c13.json fresh is the command line's job (generator/cli.py `preview`), as for `make site`.
"""
import html
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "mkdocs.yml"
PREVIEW_ENV = "C13_PREVIEW"
# besides docs/ and mkdocs.yml, which MkDocs watches itself
WATCHED = ("widgets", "overrides")


def in_preview():
    return os.environ.get(PREVIEW_ENV) == "1"


def error_markdown(message):
    """The box a page shows in the preview when its template or its data fails: what failed, and what to do."""
    return ('<div class="admonition failure c13-preview-error" role="alert">\n'
            '<p class="admonition-title">预览：这一页没能生成</p>\n'
            f"<pre><code>{html.escape(str(message))}</code></pre>\n"
            "<p>改好上面说的文件和行，保存后页面会自己重新生成、刷新；发布前用 <code>make site</code> 做完整的检查。</p>\n"
            "</div>\n")


def serve_preview(data, host="127.0.0.1", port=8000, docs=None):
    """Serve the pages built from the c13.json at `data` until interrupted, rebuilding on every change."""
    from mkdocs.commands.serve import serve
    data = Path(data).resolve()
    os.environ.update({"C13_DATA": str(data), PREVIEW_ENV: "1", "NO_MKDOCS_2_WARNING": "1"})
    overrides = {"docs_dir": str(Path(docs).resolve())} if docs else {}
    serve(config_file=str(CONFIG), livereload=True, watch=[str(ROOT / w) for w in WATCHED] + [str(data.parent)],
          dev_addr=f"{host}:{port}", strict=False, **overrides)
