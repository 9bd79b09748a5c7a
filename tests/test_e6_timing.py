"""
E6's measuring phase (widgets/e6/timing.mjs, spread.mjs) under fake clocks of 0.1 ms steps, the step of
performance.now() in a browser worker of a page that is not cross-origin isolated (tests/e6_timing.mjs):

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
from pathlib import Path

import pytest

from generator.shared_sampler import PATH as SAMPLER_PATH
from generator.models.family import DRAFTS, TARGET
from tests.sitelib import node_job

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "e6_timing.mjs"
BROWSER = ROOT / "precomputed" / "browser"
TIMEOUT_S = 600
SEEDS = [[1, 2], [3, 4], [5, 6], [7, 8]]
RUN = {"draft": DRAFTS[0], "k": 3, "temperature": 0, "nNew": 16, "seed": 0}
FIGURES = ("targetMs", "draftMs", "verifyMs", "c", "v", "speedupModel", "targetPerSecond", "speculativePerSecond")
# the fake machine's facts (tests/e6_timing.mjs FACTS): 56 draft forwards and 14 verifies for 40 tokens
FACTS = {"draftForwards": 56, "targetForwards": 14, "generated": 40}


@pytest.fixture(scope="module")
def answer(tmp_path_factory):
    data = json.loads((ROOT / "precomputed" / "c13.json").read_text())
    job = {"sampler": str(SAMPLER_PATH), "browser": str(BROWSER), "seeds": SEEDS,
           "run": dict(RUN, prompt=data["prompts"][1]["text"])}
    return node_job(SCRIPT, job, tmp_path_factory.mktemp("e6_timing"), TIMEOUT_S,
                    needs=(ROOT / "node_modules" / "pyodide" / "pyodide.asm.wasm", BROWSER / f"{TARGET}.safetensors"))


def figure(measured, key):
    per = measured["perSecond"]
    return {"targetPerSecond": per["target"]["model"], "speculativePerSecond": per["speculative"]["model"]}.get(
        key, measured.get(key))


def truth(costs):
    spec = (FACTS["draftForwards"] * costs["draft"] + FACTS["targetForwards"] * costs["verify"]) / FACTS["generated"]
    return {"targetMs": costs["target"], "draftMs": costs["draft"], "verifyMs": costs["verify"],
            "c": costs["draft"] / costs["target"], "v": costs["verify"] / costs["target"],
            "speedupModel": costs["target"] / spec, "targetPerSecond": 1000 / costs["target"],
            "speculativePerSecond": 1000 / spec}


def runs(answer):
    return [run for pair in answer["pairs"] for run in pair]


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


def test_a_cancelled_phase_stops_before_another_block(answer):
    cancel = answer["cancel"]
    assert cancel["cancelled"] is True and cancel["message"] == "已取消" and cancel["after"] == 0


def test_clocks_that_cannot_time_blocks_are_refused_in_words(answer):
    clocks = answer["clocks"]
    assert "不走" in clocks["standing"]["error"] and not clocks["standing"]["cancelled"]
    assert "16.7 ms" in clocks["coarse"]["error"] and "太粗" in clocks["coarse"]["error"]
    ms = clocks["ms"]  # a 1 ms clock: blocks of fifty steps, at most 20 ms
    assert ms["step"] == 1 and ms["minBlockMs"] == 20 and ms["shortest"] >= 20


def test_a_run_reports_its_measuring_phase(answer):
    e = answer["engine"]
    first = e["first"]
    assert first["kernel"] in ("js", "wasm-simd128")
    m, timing = first["measured"], first["timing"]
    assert m["n"] == len(timing["samples"]) == answer["settings"]["rounds"]
    assert all(b["ms"] >= timing["minBlockMs"] >= 5 for b in timing["blocks"])
    assert e["events"].count("e6-sample") == m["n"] and e["events"].count("e6-phase") == 5
    # the context is the prompt and half the target's text; the verify's drafts follow it
    assert timing["positions"] == len(timing["context"]) == len(first["promptIds"]) + math.ceil(RUN["nNew"] / 2)
    assert len(timing["drafted"]) == RUN["k"]
    assert math.isclose(m["c"], m["draftMs"] / m["targetMs"]) and math.isclose(m["v"], m["verifyMs"] / m["targetMs"])
    assert math.isclose(m["perSecond"]["target"]["model"], 1000 / m["targetMs"])
    facts = first["facts"]
    per_round = facts["generated"] / facts["rounds"]
    assert math.isclose(m["speedupModel"], per_round / (RUN["k"] * m["c"] + m["v"]), rel_tol=1e-9)
    wall = facts["wall"]
    assert math.isclose(m["speedupEndToEnd"], (wall["target"]["ms"] / wall["target"]["tokens"])
                        / (wall["speculative"]["ms"] / wall["speculative"]["tokens"]))


def test_measuring_again_adds_samples_and_downloads_nothing(answer):
    e = answer["engine"]
    rounds = answer["settings"]["rounds"]
    assert e["n"] == [rounds, 2 * rounds, 3 * rounds]
    assert e["last"]["n"] == 3 * rounds
    for measure in e["measures"]:
        assert measure["samples"] == rounds and measure["events"].count("e6-sample") == rounds
        assert "e6-bytes" not in measure["events"]
    assert all(count == 1 for count in e["fetches"].values()), e["fetches"]


def test_a_cancelled_or_refused_measure_leaves_the_engine_free(answer):
    e = answer["engine"]
    assert e["cancel"]["cancelled"] is True and e["cancel"]["error"] == "已取消"
    assert e["refused"]["cancelled"] is False and "再测一次要用上一次运行的提示和文字" in e["refused"]["error"]
    assert e["after"]["ok"] is True


def test_two_engine_runs_agree_within_their_shown_spread(answer):
    e = answer["engine"]
    a, b = e["first"]["measured"], e["second"]["measured"]
    for key in FIGURES:
        sa, sb = a["spread"][key], b["spread"][key]
        assert sa["min"] <= sb["max"] and sb["min"] <= sa["max"], (key, sa, sb)
