"""Each build-time figure declared once (generator/pages/figure_table.py) and a context that lists itself
(`python -m generator context`, generator/pages/context_info.py):

- every declaration's renderer is registered by a module of widgets/figures/ (index.mjs gathers them, a name
  registered twice stops it), every figure the page calls is declared and every declared one is called;
- a figure is drawn once per key of `each`, not at all when `when` fails, and a key it was not drawn for is refused;
- the listing names every key of the context with where it comes from, each helper, filter and figure with its
  line of documentation; the command prints the four groups and its --json parses."""
import json
import re
import shutil
import subprocess
import sys

import pytest

from generator.pages import context_info, figure_table
from tests.conftest import ROOT

DOCS = (ROOT / "docs" / "index.md", ROOT / "docs" / "lab.md")  # the lesson and its measurement lab


def registered_renderers():
    exe = shutil.which("node") or pytest.fail("node is needed (install Node 20)")
    script = 'import("./widgets/figures/index.mjs").then((m) => console.log(JSON.stringify(Object.keys(m.FIGURES))))'
    run = subprocess.run([exe, "--input-type=module", "-e", script], capture_output=True, text=True, cwd=ROOT,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    return set(json.loads(run.stdout))


def test_every_declared_figure_has_a_registered_renderer_and_is_called_by_the_page():
    renderers = registered_renderers()
    declared = {f.accessor: f for f in figure_table.FIGURES}
    assert len(declared) == len(figure_table.FIGURES)
    assert {f.renderer for f in figure_table.FIGURES} <= renderers
    from generator.pages.blanks import BLANKS
    page = "\n".join(p.read_text(encoding="utf-8") for p in DOCS) + "\n".join(  # directly or by a blank
        expr for expr, _ in BLANKS.values())
    called = set(re.findall(r"\b((?:svg|html)_[a-z_]+)\s*\(", page))
    assert called == set(declared), (called ^ set(declared))
    for f in figure_table.FIGURES:
        assert f.doc and f.doc[0] != " ", f.accessor


def test_a_figure_module_registers_its_own_renderers_and_a_name_twice_is_refused(tmp_path):
    for module in (ROOT / "widgets" / "figures").glob("*.mjs"):
        source = module.read_text(encoding="utf-8")
        if module.name in ("index.mjs", "formats.mjs", "svg.mjs"):
            continue
        table = re.search(r"export const FIGURES = \{([^}]*)\}", source)
        assert table, f"{module.name} registers no figure"
        for name, fn in re.findall(r"(\w+): (\w+)", table.group(1)):
            assert re.search(rf"export (?:function|const) {fn}\b", source), (module.name, fn)
        assert f'"./{module.name}"' in (ROOT / "widgets" / "figures" / "index.mjs").read_text(), module.name
    # index.mjs refuses a name registered twice: a copy where a second module registers `stacked` again
    copy = tmp_path / "figures"
    shutil.copytree(ROOT / "widgets" / "figures", copy)
    tv = copy / "tv_curve.mjs"
    tv.write_text(tv.read_text().replace("export const FIGURES = { ", "export const FIGURES = { stacked: tvCurve, "))
    shutil.copy(ROOT / "widgets" / "c13-util.js", tmp_path / "c13-util.js")
    run = subprocess.run([shutil.which("node"), "--input-type=module", "-e",
                          f'import("{(copy / "index.mjs").as_uri()}").catch((e) => {{ console.error(e.message); '
                          "process.exit(3); })"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 3 and "figure stacked is registered twice" in run.stderr, run.stderr


def test_figures_are_drawn_per_key_only_when_wanted_and_a_missing_key_is_refused(monkeypatch):
    drawn = []

    def fake_render(requests):
        drawn.extend(requests)
        return [f"<svg>{r['figure']} {json.dumps(r['args'], sort_keys=True)}</svg>" for r in requests]

    monkeypatch.setattr(figure_table.figures, "render", fake_render)
    table = [figure_table.Figure("svg_one", "r1", "one", lambda ctx: {"a": 1}),
             figure_table.Figure("svg_each", "r2", "each", lambda ctx, x, y: {"x": x, "y": y},
                                 each=lambda ctx: [(1, 2), (3, 4)]),
             figure_table.Figure("svg_never", "r3", "never", lambda ctx: {}, when=lambda ctx: False)]
    monkeypatch.setattr(figure_table, "FIGURES", table)
    out = figure_table.draw_all({})
    assert [r["figure"] for r in drawn] == ["r1", "r2", "r2"]
    assert out["svg_each"](3, 4) == '<svg>r2 {"x": 3, "y": 4}</svg>' and "r1" in out["svg_one"]()
    with pytest.raises(KeyError, match=r"svg_each\(5, 6\) was not drawn"):
        out["svg_each"](5, 6)
    with pytest.raises(KeyError, match="svg_never"):
        out["svg_never"]()
    with pytest.raises(ValueError, match="declared twice"):
        figure_table.figure("svg_one", "r1", "again")(lambda ctx: {})


def test_the_listing_names_every_key_of_the_context_and_where_it_comes_from(data):
    listing = context_info.describe(data)
    names = {e["name"] for group in ("variables", "helpers", "figures") for e in listing[group]}
    origins = {}
    from generator.pages.context import build_context
    ctx = build_context(data, origins)
    assert set(ctx) <= names and set(ctx) <= set(origins)
    for e in listing["variables"]:
        assert e["where"] and e["where"] != "?", e
    for e in listing["helpers"] + listing["figures"]:
        assert e["doc"], e["name"]
    # a variable taken whole from c13.json is named by its path
    where = {e["name"]: e["where"] for e in listing["variables"]}
    assert where["anchor"] == "c13.json → anchor" and where["labels"] == "c13.json → tokenizer → labels"
    figures = {e["name"]: e for e in listing["figures"]}
    assert figures["svg_stacked"]["call"] == "svg_stacked(prefix, draft)"
    assert figures["svg_stacked"]["drawn"] == len(ctx["prefixes"]) * len(ctx["drafts"])
    filters = {e["name"]: e for e in listing["filters"]}
    assert filters["pct"]["where"] == "generator.pages.formats.pct" and filters["pct"]["doc"]


@pytest.mark.slow("the figure command started as a process")
def test_the_command_prints_the_five_groups_and_json():
    run = subprocess.run([sys.executable, "-m", "generator", "context"], capture_output=True, text=True, cwd=ROOT,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    for heading in ("变量", "函数", "过滤器", "图", "措辞的决定"):
        assert re.search(rf"^{heading}（.*：\d+ 个$", run.stdout, re.M), heading
    assert "svg_tv_curve()" in run.stdout and "c13.json → anchor" in run.stdout
    run = subprocess.run([sys.executable, "-m", "generator", "context", "--json"], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert run.returncode == 0 and set(json.loads(run.stdout)) == {"variables", "helpers", "filters", "figures",
                                                                 "decisions"}
