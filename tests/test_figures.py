"""The figure modules (widgets/figures/*.mjs) as the build runs them: generator/pages/figures.py sends requests to
generator/pages/render_figures.mjs in one Node process. Labels come from the corpus and are always escaped; the
same request gives the same bytes; a bad request stops the build with the figure named."""
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from generator.data.precompute import stacked_columns
from generator.pages import figures

ROOT = Path(__file__).resolve().parent.parent
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
    assert first.startswith('<svg class="c13-svg" id="s"') and tensor.startswith('<svg class="c13-svg" id="t"')
    assert first == again
    # the shown columns are the largest max(p, q) first (ties by id), then the folded rest
    assert first.index('data-token="0"') < first.index('data-token="3"') < first.index('data-token="rest"')
    assert 'data-token="1"' not in first


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


def test_the_speedup_plot_marks_each_drafts_best_k():
    accounting = {d: {"best_k": best, "rows": [
        {"k": k, "speedup": 1 + 0.1 * k * (1 if k <= best else -1), "measured_speedup": 1.0} for k in range(1, 5)]}
        for d, best in (("small", 3), ("large", 2))}
    (plot,) = figures.render([figures.request("speedup", accounting=accounting, drafts=["small", "large"],
                                              names={"small": "S", "large": "L"}, id="e5-plot")])
    assert "最佳 k=3" in plot and "最佳 k=2" in plot and plot.count("<polyline") == 2


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
