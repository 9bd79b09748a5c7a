"""
E6's measuring phase (widgets/e6/timing.mjs, spread.mjs) under fake clocks of 0.1 ms steps, the step of
performance.now() in a browser worker of a page that is not cross-origin isolated (tests/widgets/node/e6_timing.mjs):

- every block lasts at least 5 ms by that clock, and each round times the three forwards in a rotated order;
- two runs of the same settings agree within their shown spread (the ranges the report shows overlap), and their
  medians lie near the fake machine's true costs, where timing each call alone (the old way) is off by a quarter;
- the phase stops when cancelled, before another block; a clock that stands or steps by 16.7 ms is refused in words;
- the worker side (engine.mjs with the real models and widgets/sampler.py in Pyodide) under such a clock: a run
  reports its measuring phase; 再测一次 (e6-measure) adds samples (n grows) with nothing downloaded again; a
  cancelled or refused one leaves the engine free for the next.

No test reads a real clock: every time here is fake. Needs `node`, node_modules/pyodide and precomputed/browser/.
"""
import json
import math
import statistics

import pytest

from generator.shared_sampler import PATH as SAMPLER_PATH
from generator.models.family import DRAFTS, TARGET
from tests.conftest import ROOT
from tests.sitelib import node_job

SCRIPT = ROOT / "tests" / "widgets" / "node" / "e6_timing.mjs"
BROWSER = ROOT / "precomputed" / "browser"
TIMEOUT_S = 600
SEEDS = [[1, 2], [3, 4], [5, 6], [7, 8]]
RUN = {"draft": DRAFTS[0], "k": 3, "temperature": 0, "nNew": 16, "seed": 0}
# the block-timed figures (c and v(k) and what they are the ratio of); the speedups come from the runs
FIGURES = ("targetMs", "draftMs", "verifyMs", "c", "v")


@pytest.fixture(scope="module")
def answer(tmp_path_factory):
    data = json.loads((ROOT / "precomputed" / "c13.json").read_text())
    job = {"sampler": str(SAMPLER_PATH), "browser": str(BROWSER), "seeds": SEEDS,
           "run": dict(RUN, prompt=data["prompts"][1]["text"])}
    return node_job(SCRIPT, job, tmp_path_factory.mktemp("e6_timing"), TIMEOUT_S,
                    needs=(ROOT / "node_modules" / "pyodide" / "pyodide.asm.wasm", BROWSER / f"{TARGET}.safetensors"))


def figure(measured, key):
    return measured[key]


def truth(costs):
    return {"targetMs": costs["target"], "draftMs": costs["draft"], "verifyMs": costs["verify"],
            "c": costs["draft"] / costs["target"], "v": costs["verify"] / costs["target"]}


def from_runs(runs):
    """The verdict's figures worked out here from the runs (engine.mjs runTimes): per pair the target's ms per token
    over speculative decoding's, end to end and on the forwards' time; the medians and the middle pair."""
    pairs = list(zip(runs["target"], runs["speculative"]))
    e2e = [(t["total"] / t["tokens"]) / (s["total"] / s["tokens"]) for t, s in pairs]
    model = [(t["model"] / t["tokens"]) / (s["model"] / s["tokens"]) for t, s in pairs]
    return {"speedupEndToEnd": statistics.median(e2e), "speedupModel": statistics.median(model),
            "e2eMin": min(e2e), "e2eMax": max(e2e), "modelMin": min(model), "modelMax": max(model),
            "targetPerSecond": statistics.median(1000 * t["tokens"] / t["total"] for t, _ in pairs)}


def check_run_figures(measured, runs):
    want = from_runs(runs)
    assert len(runs["target"]) == len(runs["speculative"]) == measured["runs"] and measured["runs"] % 2 == 1
    for key in ("speedupEndToEnd", "speedupModel"):
        assert math.isclose(measured[key], want[key], rel_tol=1e-12), key
    sp = measured["spread"]
    assert (sp["speedupEndToEnd"]["min"], sp["speedupEndToEnd"]["max"]) == pytest.approx((want["e2eMin"], want["e2eMax"]))
    assert (sp["speedupModel"]["min"], sp["speedupModel"]["max"]) == pytest.approx((want["modelMin"], want["modelMax"]))
    assert math.isclose(measured["perSecond"]["target"]["endToEnd"], want["targetPerSecond"], rel_tol=1e-12)
    # the middle pair is a pair of the runs whose end-to-end speedup is the median
    mid = measured["middle"]
    assert mid["target"] in runs["target"] and mid["speculative"] in runs["speculative"]
    assert math.isclose(mid["endToEnd"], want["speedupEndToEnd"], rel_tol=1e-12)


@pytest.mark.slow("E6's engine run in Node under fake clocks")
def test_the_speedups_are_the_runs_medians(answer):
    """The fake machine's phases carry tests/widgets/node/e6_timing.mjs's FACTS (five pairs): the speedups are
    recomputed here."""
    for run in runs(answer):
        check_run_figures(run["measured"], run["facts"])


def runs(answer):
    return [run for pair in answer["pairs"] for run in pair]


@pytest.mark.slow("E6's engine run in Node under fake clocks")
def test_every_block_lasts_at_least_5_ms_by_the_coarse_clock(answer):
    settings = answer["settings"]
    for run in runs(answer):
        timing = run["timing"]
        assert math.isclose(timing["step"], answer["step"]) and timing["minBlockMs"] == 5
        assert timing["blocks"] and all(b["ms"] >= 5 for b in timing["blocks"]), timing["blocks"]
        assert len(timing["samples"]) == settings["rounds"] == run["measured"]["n"]
        assert len(timing["blocks"]) == 3 * settings["rounds"]
        # a block of the small draft holds tens of calls; one sample is its time ÷ its calls
        assert min(b["calls"] for b in timing["blocks"] if b["kind"] == "draft") >= 30
        # each round times each kind once, and no kind always goes first
        firsts = {timing["blocks"][3 * r]["kind"] for r in range(settings["rounds"])}
        assert firsts == {"target", "draft", "verify"}
        for r in range(settings["rounds"]):
            assert {b["kind"] for b in timing["blocks"][3 * r:3 * r + 3]} == {"target", "draft", "verify"}


@pytest.mark.slow("E6's engine run in Node under fake clocks")
def test_two_runs_of_the_same_settings_agree_within_their_shown_spread(answer):
    want = truth(answer["costs"])
    for a, b in answer["pairs"]:
        for key in FIGURES:
            sa, sb = a["measured"]["spread"][key], b["measured"]["spread"][key]
            assert sa["min"] <= sb["max"] and sb["min"] <= sa["max"], (key, sa, sb)
            for run, s in ((a, sa), (b, sb)):
                value = figure(run["measured"], key)
                assert s["min"] <= s["max"] and abs(value / want[key] - 1) < 0.05, (key, value, want[key])
                assert s["min"] > 0.85 * want[key] and s["max"] < 1.15 * want[key], (key, s, want[key])


@pytest.mark.slow("E6's engine run in Node under fake clocks")
def test_timing_each_call_alone_is_what_the_coarse_clock_breaks(answer):
    """The old way, on the same fake machine: the draft's call read alone is 0.1 or 0.2 ms, never its 0.137."""
    step = answer["step"]
    want = truth(answer["costs"])["c"]
    for run in runs(answer):
        draft = sorted(run["single"]["draft"])
        assert all(abs(x / step - round(x / step)) < 1e-6 for x in draft)
        target = sorted(run["single"]["target"])
        c_alone = draft[len(draft) // 2] / target[len(target) // 2]
        assert abs(c_alone / want - 1) > 0.15, c_alone
        assert abs(run["measured"]["c"] / want - 1) < 0.05


@pytest.mark.slow("E6's engine run in Node under fake clocks")
def test_a_cancelled_phase_stops_before_another_block(answer):
    cancel = answer["cancel"]
    assert cancel["cancelled"] is True and cancel["message"] == "已取消" and cancel["after"] == 0


@pytest.mark.slow("E6's engine run in Node under fake clocks")
def test_clocks_that_cannot_time_blocks_are_refused_in_words(answer):
    clocks = answer["clocks"]
    assert "不走" in clocks["standing"]["error"] and not clocks["standing"]["cancelled"]
    assert "16.7 ms" in clocks["coarse"]["error"] and "太粗" in clocks["coarse"]["error"]
    ms = clocks["ms"]  # a 1 ms clock: blocks of fifty steps, at most 20 ms
    assert ms["step"] == 1 and ms["minBlockMs"] == 20 and ms["shortest"] >= 20


@pytest.mark.slow("E6's engine run in Node under fake clocks")
def test_a_run_reports_its_measuring_phase(answer):
    e = answer["engine"]
    first = e["first"]
    assert first["kernel"] in ("js", "wasm-simd128")
    m, timing = first["measured"], first["timing"]
    assert m["n"] == len(timing["samples"]) == answer["settings"]["rounds"]
    assert all(b["ms"] >= timing["minBlockMs"] >= 5 for b in timing["blocks"])
    assert e["events"].count("e6-sample") == m["n"] and e["events"].count("e6-phase") == 7
    # the context is the prompt and half the target's text; the verify's drafts follow it
    assert timing["positions"] == len(timing["context"]) == len(first["promptIds"]) + math.ceil(RUN["nNew"] / 2)
    assert len(timing["drafted"]) == RUN["k"]
    assert math.isclose(m["c"], m["draftMs"] / m["targetMs"]) and math.isclose(m["v"], m["verifyMs"] / m["targetMs"])
    assert math.isclose(m["perSecond"]["target"]["model"], statistics.median(
        1000 * r["tokens"] / r["model"] for r in first["facts"]["runs"]["target"]), rel_tol=1e-12)
    facts = first["facts"]
    check_run_figures(m, facts["runs"])
    # every run of the verdict wrote what the shown runs wrote: same prompt, seed and length
    assert {r["tokens"] for r in facts["runs"]["target"]} == {RUN["nNew"]}
    assert {r["tokens"] for r in facts["runs"]["speculative"]} == {facts["generated"]}


@pytest.mark.slow("E6's engine run in Node under fake clocks")
def test_measuring_again_adds_samples_and_downloads_nothing(answer):
    e = answer["engine"]
    rounds = answer["settings"]["rounds"]
    assert e["n"] == [rounds, 2 * rounds, 3 * rounds]
    assert e["last"]["n"] == 3 * rounds
    for measure in e["measures"]:
        assert measure["samples"] == rounds and measure["events"].count("e6-sample") == rounds
        assert "e6-bytes" not in measure["events"]
    assert all(count == 1 for count in e["fetches"].values()), e["fetches"]


@pytest.mark.slow("E6's engine run in Node under fake clocks")
def test_a_cancelled_or_refused_measure_leaves_the_engine_free(answer):
    e = answer["engine"]
    assert e["cancel"]["cancelled"] is True and e["cancel"]["error"] == "已取消"
    assert e["refused"]["cancelled"] is False and "再测一次要用上一次运行的提示和文字" in e["refused"]["error"]
    assert e["after"]["ok"] is True


@pytest.mark.slow("E6's engine run in Node under fake clocks")
def test_two_engine_runs_agree_within_their_shown_spread(answer):
    e = answer["engine"]
    a, b = e["first"]["measured"], e["second"]["measured"]
    for key in FIGURES:
        sa, sb = a["spread"][key], b["spread"][key]
        assert sa["min"] <= sb["max"] and sb["min"] <= sa["max"], (key, sa, sb)
