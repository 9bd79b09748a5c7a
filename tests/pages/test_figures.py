"""The figure modules (widgets/figures/*.mjs) as the build runs them: generator/pages/figures.py sends requests to
generator/pages/render_figures.mjs in one Node process. Labels come from the corpus and are always escaped; the
same request gives the same bytes; a bad request stops the build with the figure named."""
import html
import json
import re
import shutil
import subprocess

import pytest
from mkdocs.exceptions import PluginError

from generator.data.precompute import stacked_columns
from generator.pages import figures
from tests.conftest import ROOT

REPLAY_MODULE = ROOT / "widgets" / "figures" / "replay.mjs"
HOSTILE = '<script>alert(1)</script>*_[x](y)$&"'


def tiny_replay(labels):
    return {"k": 2, "prompt_tokens": [0], "rounds": [
        {"draft": [1, 2], "accepted": 1, "kind": "resampled", "token": 3, "yield": 2, "u": [0.1, 0.9],
         "p": [0.5, 0.1], "q": [0.4, 0.3], "accept_prob": [1.0, 0.3333]},
        {"draft": [1, 1], "accepted": 2, "kind": "bonus", "token": 2, "yield": 3, "u": [0.2, 0.4],
         "p": [0.5, 0.5], "q": [0.2, 0.3], "accept_prob": [1.0, 1.0]}]}


def small_pair():
    p = [0.4, 0.3, 0.2, 0.1]
    q = [0.1, 0.2, 0.3, 0.4]
    return p, q


def split(p, q, top_n=3):
    """The stacked picture's columns as the generator writes them."""
    return stacked_columns(p, q, top_n)


def test_the_generator_splits_p_and_q_through_the_sampler_into_columns_that_add_up():
    p, q = [0.4, 0.3, 0.2, 0.1, 0.0], [0.1, 0.2, 0.3, 0.0, 0.4]
    columns = split(p, q, top_n=3)
    assert columns["tokens"] == [0, 4, 1]  # largest max(p, q) first, ties by id
    assert columns["overlap"] == [0.1, 0.0, 0.2] and columns["residual"] == pytest.approx([0.3, 0.0, 0.1])
    assert columns["excess"] == [0.0, 0.4, 0.0] and columns["rest"]["count"] == 2
    for part, whole in (("residual", "p"), ("excess", "q")):
        for j in range(3):
            assert columns["overlap"][j] + columns[part][j] == pytest.approx(columns[whole][j])
        assert columns["rest"]["overlap"] + columns["rest"][part] == pytest.approx(columns["rest"][whole])
    assert columns["rest"]["p"] == pytest.approx(0.3) and columns["rest"]["q"] == pytest.approx(0.3)


def test_a_batch_comes_back_in_order_and_the_same_request_gives_the_same_bytes():
    p, q = small_pair()
    labels = ["甲", "乙", "丙", "丁"]
    batch = [figures.request("stacked", columns=split(p, q), labels=labels, n=2, id="s", prefix="前", draft="d"),
             figures.request("tensor", V=8, k=3, mask=[True, False, None], id="t", scale="small"),
             figures.request("stacked", columns=split(p, q), labels=labels, n=2, id="s", prefix="前", draft="d")]
    first, tensor, again = figures.render(batch)
    assert first.startswith('<div class="c13-duo c13-stack" id="s"') and 'id="s-wide"' in first \
        and 'id="s-narrow"' in first
    assert re.match(r'<div class="c13-duo (c13-duo-\d+ )?c13-tensor"', tensor) and 'id="t-wide"' in tensor and 'id="t-narrow"' in tensor
    assert first == again
    # the shown columns are the largest max(p, q) first (ties by id), then the folded rest
    assert first.index('data-token="0"') < first.index('data-token="3"') < first.index('data-token="rest"')
    assert 'data-token="1"' not in first


def test_the_stacked_picture_and_the_histogram_come_in_a_wide_and_a_narrow_layout():
    """The narrow layout (a phone's column) draws the same columns as rows, with the same classes, the marked x and
    the clipped rest, and no text under 12 px (the wide one keeps its columns)."""
    p, q = [0.1, 0.08, 0.2, 0.2, 0.2, 0.22], [0.08, 0.1, 0.2, 0.2, 0.22, 0.2]
    labels = ["甲", "乙", "丙", "丁", "戊", "己"]
    columns = split(p, q, top_n=2)  # the two largest shown, the rest (over half) folded: longer than the frame
    assert columns["tokens"] == [4, 5]
    stacked, histogram = figures.render([
        figures.request("stacked", columns=columns, labels=labels, n=2, id="s", prefix="前", draft="d", marked=5),
        figures.request("histogram", columns=columns, labels=labels, n=2, counts=[10, 8, 20, 20, 20, 22], total=100,
                        id="h", title="t")])
    for markup, parts in ((stacked, ("c13-shared", "c13-resid-bar", "c13-excess-bar", "c13-p-outline")),
                          (histogram, ("c13-emp", "c13-p-outline"))):
        wide, narrow = markup.split('<div class="c13-duo-narrow">')
        assert narrow.count("<svg") == 1 and 'viewBox="0 0 264 ' in narrow
        for layout in (wide, narrow):
            tokens = re.findall(r'<g class="c13-col[^"]*" data-token="([^"]+)"', layout)
            assert tokens == [str(t) for t in columns["tokens"]] + ["rest"], tokens
            assert all(f'class="{part}"' in layout for part in parts)
            assert "截断" in layout
        assert not set(re.findall(r"c13-fs(\d+)", narrow)) - {"12", "13"}
    wide, narrow = stacked.split('<div class="c13-duo-narrow">')
    for layout in (wide, narrow):  # the marked x in both layouts
        assert re.findall(r'class="c13-col c13-col-x" data-token="(\d+)"', layout) == ["5"]
        assert "c13-x-mark" in layout


def test_token_labels_are_escaped_in_every_figure_that_shows_them():
    p, q = small_pair()
    labels = [HOSTILE] * 4
    drawn = figures.render([
        figures.request("stacked", columns=split(p, q), labels=labels, n=3, id="s", prefix=HOSTILE, draft="d"),
        figures.request("histogram", columns=split(p, q), labels=labels, n=3, counts=[5, 3, 1, 1], total=10, id="h", title=HOSTILE),
        figures.request("replay_table", replay=tiny_replay(labels), labels=labels),
        figures.request("replay_text", replay=tiny_replay(labels), labels=labels)])
    for markup in drawn:
        assert "<script" not in markup and 'alert(1)</' not in markup
    # in the HTML figures the label cannot be read as Markdown either: no raw *, _, [ or $ from a label
    for markup in drawn[2:]:
        assert "[x](y)" not in markup and "$&" not in markup


def test_the_speedup_plot_marks_each_drafts_best_k_in_both_layouts():
    accounting = {d: {"alpha": alpha, "c": c, "best_k": best, "best_speedup": 1.2, "rows": [
        {"k": k, "measured_speedup": 1.0, "acceptance_rate": alpha, "alpha_low": alpha - 0.03,
         "alpha_high": alpha + 0.03} for k in range(1, 5)]}
        for d, alpha, c, best in (("small", 0.55, 0.09, 3), ("large", 0.64, 0.29, 2))}
    (plot,) = figures.render([figures.request("speedup", accounting=accounting, drafts=["small", "large"],
                                              names={"small": "S", "large": "L"}, id="e5-plot")])
    wide, narrow = plot.split('<div class="c13-duo-narrow">')
    for layout in (wide, narrow):
        assert "最佳 k=3" in layout and "最佳 k=2" in layout and layout.count("<polyline") == 2
        assert layout.count('class="c13-measured"') == 8
    # no text is drawn under 11 px in the wide layout, nor under 12 px in the narrow one (a phone's column)
    assert not set(re.findall(r"c13-fs(\d+)", wide)) - {"11", "12"}
    assert not set(re.findall(r"c13-fs(\d+)", narrow)) - {"12", "13"}


def test_alpha_by_position_draws_every_position_with_its_token_escaped():
    positions = {"prompts": ["甲", HOSTILE], "positions_per_prompt": 3, "tokens": [0, 1, 2, 3, 0, 1],
                 "drafts": {"s": {"values": [0.1, 0.5, 0.9, 0.2, 0.3, 0.4], "min": 0.1, "max": 0.9, "mean": 0.4},
                            "l": {"values": [0.2, 0.6, 0.8, 0.3, 0.4, 0.5], "min": 0.2, "max": 0.8, "mean": 0.47}}}
    labels = ["子", HOSTILE, "丑", "寅"]
    args = dict(alpha_positions=positions, drafts=["s", "l"], names={"s": "S", "l": "L"},
                short={"s": "小", "l": "大"}, labels=labels, id="ap")
    plot, table = figures.render([figures.request("alpha_positions", **args),
                                  figures.request("alpha_positions_table", **args)])
    wide, narrow = plot.split('<div class="c13-duo-narrow">')
    for layout in (wide, narrow):  # each draft's dots: one path per panel, one point per position
        paths = re.findall(r'<path d="([^"]*)" class="c13-dots c13-dots-0', layout)
        assert len(paths) == 1 + 2 and sum(d.count("h0") for d in paths) == 1 + 6  # with the legend's dot
    assert "<script" not in plot + table and "alert(1)</" not in plot + table
    titles = re.findall(r"<title>(.*?)</title>", wide)
    assert len(titles) == 6 and not re.findall(r"<title>", narrow)  # hover in the wide layout (ids aside)
    assert html.unescape(titles[1]) == f"第 2 个 token：{HOSTILE}（小 50.0%，大 60.0%）"
    assert table.count("<tr><td>") == 6 and table.count('class="c13-group"') == 2


def test_an_unknown_figure_or_bad_arguments_stop_the_build_with_the_figure_named():
    with pytest.raises(PluginError, match="unknown figure \"nope\""):
        figures.render([figures.request("nope")])
    with pytest.raises(PluginError, match="figure tensor"):
        figures.render([figures.request("tensor", V=8)])


def test_label_bytes_and_readable_text_never_show_a_replacement_character():
    """Labels back to bytes (‹hex› pieces, ‹U+…› control characters, ⏎) and bytes back to readable text."""
    ming = "明".encode()
    labels = ["孔", "‹" + " ".join(f"{b:02X}" for b in ming[:2]) + "›", "‹" + f"{ming[2]:02X}" + "›", "⏎",
              "‹U+0008›", "‹E6›"]
    script = ("import { labelBytes, readable } from %s;"
              "const labels = JSON.parse(process.argv[1]);"
              "const bytes = labels.flatMap((l) => labelBytes(l));"
              "console.log(JSON.stringify({ bytes, text: readable(bytes) }));") % json.dumps(REPLAY_MODULE.as_uri())
    node = shutil.which("node") or pytest.fail("node is needed (install Node 20)")
    run = subprocess.run([node, "--input-type=module", "-e", script, json.dumps(labels)], capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert bytes(out["bytes"]) == "孔明\n\b".encode() + b"\xe6"
    assert out["text"] == "孔明⏎‹U+0008›‹E6›"
    assert "\ufffd" not in out["text"]


SVG_MODULE = ROOT / "widgets" / "figures" / "svg.mjs"


def test_a_wide_layout_shows_only_in_a_column_that_keeps_its_smallest_text_at_11_px():
    """twoLayouts names the column width its wide drawing needs (viewBox width × 11 ÷ the smallest font size,
    rounded up to a step c13.css has a container query for), and refuses a wide drawing with text under 11 px."""
    script = ("import { DUO_STEPS, twoLayouts } from %s;"
              "const draw = (width, size) => (layout) => layout === 'wide' ?"
              "  `<svg viewBox=\"0 0 ${width} 100\"><text class=\"c13-fs${size} c13-fs14\">a</text></svg>` : '<svg/>';"
              "const wrapper = (html) => /class=\"([^\"]*)\"/.exec(html)[1];"
              "let refused = null;"
              "try { twoLayouts('c', draw(400, 10)); } catch (err) { refused = err.message; }"
              "console.log(JSON.stringify({ steps: DUO_STEPS, refused,"
              "  small: wrapper(twoLayouts('a', draw(404, 11))), mid: wrapper(twoLayouts('b', draw(700, 12))),"
              "  wide: wrapper(twoLayouts('d', draw(860, 11))) }));") % json.dumps(SVG_MODULE.as_uri())
    node = shutil.which("node") or pytest.fail("node is needed (install Node 20)")
    run = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["small"] == "c13-duo"                 # 404 × 11 ÷ 11 fits the narrowest step, 560
    assert out["mid"] == "c13-duo c13-duo-680"       # 700 × 11 ÷ 12 = 642 → 680
    assert out["wide"] == "c13-duo c13-duo-860"
    assert out["refused"] and "figure c" in out["refused"] and "11 px" in out["refused"]
    css = (ROOT / "widgets" / "c13.css").read_text(encoding="utf-8")
    for step in out["steps"][1:]:
        assert re.search(r"@container \(max-width: %s\.98px\) \{\s*\.c13-duo-%d > \.c13-duo-wide \{ display: none; \}"
                         % (step - 1, step), css), f"c13.css has no container query for .c13-duo-{step}"
