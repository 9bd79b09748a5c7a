"""The Jinja environment of the page templates: [[ ]] / [% %] delimiters, strict, autoescaped, fatal errors."""
import functools
import json
import re
import traceback

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension
from markupsafe import Markup
from mkdocs.exceptions import PluginError

from .formats import C_PARAMS, C_PARAMS_N, FORMATS, as_written, num, reported_speed, speed, times
from .data_file import data_path
from .figure_table import FIGURES, frame



def optional(value, fmt, *args):
    """A figure that may be absent (None in the data, e.g. no model card): '—' instead of a number."""
    return "—" if value is None else FORMATS[fmt](value, *args)


def plain(value):
    """A recipe or corpus value: dicts as 'key value' pairs, whole numbers with thousands separators
    (597230 → '597,230'), other numbers as written (0.002, not 0.0020)."""
    if isinstance(value, dict):
        return "，".join(f"{k} {plain(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "、".join(plain(v) for v in value)
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return num(value)
    if isinstance(value, float):
        return as_written(value)
    return str(value)


MD_SPECIAL = set("\\`*_{}[]()#+-.!|<>&$~:^=\"'%")


def md_text(text):
    """Text that neither HTML nor Markdown (nor the math renderer) can read as markup."""
    return "".join(f"&#{ord(ch)};" if ch in MD_SPECIAL else ch for ch in str(text))


def prompt(text):
    """A prompt as typed, in a code-like box: 孔明曰：「 ends inside an open quote, which page brackets
    around it would make read as unbalanced (「孔明曰：「」)."""
    return Markup('<code class="c13-prompt">{}</code>').format(Markup(md_text(text)))


def section_of(text):
    """The section mark a citation gives ('§5.4.2'), so the page never types a source's locator itself."""
    m = re.search(r"§\s*[\d.]*\d", str(text))
    if not m:
        raise ValueError(f"no § section in {text!r}")
    return m.group(0)


class Live:
    """A blank a widget fills in the reader's browser: `run` in the context, [[ run.v | fixed(2) ]] in the words a
    widget says (E6's report: docs/index.md, <div data-words>). The page writes the words and names the format; the
    build writes an empty <span data-run="v" data-format="fixed" data-args="[2]">, and the widget (c13-util.js say)
    puts in its value through the same-named format of widgets/figures/formats.mjs. A pick on a live decision
    ([% pick run.bound %]) writes every case, each in <span data-pick data-case>, and the widget keeps the one its
    value takes."""

    def __init__(self, path=""):
        self.path = path

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Live(f"{self.path}.{name}" if self.path else name)

    def span(self, fmt=None, args=()):
        if fmt in LIVE_FIXED:  # fixed2 → fixed(2): the browser's formats take the digits as an argument
            fmt, args = "fixed", (LIVE_FIXED[fmt],)
        attrs = Markup(' data-format="{}" data-args="{}"').format(fmt, json.dumps(list(args))) if fmt else ""
        return Markup('<span data-run="{}"{}></span>').format(self.path, attrs)

    def __html__(self):
        return self.span()


LIVE_FIXED = {"fixed2": 2, "fixed3": 3, "fixed4": 4}


class Pick(Extension):
    """A sentence whose wording depends on the data, every wording written in the page:

        [% pick naive.level %][% case tiny %]几乎什么都留不下[% case far %]留下的太少[% endpick %]

    The decision (a name of the context, or a name's attribute) holds one of the keys, or True or False (the keys yes
    and no); the words after its `case` are rendered; a case may be empty. A decision registered in
    generator/pages/decisions.py names every key it can take, and tests/pages/test_picks.py wants a case written for
    each. A key with no case stops the build, naming the decision, its line and the cases the page has. A pick that ends
    a line closes with `[% endpick +%]`, which keeps the line's end (every block tag drops the newline right after it).
    `env.forced_picks` ({(line, decision): key}) renders another case than the data's: the tests render every
    alternative that way; `env.picks_parsed` lists (line, decision, keys) of every pick compiled, nested ones too;
    `env.picks_taken` (line, decision, key) every case a render wrote, in order."""
    tags = {"pick"}

    def __init__(self, environment):
        super().__init__(environment)
        environment.extend(forced_picks={}, picks_parsed=[], picks_taken=[])

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        first = parser.stream.expect("name")
        name, expr = first.value, nodes.Name(first.value, "load", lineno=lineno)
        while parser.stream.skip_if("dot"):
            attr = parser.stream.expect("name").value
            name, expr = f"{name}.{attr}", nodes.Getattr(expr, attr, "load", lineno=lineno)
        parser.stream.expect("block_end")
        before = parser.subparse(("name:case", "name:endpick"))
        if any(not (isinstance(n, nodes.Output) and all(isinstance(c, nodes.TemplateData) and not c.data.strip()
                                                           for c in n.nodes)) for n in before):
            parser.fail(f"pick {name}: only [% case KEY %] branches may follow [% pick {name} %]", lineno)
        cases = []
        while parser.stream.current.test("name:case"):
            next(parser.stream)
            key = parser.stream.expect("name").value
            if key in (k for k, _ in cases):
                parser.fail(f"pick {name}: the case {key} is written twice", lineno)
            cases.append((key, parser.parse_statements(("name:case", "name:endpick"))))
        if not cases:
            parser.fail(f"pick {name}: write each wording after [% case KEY %]", lineno)
        parser.stream.expect("name:endpick")
        keys = [k for k, _ in cases]
        self.environment.picks_parsed.append((lineno, name, keys))
        live = []  # a decision the browser takes: every case written, each marked, for the widget to keep one
        for key, body in cases:
            live.append(nodes.Output([nodes.TemplateData(
                f'<span data-pick="{name.split(".", 1)[-1]}" data-case="{key}">')]))
            live.extend(body)
            live.append(nodes.Output([nodes.TemplateData("</span>")]))
        chosen = self.call_method("_decide", [nodes.Const(lineno), nodes.Const(name), expr, nodes.Const(keys)],
                                  lineno=lineno)
        top = node = nodes.If(nodes.Compare(chosen, [nodes.Operand("eq", nodes.Const(keys[0]))]), cases[0][1], [],
                              [], lineno=lineno)
        node.elif_ = [nodes.If(nodes.Compare(chosen, [nodes.Operand("eq", nodes.Const(k))]), body, [], [],
                               lineno=lineno) for k, body in cases[1:]]
        return nodes.If(self.call_method("_live", [expr]), live, [], [top], lineno=lineno)

    @staticmethod
    def _live(value):
        return isinstance(value, Live)

    def _decide(self, lineno, name, value, keys):
        value = self.environment.forced_picks.get((lineno, name), value)
        if isinstance(value, jinja2.Undefined):
            value._fail_with_undefined_error()
        if isinstance(value, bool):  # a yes-or-no decision: [% case yes %] … [% case no %]
            value = "yes" if value else "no"
        if value not in keys:
            raise ValueError(f"the decision {name} (line {lineno}) is {value!r}, and the page writes a wording for "
                             f"{', '.join(keys)} only: add [% case {value} %] with its words")
        self.environment.picks_taken.append((lineno, name, value))
        return value


# A speed figure in one blank, marked with its kind (formats.speed): [[ acc_s.best_speedup | formula ]] for the lesson's
# formula with c = the parameter ratio (| formula("") with c as the reader sets it, | formula("…") another source),
# | formula_measured and | wall for the build machine's timings (measured.json), | reported for a paper's (a figure
# named in lesson_values.REPORTED: [[ leviathan_small | reported ]]).
class FigureTag(Extension):
    """A drawn figure and its caption, the caption written as prose:

        [% figure svg_speedup() %]加速随 k 变化……[% endfigure %]
        [% figure stacked_main %]前缀……[% endfigure %]

    The expression is one of figure_table.py's figures, called (`python -m generator context` lists them), or a blank
    that names one (blanks.py); a figure declared with a frame class gets it. A figure stands on a line of its own:
    the end tag drops the newline after it, as every block tag does, and the frame puts it back."""
    tags = {"figure"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        expr = parser.parse_expression()
        called = expr.node.name if isinstance(expr, nodes.Call) and isinstance(expr.node, nodes.Name) else None
        cls = next((f.frame for f in FIGURES if f.accessor == called), "")
        body = parser.parse_statements(("name:endfigure",), drop_needle=True)
        return nodes.CallBlock(self.call_method("_frame", [expr, nodes.Const(cls)]), [], [], body).set_lineno(lineno)

    @staticmethod
    def _frame(svg, cls, caller):
        return frame(svg, caller(), cls) + Markup("\n")


def formula(value, where=C_PARAMS):
    """Our formula's speedup, two decimals, marked "formula" with where its c comes from ('' for none)."""
    return speed(times(value), "formula", where or None)


def formula_n(value):
    """Our formula's speedup with c = the parameter ratio and one k's measured N."""
    return formula(value, C_PARAMS_N)


@jinja2.pass_context
def formula_measured(ctx, value):
    """The formula with the build machine's measured c and v(k), marked with where they were measured."""
    return speed(times(value), "formula-measured", ctx["measured"]["where"]["measured"])


@jinja2.pass_context
def wall(ctx, value):
    """A wall-clock speedup the build machine measured, marked with its machine, engine and date."""
    return speed(times(value), "wall-clock", ctx["measured"]["where"]["wall_clock"])


@jinja2.pass_context
def reported(ctx, fig):
    """A paper's own speed figure, named in lesson_values.REPORTED (its speedup, or its range low–high), marked with
    the paper's work."""
    if not isinstance(fig, dict) or "paper" not in fig:
        raise ValueError(f"reported: {fig!r} is not a paper's figure named in lesson_values.REPORTED")
    return reported_speed(fig, ctx["paper"](fig["paper"])["work"])


SPEEDS = {"formula": formula, "formula_n": formula_n, "formula_measured": formula_measured, "wall": wall, "reported": reported}


def make_env():
    env = jinja2.Environment(
        extensions=[Pick, FigureTag],
        variable_start_string="[[", variable_end_string="]]",
        block_start_string="[%", block_end_string="%]",
        comment_start_string="[#", comment_end_string="#]",
        undefined=jinja2.StrictUndefined, autoescape=True,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    ours = dict(FORMATS, **SPEEDS, or_dash=optional, plain=plain, prompt=prompt,
                indent4=lambda s: Markup("\n".join(("    " + ln) if ln else ln for ln in str(s).splitlines())))
    env.filters.update({name: named_undefined(f, name) for name, f in ours.items()})  # Jinja's own (default, …) as they are
    return env


def named_undefined(f, name):
    """The filter f, failing as StrictUndefined does when given a name the context lacks: "'x' is undefined", not
    the filter's own complaint about the value it got; given a live blank (Live), the span the browser fills."""
    @functools.wraps(f)
    def checked(value, *args, **kwargs):
        if isinstance(value, jinja2.Undefined):
            value._fail_with_undefined_error()
        if isinstance(value, Live):
            return value.span(name, args)
        return f(value, *args, **kwargs)
    return f if hasattr(f, "jinja_pass_arg") else checked  # one that takes the context first is left as it is


# Chinese characters and full-width punctuation: a line break between two of them is no space (join_wrapped)
CJK = "[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef\u2014\u2026\u201c\u201d]"
CJK_STOP = "[。，；：！？）」]"


def join_wrapped(markdown):
    """The rendered page with the lines of Chinese the source wraps joined back: a line break between two Chinese
    characters (or full-width punctuation) inside a paragraph reads as no space in Chinese, while Markdown would
    keep it and a browser show a space; so does a break after full-width punctuation before a Latin word. So an
    author may write one sentence a line. A blank line still ends the
    paragraph; a line that starts with anything but a Chinese character or **bold Chinese (a list, a table, a tag,
    a blank) is never joined."""
    markdown = re.sub(rf"(?<={CJK})\n[ \t]*(?={CJK}|\*\*{CJK})", "", markdown)
    # after full-width punctuation no space either, before a Latin word, a number or code (E6 …, `make …`)
    return re.sub(rf"(?<={CJK_STOP})\n[ \t]*(?=[A-Za-z`]|\d(?!\d*\.\s))", "", markdown)  # not a numbered list


def render_page(env, ctx, source, name):
    try:
        return join_wrapped(env.from_string(source).render(ctx))
    except jinja2.TemplateSyntaxError as e:
        raise PluginError(f"{name}: line {e.lineno}: template syntax error: {e.message}") from None
    except Exception as e:  # StrictUndefined, a filter's ValueError, a KeyError from a helper: all fatal
        line = None
        for frame in traceback.extract_tb(e.__traceback__):
            if frame.filename == "<template>":
                line = frame.lineno
        where = f"line {line}" if line else "rendering"
        raise PluginError(f"{name}: {where}: {type(e).__name__}: {e} (data: {data_path()})") from None
