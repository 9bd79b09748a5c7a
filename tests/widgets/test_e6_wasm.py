"""E6's WebAssembly SIMD forward (widgets/e6/forward.wat, wasm.mjs, forwards.mjs) beyond the logits that
tests/widgets/test_e6_model.py compares with torch: its assembly (the same bytes every time, the site's file a fresh
assembly, a clear failure without node or wabt), its erf and GELU, its loader's choices and fallbacks, its caches.
"""
import hashlib
import json
import math
import struct

import pytest
from mkdocs.exceptions import PluginError

from generator.pages import vendor
from tests.conftest import ROOT
from tests.widgets.test_e6_model import BROWSER, node


VARIANTS = {"standard": "forward.wasm", "relaxed": "forward-relaxed.wasm"}


def test_two_assemblies_of_the_wat_are_the_same_bytes():
    out = node("assemble")
    for variant in VARIANTS:
        assert out[variant]["first"] == out[variant]["second"] and out[variant]["bytes"] > 1000, variant
    assert out["standard"]["first"] != out["relaxed"]["first"]  # the relaxed build has its own kernels


def test_the_page_build_assembles_the_same_bytes_and_commits_none():
    out = node("assemble")
    for variant in VARIANTS:
        assert hashlib.sha256(vendor.forward_wasm(variant)).hexdigest() == out[variant]["first"], variant
    assert not list((ROOT / "widgets").rglob("*.wasm"))  # built, never kept in the source


def test_the_built_site_serves_a_fresh_assembly(site):
    out = node("assemble")
    for variant, name in VARIANTS.items():
        served = site / "assets" / "c13" / "e6" / name
        assert hashlib.sha256(served.read_bytes()).hexdigest() == out[variant]["first"], name
    assert not list((site / "assets" / "c13" / "e6").glob("*.wat"))  # the source stays out of the site


def test_a_build_without_node_fails_naming_it(monkeypatch):
    monkeypatch.setattr(vendor.shutil, "which", lambda name: None)
    with pytest.raises(PluginError, match="node is needed to assemble widgets/e6/forward.wat"):
        vendor.forward_wasm()


def test_a_build_without_wabt_fails_naming_it(monkeypatch, tmp_path):
    monkeypatch.setattr(vendor, "ROOT", tmp_path)  # a checkout whose node_modules lacks wabt
    with pytest.raises(PluginError, match=r"wabt is missing from node_modules \(run: npm ci\)"):
        vendor.forward_wasm()


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def test_the_kernels_erf_and_gelu_are_accurate():
    """wasm has no exp or erf instruction: forward.wat's own, in float32 lanes, to about 1e-6 relative."""
    xs = [i / 64 for i in range(-640, 641)] + [1e-6, -1e-6, 0.7071, -0.7072, 1.4142, -1.4143, 30.0, -30.0]
    out = node("erf", json.dumps(xs), "wasm")
    for x, e, g in zip(out["inputs"], out["erf"], out["gelu"]):
        assert x == f32(x)
        assert abs(e - math.erf(x)) <= 3e-7 * abs(math.erf(x)) + 1e-30, (x, e)
        exact = 0.5 * x * math.erfc(-x / math.sqrt(2))  # no cancellation for x < 0
        if x >= -5.5:  # out to where GELU is -1e-7
            assert abs(g - exact) <= 3e-6 * abs(exact) + 1e-30, (x, g, exact)
        else:
            assert abs(g - exact) < 1e-8, (x, g, exact)


def test_the_loader_returns_the_webassembly_forward_and_falls_back_with_the_reason():
    out = node("loader", BROWSER)
    assert out["auto"]["value"] == {"kernel": "wasm-simd128", "note": None, "simd": "relaxed"}
    assert out["standard"]["value"] == {"kernel": "wasm-simd128", "note": None, "simd": "standard"}
    assert out["noRelaxed"]["value"] == {"kernel": "wasm-simd128", "note": None, "simd": "standard"}
    assert out["js"]["value"] == {"kernel": "js", "note": None, "simd": None}
    for case, words in (("noSimd", "不支持 WebAssembly SIMD"), ("unreachable", "forward.wasm: "),
                        ("missingFile", "forward.wasm: "), ("notWasm", "WebAssembly.compile")):
        got = out[case]
        assert got["ok"] and got["value"]["kernel"] == "js", (case, got)
        assert "改用 JavaScript" in got["value"]["note"] and words in got["value"]["note"], (case, got)
    assert not out["demanded"]["ok"] and "cannot run" in out["demanded"]["error"]  # engine "wasm": never JS


def test_two_caches_of_one_model_stay_apart():
    """Each Decoder gets its own cache in the model's memory (the memory grows for the second): fed in turn, with
    rollbacks, both agree with the JavaScript forward."""
    out = node("caches", BROWSER)
    assert out["kernel"] == "wasm-simd128" and out["distinct"]
    assert out["worst"] < 1e-4, out["worst"]
