"""E5's measured costs in the widget payload (generator/pages/widget_payload.py e5_costs): the build machine's c and
v(k) medians, torch's wall-clock speedups and E6's WebAssembly forward in Node, read here from measured.json itself;
absent or stale measured.json gives a Chinese reason and no figures."""
import json

import pytest

from generator.pages.measured import measured_context
from generator.pages.widget_payload import E5_WASM_ENGINE, e5_costs
from tests.sitelib import data_file

MEASURED = data_file().parent / "measured.json"


@pytest.fixture(scope="module")
def measured():
    if not MEASURED.is_file():
        pytest.skip("no precomputed/measured.json")
    return json.loads(MEASURED.read_text(encoding="utf-8"))


def with_measured(tmp_path, measured):
    (tmp_path / "measured.json").write_text(json.dumps(measured), encoding="utf-8")
    return tmp_path / "c13.json"


def test_the_payload_holds_the_measured_medians(data, measured):
    costs = e5_costs(measured_context(data, data_file()))
    ks = measured["ks"]
    assert costs["ks"] == ks and "reason" not in costs
    torch = costs["torch"]
    assert torch["c"] == {d: s["median"] for d, s in measured["forward"]["c"].items()}
    assert torch["v"] == [next(r["median"] for r in measured["forward"]["v"] if r["k"] == k) for k in ks]
    for draft, rows in measured["speedup"]["drafts"].items():
        assert torch["points"][draft] == [{"k": r["k"], "median": r["speedup"]["median"], "min": r["speedup"]["min"],
                                           "max": r["speedup"]["max"]} for r in rows]
    assert measured["machine"]["cpu"] in torch["where"] and measured["machine"]["date_utc"][:10] in torch["wallClock"]
    engine = measured["browser_forwards"]["engines"][E5_WASM_ENGINE]
    assert costs["wasm"]["c"] == {d: s["median"] for d, s in engine["c"].items()}
    assert costs["wasm"]["v"] == [next(r["median"] for r in engine["v"] if r["k"] == k) for k in ks]
    assert "WebAssembly" in costs["wasm"]["where"] and costs["wasmReason"] is None


def test_absent_stale_or_without_webassembly_timings_says_why(data, measured, tmp_path):
    assert set(e5_costs(None)) == {"reason"} and "make measure" in e5_costs(None)["reason"]
    stale = json.loads(json.dumps(measured))
    stale["tokenizer_sha256"] = "0" * 64
    costs = e5_costs(measured_context(data, with_measured(tmp_path, stale)))
    assert set(costs) == {"reason"} and "旧模型" in costs["reason"]
    older = json.loads(json.dumps(measured))
    del older["browser_forwards"]
    (tmp_path / "older").mkdir()
    costs = e5_costs(measured_context(data, with_measured(tmp_path / "older", older)))
    assert costs["wasm"] is None and "WebAssembly" in costs["wasmReason"] and costs["torch"]["c"]
