"""E6's roofline: the reader's machine measured in the worker (widgets/e6/roof.mjs with the probes of
widgets/e6/roof.wat) and the one renderer of the picture and its cost model (widgets/figures/roofline.mjs), driven
by tests/widgets/node/e6_roof.mjs:

- roof.wat assembles to the same bytes every time, validates, and the page build assembles the same into the site;
- under a fake clock of 0.1 ms steps every block lasts at least 5 ms, the medians are the fake machine's figures,
  the whole stays under its budget; a cancelled measurement stops before another block; the real probes give
  positive finite figures (their values are not checked: no test reads a real timing);
- the picture is log–log: a forward at intensity I sits on its roof min(P, B·I), at the place the decades give;
  both layouts keep their text at 11 px or more, labels are escaped, a call without a roof is refused;
- the roofline's time and v(k) on known numbers; the parameter counts from the configs are c13.json's.
"""
import hashlib
import json
import math
import re
import shutil
import subprocess

import pytest
from mkdocs.exceptions import PluginError

from generator.models.family import DRAFTS, TARGET
from generator.pages import vendor
from tests.conftest import ROOT

DRIVER = ROOT / "tests" / "widgets" / "node" / "e6_roof.mjs"
MODELS = (TARGET, DRAFTS[0])


def node(*args):
    exe = shutil.which("node") or pytest.fail("node is needed (install Node 20)")
    run = subprocess.run([exe, str(DRIVER), *map(str, args)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def config(name):
    return json.loads((ROOT / "models" / name / "config.json").read_text())


def test_the_wat_assembles_to_the_same_valid_bytes_as_the_page_build_does():
    out = node("assemble")
    assert out["first"] == out["second"] and out["valid"] is True and out["bytes"] > 200
    assert out["exports"] == ["madd", "read"] and out["imports"] == ["env.memory:memory"]
    assert hashlib.sha256(vendor.roof_wasm()).hexdigest() == out["first"]
    assert not list((ROOT / "widgets").rglob("*.wasm"))  # built, never kept in the source


def test_the_built_site_serves_the_probes_beside_the_engine(site):
    served = site / "assets" / "c13" / "e6" / "roof.wasm"
    assert hashlib.sha256(served.read_bytes()).hexdigest() == node("assemble")["first"]
    assert (site / "assets" / "c13" / "e6" / "roof.mjs").is_file()
    assert not (site / "assets" / "c13" / "e6" / "roof.wat").exists()


def test_a_build_without_node_fails_naming_the_probes(monkeypatch):
    monkeypatch.setattr(vendor.shutil, "which", lambda name: None)
    with pytest.raises(PluginError, match="node is needed to assemble widgets/e6/roof.wat"):
        vendor.roof_wasm()


@pytest.fixture(scope="module")
def fake():
    return node("fake")


def test_under_a_coarse_clock_every_block_lasts_5_ms_and_the_medians_are_the_machines(fake):
    machine, settings = fake["machine"], fake["settings"]
    for run in fake["runs"]:
        assert run["step"] == 0.1 and run["minBlockMs"] == 5
        assert run["blocks"] and all(b["ms"] >= 5 for b in run["blocks"]), run["blocks"]
        assert [b["kind"] for b in run["blocks"]].count("bandwidth") == settings["blocks"] == run["bandwidthGBs"]["n"]
        assert run["peakGflops"]["n"] == settings["blocks"] and run["stopped"] == "blocks"
        for key in ("bandwidthGBs", "peakGflops"):
            s = run[key]
            assert 0 < s["min"] <= s["median"] <= s["max"] and abs(s["median"] / machine[key] - 1) < 0.03, (key, s)
        assert run["ms"] < 1000  # the whole measurement, warm-up included, by the fake clock


def test_a_cancelled_measurement_stops_before_another_block():
    out = node("cancel")
    assert out["cancelled"] is True and out["message"] == "已取消"
    assert out["callsAtCancel"] > 0 and out["after"] == 0


def finite_spread(s):
    return all(math.isfinite(s[k]) and s[k] > 0 for k in ("median", "min", "max", "q1", "q3"))


def test_the_real_probes_give_positive_finite_figures():
    out = node("real")
    for kernel, run in (("wasm-simd128", out["wasm"]), ("js", out["js"])):
        assert run["kernel"] == kernel and run["finite"] is True and run["n"] == [3, 3]
        assert run["bytes"] == 4 * 3_705_088 and run["shortest"] >= run["minBlockMs"] >= 5


def test_each_run_measures_the_roof_like_its_forwards_with_the_models_from_their_configs(data):
    out = node("run")
    first = out["first"]
    assert "error" not in first, first
    assert finite_spread(first["bandwidthGBs"]) and finite_spread(first["peakGflops"])
    assert first["kernel"] == "wasm-simd128"  # SIMD forwards: roof.wasm's probes
    assert out["js"]["kernel"] == "js" and out["js"]["note"] and "error" not in out["js"]  # JavaScript forwards: JS probes
    assert out["sameMeasurement"] is False  # a second run measures again: never a stale roof
    assert "roof.wasm 没能载入" in out["missing"]["error"] and "不可比" in out["missing"]["error"]
    target, draft = first["models"]["target"], first["models"]["draft"]
    assert (target["name"], draft["name"]) == MODELS
    for m in (target, draft):
        assert m["parameters"] == data["models"][m["name"]]["parameters"]
        assert 4 * m["parameters"] == data["models"][m["name"]]["bytes_float32"]
    assert first["bytes"] == 4 * target["parameters"]  # the probe reads the target's float32 weights


READER = {"key": "reader", "name": "你的机器 <b>&", "short": "你的", "bandwidthGBs": 10.0, "peakGflops": 5.0}
BUILD = {"key": "build", "name": "构建机器", "bandwidthGBs": 30.0, "peakGflops": 40.0}
K, CONTEXT = 3, 60


@pytest.fixture(scope="module")
def figure(tmp_path_factory):
    args = {"configs": {"target": config(MODELS[0]), "draft": config(MODELS[1])}, "reader": READER,
            "roofs": [BUILD, READER], "names": {"target": "t<x>", "draft": MODELS[1]}, "k": K, "context": CONTEXT,
            "probes": [0.01, 0.5, 1000]}
    path = tmp_path_factory.mktemp("roof") / "args.json"
    path.write_text(json.dumps(args, ensure_ascii=False))
    return node("figure", path)


def cost(cfg, positions, context):
    """The cost model written out again: 2 FLOPs per matmul weight per position plus attention; every float32 weight
    and the KV cache read once."""
    L, C, V = cfg["n_layer"], cfg["n_embd"], cfg["vocab_size"]
    matmul = V * C + 12 * L * C * C
    params = matmul + cfg["block_size"] * C + 2 * L * C + C
    return positions * (2 * matmul + 4 * context * C * L), 4 * params + 8 * context * C * L


def test_the_roofline_time_and_v_on_known_numbers(figure):
    cfg = config(MODELS[0])
    times = []
    for n in (1, K + 1):
        flops, nbytes = cost(cfg, n, CONTEXT)
        times.append(max(nbytes / (READER["bandwidthGBs"] * 1e9), flops / (READER["peakGflops"] * 1e9)) * 1e3)
    assert figure["times"] == pytest.approx(times, rel=1e-12)
    assert figure["predictedV"] == pytest.approx(times[1] / times[0], rel=1e-12)
    assert [c["flops"] for c in figure["costs"]] == [cost(cfg, n, CONTEXT)[0] for n in (1, K + 1)]
    assert figure["attainable"] == [10.0 * 0.01, 5.0, 5.0]  # min(P, B·I) below, at and past the ridge
    anchor = figure["anchor"]
    assert anchor["bandwidthGBs"] == pytest.approx(3350) and anchor["peakGflops"] == pytest.approx(989_000)


def layouts(markup):
    return {m.group(1): m.group(0) for m in re.finditer(r'<svg[^>]*id="t-roof-(wide|narrow)".*?</svg>', markup, re.S)}


def markers(drawing):
    """The centres of the forwards' markers, in drawing order (circles, squares, diamonds), as drawn: to 0.1 (hence
    the tests' tolerance of 0.35)."""
    out = []
    plotted = re.search(r'<g class="c13-roof-marks">(.*?)</g>', drawing).group(1)  # not the legend's
    for m in re.finditer(r'<(circle|rect|path)([^>]*class="c13-roof-pt[^"]*"[^>]*)/>', plotted):
        a = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
        if m.group(1) == "circle":
            out.append((float(a["cx"]), float(a["cy"])))
        elif m.group(1) == "rect":
            out.append((float(a["x"]) + float(a["width"]) / 2, float(a["y"]) + float(a["height"]) / 2))
        else:
            nums = [float(v) for v in re.findall(r"-?[\d.]+", a["d"])]
            out.append((nums[0], (nums[1] + nums[5]) / 2))
    return out


def axis(drawing, label, horizontal):
    """The coordinate of a decade's tick label on the x axis (horizontal) or the y axis."""
    anchor = "middle" if horizontal else "end"
    pattern = r'<text x="([\d.]+)" y="([\d.]+)" text-anchor="(\w+)" class="c13-muted[^"]*">([^<]*)</text>'
    for m in re.finditer(pattern, drawing):
        if m.group(4) == label and m.group(3) == anchor:
            return float(m.group(1)) if horizontal else float(m.group(2)) - 4
    raise AssertionError(f"no tick {label}")


def on_polyline(points, x, y, tol=1.0):
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x0 - tol <= x <= x1 + tol and x1 > x0:
            return abs(y0 + (y1 - y0) * (x - x0) / (x1 - x0) - y) <= tol
    return False


def test_the_forwards_sit_on_their_roofs_where_the_log_axes_put_them(figure):
    drawings = layouts(figure["markup"])
    assert set(drawings) == {"wide", "narrow"}
    for layout, drawing in drawings.items():
        roof = re.search(r'<polyline points="([^"]+)" class="c13-roof c13-roof-reader"', drawing).group(1)
        roof = [tuple(map(float, p.split(","))) for p in roof.split()]
        x1, x10 = axis(drawing, "1", True), axis(drawing, "10", True)
        y1, y10 = axis(drawing, "1", False), axis(drawing, "10", False)
        found = markers(drawing)
        assert len(found) == len(figure["points"]) == 5
        for p, (x, y) in zip(figure["points"], found):
            assert p["gflops"] == pytest.approx(min(5.0, 10.0 * p["intensity"]) if p["kind"] != "anchor"
                                                else min(989_000, 3350 * p["intensity"]))
            assert x == pytest.approx(x1 + math.log10(p["intensity"]) * (x10 - x1), abs=0.35), (layout, p)
            assert y == pytest.approx(y1 + math.log10(p["gflops"]) * (y10 - y1), abs=0.35), (layout, p)
            if p["kind"] != "anchor":
                assert on_polyline(roof, x, y), (layout, p, roof)


def test_both_layouts_keep_their_text_at_11_px_and_escape_every_label(figure):
    markup = figure["markup"]
    drawings = layouts(markup)
    for layout, drawing in drawings.items():
        sizes = [int(s) for s in re.findall(r"\bc13-fs(\d+)\b", drawing)]
        assert sizes and min(sizes) >= 11, layout
        width = float(re.search(r'viewBox="0 0 ([\d.]+) ', drawing).group(1))
        assert (width == 560) if layout == "wide" else (264 <= width <= 300)
        assert re.search(r"<title id=\"t-roof-\w+-t\">[^<]+</title><desc id=\"t-roof-\w+-d\">", drawing)
        assert drawing.count('class="c13-roof c13-roof-') == 3 + 3  # three roofs, three legend lines
    assert "<b>" not in markup and "<x>" not in markup and "你的机器 &lt;b&gt;&amp;" in markup and "t&lt;x&gt;" in markup
    assert "no roof" in figure["noRoof"]
