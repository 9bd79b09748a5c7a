"""Per page: find the experiments, give each its file:// notice and its JavaScript-off line, and fill in the
page's experiment count: the experiments by number (实验 E2 and 实验 E2 续 are one), each section's heading naming
its number."""
import re

from mkdocs.exceptions import PluginError

SERVE_COMMAND = "make serve"
# for a reader who has only the built folder; bound to this machine, never to every interface
SERVE_PLAIN = "python3 -m http.server --bind 127.0.0.1"
EXPERIMENT_COUNT = "C13EXPERIMENTCOUNTPLACEHOLDER"
HEADING_END = re.compile(r"</h[23]>")
NUMBER = re.compile(r"<h[23][^>]*>\s*实验 (E\d+)")
EXP_OPEN = re.compile(r'<section\b(?=[^>]*\bclass="c13-exp")[^>]*\bid="([^"]+)"[^>]*>')


def add_notices(html, page):
    sections = EXP_OPEN.findall(html)
    if len(set(sections)) != len(sections):
        raise PluginError(f"{page.file.src_uri}: experiment ids repeat: {sections}")
    notice = ('<p class="c13-exp-notice" hidden>这里是构建时生成的静态版本。在线运行需要用本地服务打开本站：'
              f'在项目目录执行 <code>{SERVE_COMMAND}</code>（只有构建好的文件夹时，在该文件夹里执行 '
              f'<code>{SERVE_PLAIN}</code>），再用浏览器打开它打印的地址（直接双击打开的'
              '文件不能启动实验）。</p>')
    # without JavaScript the reader sees only the static version: say that it runs live with JavaScript on
    notice += ('<noscript><p class="c13-exp-noscript">JavaScript 已关闭，这里显示的是构建时生成的静态版本。'
               '打开 JavaScript 后，这个实验可以在页面里直接动手运行。</p></noscript>')
    # each experiment's notices go right under its heading (or first, when it has none)
    out, pos, numbers = [], 0, []
    for m in EXP_OPEN.finditer(html):
        end = html.find("</section>", m.end())
        head = HEADING_END.search(html, m.end(), end if end >= 0 else len(html))
        cut = head.end() if head else m.end()
        number = NUMBER.search(html, m.end(), cut)
        if not number:
            raise PluginError(f"{page.file.src_uri}: experiment {m.group(1)} has no heading 实验 E…: number it "
                              "(a part of another experiment is 实验 E… 续)")
        numbers.append(number.group(1))
        out += [html[pos:cut], notice]
        pos = cut
    html = "".join(out) + html[pos:]
    if EXPERIMENT_COUNT in html:
        if not sections:
            raise PluginError(f"{page.file.src_uri}: the page asks for its experiment count but has no experiments")
        html = html.replace(EXPERIMENT_COUNT, str(len(set(numbers))))
    page.c13_experiments = sections
    return html
