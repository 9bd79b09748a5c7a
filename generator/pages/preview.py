"""`make preview`: the lesson on 127.0.0.1 with live reload, for authors editing docs/ (stage 3 only).

MkDocs' own development server builds the pages into a temporary folder and rebuilds them when docs/, the widgets,
the theme override or the data folder change; the open page reloads itself. Two things differ from `make site`:
- a page whose template fails is not a failed build (which would leave every page load waiting until the error is
  fixed): the hooks draw a box in its place that names the file, the line and the error (PREVIEW_ERROR), and the next
  save that fixes it brings the page back; a c13.json that cannot be read (edited by hand, truncated) shows its box,
  in every page, naming the file and `make data`, until the file is good again;
- warnings do not stop it (no --strict), and nothing is checked for the published site: `make site` does that.
Keeping c13.json fresh is the command line's job (generator/cli.py `preview`), as for `make site`.
"""
import errno
import html
import os
import socket
from pathlib import Path

from ..errors import SettingError

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "mkdocs.yml"
PREVIEW_ENV = "C13_PREVIEW"
# besides docs/ and mkdocs.yml, which MkDocs watches itself
WATCHED = ("widgets", "overrides")


def in_preview():
    return os.environ.get(PREVIEW_ENV) == "1"


TEMPLATE_FIX = "改好上面说的文件和行，保存后页面会自己重新生成、刷新；发布前用 <code>make site</code> 做完整的检查。"


def data_fix(path):
    """What to do when the data cannot be read (c13.json edited by hand, truncated, not JSON, or a file it records
    changed): for the reader, in Chinese, naming the file; the English line above it is the detail for the author."""
    name = html.escape(Path(path).name)
    return (f"这一页的数据文件 <code>{name}</code>（<code>{html.escape(str(path))}</code>）或它记下的文件读不出来："
            "多半是被手动改过、被截断，或者已经不是 JSON。在终端运行 <code>make data</code> 重新生成它"
            "（手动的改动会丢掉）；文件好了以后，页面会自己重新生成、刷新。")


def error_markdown(message, fix=TEMPLATE_FIX):
    """The box a page shows in the preview when its template or its data fails: what failed, and what to do."""
    return ('<div class="admonition failure c13-preview-error" role="alert">\n'
            '<p class="admonition-title">预览：这一页没能生成</p>\n'
            f"<pre><code>{html.escape(str(message))}</code></pre>\n"
            f"<p>{fix}</p>\n"
            "</div>\n")


def port_taken(host, port):
    """The one-line refusal of a port the preview cannot listen on (None when it can)."""
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        return f"--port {port}: not a TCP port; give one from 1 to 65535"
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does: a closed port is free
        try:
            s.bind((host, port))
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                return (f"port {port} on {host} is in use (another `make preview` or `make serve`?): stop that one, "
                        f"or choose another port with --port (python -m generator preview --port {port + 1})")
            return f"cannot listen on {host}:{port} ({e.strerror}); choose another port with --port"
    return None


def check_port(port, host="127.0.0.1"):
    problem = port_taken(host, port)
    if problem:
        raise SettingError(problem)


def serve_preview(data, host="127.0.0.1", port=8000, docs=None):
    """Serve the pages built from the c13.json at `data` until interrupted, rebuilding on every change."""
    from mkdocs.commands.serve import serve
    data = Path(data).resolve()
    os.environ.update({"C13_DATA": str(data), PREVIEW_ENV: "1", "NO_MKDOCS_2_WARNING": "1"})
    overrides = {"docs_dir": str(Path(docs).resolve())} if docs else {}
    try:
        serve(config_file=str(CONFIG), livereload=True, watch=[str(ROOT / w) for w in WATCHED] + [str(data.parent)],
              dev_addr=f"{host}:{port}", strict=False, **overrides)
    except OSError as e:
        if e.errno != errno.EADDRINUSE:
            raise
        raise SettingError(port_taken(host, port) or f"port {port} on {host} was taken as the preview started: "
                           "choose another port with --port") from None
