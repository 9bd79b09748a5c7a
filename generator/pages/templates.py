"""The Jinja environment of the page templates: [[ ]] / [% %] delimiters, strict, autoescaped, fatal errors."""
import re
import traceback

import jinja2
from markupsafe import Markup
from mkdocs.exceptions import PluginError

from .formats import FORMATS
from .data_file import data_path



def optional(value, fmt, *args):
    """A figure that may be absent (None in the data, e.g. no model card): '—' instead of a number."""
    return "—" if value is None else FORMATS[fmt](value, *args)


def plain(value):
    """A recipe or corpus value as written: dicts as 'key value' pairs, numbers without added digits."""
    if isinstance(value, dict):
        return "，".join(f"{k} {plain(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "、".join(plain(v) for v in value)
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def section_of(text):
    """The section mark a citation gives ('§5.4.2'), so the page never types a source's locator itself."""
    m = re.search(r"§\s*[\d.]*\d", str(text))
    if not m:
        raise ValueError(f"no § section in {text!r}")
    return m.group(0)


def make_env():
    env = jinja2.Environment(
        variable_start_string="[[", variable_end_string="]]",
        block_start_string="[%", block_end_string="%]",
        comment_start_string="[#", comment_end_string="#]",
        undefined=jinja2.StrictUndefined, autoescape=True,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters.update(FORMATS)
    env.filters["or_dash"] = optional
    env.filters["plain"] = plain
    env.filters["indent4"] = lambda s: Markup("\n".join(("    " + ln) if ln else ln for ln in str(s).splitlines()))
    return env


def render_page(env, ctx, source, name):
    try:
        return env.from_string(source).render(ctx)
    except jinja2.TemplateSyntaxError as e:
        raise PluginError(f"{name}: line {e.lineno}: template syntax error: {e.message}") from None
    except Exception as e:  # StrictUndefined, a filter's ValueError, a KeyError from a helper: all fatal
        line = None
        for frame in traceback.extract_tb(e.__traceback__):
            if frame.filename == "<template>":
                line = frame.lineno
        where = f"line {line}" if line else "rendering"
        raise PluginError(f"{name}: {where}: {type(e).__name__}: {e} (data: {data_path()})") from None
