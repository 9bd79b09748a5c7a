"""What the page templates can use, listed with where each comes from (`python -m generator context`).

Five kinds, as docs/index.md uses them: variables ([[ name ]]), helpers (functions called as [[ name(…) ]]), filters
([[ value | name ]]), figures (the helpers that return a drawn figure, declared in figure_table.py) and decisions
([% pick name %], decisions.py: the keys each can take, the one this data takes, and what decides it). A variable
taken whole from c13.json is named by its path in the file; the rest by the step of build_context that made it.
"""
import inspect

import jinja2

from . import figure_table
from .decisions import DECISIONS
from .context import build_context
from .templates import make_env

# keys the build adds after the context is made (generator/pages/hooks.py on_config)
LATER = {"qa_contact": "mkdocs.yml → extra.c13.qa_contact (generator/pages/hooks.py)"}
MAX_DEPTH = 3


def data_path_of(value, data, depth=MAX_DEPTH):
    """The path in c13.json of a value that is a part of it (the same object), or None."""
    if value is data:
        return "c13.json"
    stack = [((key,), child) for key, child in data.items()]
    while stack:
        path, node = stack.pop()
        if node is value and isinstance(value, (dict, list)):
            return "c13.json → " + " → ".join(map(str, path))
        if isinstance(node, dict) and len(path) < depth:
            stack.extend((path + (key,), child) for key, child in node.items())
    return None


def first_line(obj):
    doc = inspect.getdoc(obj) or ""
    return doc.split("\n\n")[0].replace("\n", " ")


def signature(obj):
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(…)"


def where_defined(obj):
    fn = inspect.unwrap(obj)
    module = getattr(fn, "__module__", None) or "?"
    return f"{module}.{getattr(fn, '__qualname__', type(fn).__name__)}"


def describe(data):
    """The listing as {"variables": [...], "helpers": [...], "filters": [...], "figures": [...], "decisions": [...]},
    each entry a dict."""
    origins = {}
    ctx = build_context(data, origins)
    figures = {f.accessor: f for f in figure_table.FIGURES}
    out = {"variables": [], "helpers": [], "filters": [], "figures": [], "decisions": []}
    for name in sorted(ctx):
        value = ctx[name]
        if name in figures:
            f = figures[name]
            drawn = len(figure_table.keys(f, ctx))
            out["figures"].append({"name": name, "renderer": f.renderer, "doc": f.doc,
                                   "call": name + ("(" + ", ".join(inspect.signature(f.data).parameters)
                                                   .replace("ctx, ", "").replace("ctx", "") + ")"),
                                   "drawn": drawn, "where": "generator/pages/figure_table.py"})
        elif isinstance(value, jinja2.Undefined):  # a blank this data has no value for (a timing, with none)
            out["variables"].append({"name": name, "type": "—", "where": origins.get(name, "?")})
        elif callable(value) and not isinstance(value, str):
            out["helpers"].append({"name": name, "call": name + signature(value), "doc": first_line(value),
                                   "where": where_defined(value) if "<lambda>" not in where_defined(value)
                                   else origins.get(name, "?")})
        else:
            out["variables"].append({"name": name, "type": type(value).__name__,
                                     "where": data_path_of(value, data) or origins.get(name, "?")})
    for name, where in LATER.items():
        out["variables"].append({"name": name, "type": "str", "where": where})
    env = make_env()
    for name in sorted(env.filters):
        f = env.filters[name]
        if where_defined(f).startswith("generator."):
            out["filters"].append({"name": name, "call": f"value | {name}", "doc": first_line(f),
                                   "where": where_defined(f)})
    jinja = sorted(name for name, f in env.filters.items() if not where_defined(f).startswith("generator."))
    out["filters"].append({"name": "…", "call": "Jinja 自带的", "doc": ", ".join(jinja), "where": "jinja2"})
    for name, (keys, about) in DECISIONS.items():
        out["decisions"].append({"name": name, "keys": list(keys), "value": decided(ctx, name), "doc": about,
                                 "where": "generator/pages/decisions.py"})
    return out


def decided(ctx, name):
    """The key a decision takes for this data (yes or no for True or False, as the page's picks read them; '—' for
    one inside a loop of the page, such as note.why.case, or one without its data, such as the timings')."""
    head, *rest = name.split(".")
    value = ctx.get(head)
    for part in rest:
        value = value.get(part) if isinstance(value, dict) else None
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value if isinstance(value, str) else "—"


def text(listing):
    """The listing as text for a terminal: a heading and one line per entry, in four groups."""
    titles = {"variables": "变量（[[ name ]]）", "helpers": "函数（[[ name(…) ]]）", "filters": "过滤器（[[ value | name ]]）",
              "figures": "图（[[ name(…) ]]，generator/pages/figure_table.py 声明）",
              "decisions": "措辞的决定（[% pick name %][% case key %]…[% endpick %]，generator/pages/decisions.py 声明）"}
    lines = []
    for group, title in titles.items():
        entries = listing[group]
        lines.append(f"{title}：{len(entries)} 个")
        for e in entries:
            if group == "variables":
                lines.append(f"  {e['name']:<22} {e['type']:<9} {e['where']}")
            elif group == "decisions":
                lines.append(f"  {e['name']:<30} {' | '.join(e['keys']):<28} this data: {e['value']:<6} {e['doc']}")
            elif group == "figures":
                lines.append(f"  {e['call']:<34} renderer {e['renderer']:<22} drawn {e['drawn']}  {e['doc']}")
            else:
                lines.append(f"  {e['call']:<34} {e['where']}" + (f"  — {e['doc']}" if e["doc"] else ""))
        lines.append("")
    return "\n".join(lines)
