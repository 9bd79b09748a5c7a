"""E6's explanation of the reader's run, its pure parts driven by tests/widgets/node/e6_explain.mjs:

- the timeline of one round: k draft forwards, the verify forward and the round's decisions end to end, beside the
  target writing the round's mean tokens (a fraction of a step for the fraction), on one axis, with the totals the
  segments add up to; both layouts keep their text at 11 px or more; a missing or negative duration is refused;
- the regime of a forward on a roof: compute-bound where the arithmetic takes longer than reading the weights,
  bandwidth-bound where reading does, and the measured time's distance above the roof;
- the sampler's time per round and per token from a run's totals.
The durations are the fake machine's of tests/widgets/node/e6_timing.mjs (COSTS), not a timing of ours."""
import json
import math
import re
import shutil
import subprocess

import pytest

from generator.models.family import TARGET
from generator.pages.claims import THRESHOLDS
from tests.conftest import ROOT

DRIVER = ROOT / "tests" / "widgets" / "node" / "e6_explain.mjs"


def node(mode, args, tmp_path):
    exe = shutil.which("node") or pytest.fail("node is needed (install Node 20)")
    job = tmp_path / f"{mode}.json"
    job.write_text(json.dumps(args))
    run = subprocess.run([exe, str(DRIVER), mode, str(job)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def fake_costs():
    """The fake machine's ms per forward, from the driver that runs E6's worker under a fake clock."""
    source = (ROOT / "tests" / "widgets" / "node" / "e6_timing.mjs").read_text()
    found = re.search(r"export const COSTS = \{ target: ([\d.]+), draft: ([\d.]+), verify: ([\d.]+) \}", source)
    assert found, "tests/widgets/node/e6_timing.mjs no longer exports COSTS in the form read here"
    return dict(zip(("target", "draft", "verify"), map(float, found.groups())))


def timeline_args(k=4, tokens=2.5, sampler_round=2.2, sampler_token=0.6):
    c = fake_costs()
    return {"k": k, "tokens": tokens, "draftMs": c["draft"], "verifyMs": c["verify"], "targetMs": c["target"],
            "samplerRoundMs": sampler_round, "samplerTokenMs": sampler_token, "id": "t"}


@pytest.mark.parametrize("k,tokens", [(1, 1.0), (4, 2.5), (8, 6.25)])
def test_a_rounds_timeline_lays_its_segments_end_to_end(tmp_path, k, tokens):
    args = timeline_args(k=k, tokens=tokens)
    out = node("timeline", args, tmp_path)
    spec, alone = out["segments"]["speculative"], out["segments"]["target"]
    assert [s["part"] for s in spec["segments"]] == ["draft"] * k + ["verify", "sampler"]
    for strip in (spec, alone):
        t = 0
        for s in strip["segments"]:
            assert s["start"] == pytest.approx(t) and s["ms"] >= 0
            t += s["ms"]
        assert strip["total"] == pytest.approx(t)
    assert spec["model"] == pytest.approx(k * args["draftMs"] + args["verifyMs"])
    assert spec["total"] == pytest.approx(spec["model"] + args["samplerRoundMs"])
    # the target alone: one forward and one decision per token, the last step cut at the round's fraction
    steps = math.ceil(tokens)
    assert [s["part"] for s in alone["segments"]] == ["target", "sampler"] * steps
    assert alone["model"] == pytest.approx(tokens * args["targetMs"])
    assert alone["total"] == pytest.approx(tokens * (args["targetMs"] + args["samplerTokenMs"]))
    forwards = [s["ms"] for s in alone["segments"] if s["part"] == "target"]
    assert forwards[:-1] == pytest.approx([args["targetMs"]] * (steps - 1))
    assert forwards[-1] == pytest.approx((tokens - (steps - 1)) * args["targetMs"])


def test_the_drawing_matches_its_segments_in_both_layouts(tmp_path):
    args = timeline_args()
    out = node("timeline", args, tmp_path)
    svg = out["svg"]
    assert svg.count("<svg") == 2 and 'class="c13-duo' in svg
    sizes = [int(n) for n in re.findall(r"\bc13-fs(\d+)\b", svg)]
    assert sizes and min(sizes) >= 11
    total = out["segments"]["speculative"]["total"]
    assert f'data-speculative-ms="{total}"' in svg.replace(f"{total:.0f}", f"{total:.0f}")
    for layout in ("wide", "narrow"):
        drawing = re.search(rf'<div class="c13-duo-{layout}">(.*?)</svg>', svg, re.S).group(1)
        strips = dict(re.findall(r'<g class="c13-tl-strip" data-strip="(\w+)" data-total="([\d.e-]+)">', drawing))
        assert set(strips) == {"speculative", "target"}
        rects = re.findall(r'<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)" height="[\d.]+"[^>]*data-part="(\w+)"'
                           r' data-ms="([\d.e-]+)"', drawing)
        assert len(rects) == args["k"] + 2 + 2 * math.ceil(args["tokens"])
        # widths proportional to durations: one scale for both strips
        scale = {round(float(w) / float(ms), 1) for _, w, _, ms in rects if float(ms) > 0.5}
        assert max(scale) - min(scale) <= 0.2 * max(scale), scale
        assert "<title" in drawing and "<desc" in drawing


@pytest.mark.parametrize("field,value", [("verifyMs", -1), ("draftMs", None), ("tokens", 0), ("k", 0), ("k", 1.5)])
def test_a_timeline_without_a_duration_is_refused(tmp_path, field, value):
    args = timeline_args()
    args[field] = value
    out = node("timeline", args, tmp_path)
    assert "error" in out and "round timeline" in out["error"] and (field in out["error"] or field in ("tokens", "k"))


def test_the_regime_follows_the_larger_bound_and_the_distance_above_the_roof(tmp_path):
    config = json.loads((ROOT / "models" / TARGET / "config.json").read_text())
    roofs = [{"bandwidthGBs": 1e6, "peakGflops": 1.0}, {"bandwidthGBs": 1e-3, "peakGflops": 1e6}]
    out = node("regime", {"config": config, "roofs": roofs, "positions": 5, "context": 16, "measuredMs": 5.0}, tmp_path)
    compute, bandwidth = out
    assert compute["bound"] == "compute" and compute["computeMs"] > compute["memoryMs"]
    assert bandwidth["bound"] == "bandwidth" and bandwidth["memoryMs"] > bandwidth["computeMs"]
    for r in out:
        assert r["overRoof"] == pytest.approx(5.0 / max(r["memoryMs"], r["computeMs"]))
    # a roof a thousand times faster leaves the measured time a thousand times further above it
    faster = [{"bandwidthGBs": 1e9, "peakGflops": 1e3}]
    again = node("regime", {"config": config, "roofs": faster, "positions": 5, "context": 16, "measuredMs": 5.0},
                 tmp_path)[0]
    assert again["overRoof"] == pytest.approx(1000 * compute["overRoof"], rel=1e-9)
    # the verifying forward's k + 1 positions, not one: more arithmetic, the same weights to read
    one = node("regime", {"config": config, "roofs": roofs, "positions": 1, "context": 16, "measuredMs": 5.0},
               tmp_path)[0]
    assert compute["positions"] == 5 and compute["computeMs"] > 4 * one["computeMs"]
    assert compute["memoryMs"] == pytest.approx(one["memoryMs"], rel=1e-12)


def test_the_roofline_is_called_accurate_only_where_its_v_agrees_with_the_measured_one(tmp_path):
    """A forward near its roof does not make the roofline "accurate" when it predicts v(2) = 1.00 and the
    run measured 2.14; the tolerance and the overhead bound are widgets/thresholds.json's."""
    t = THRESHOLDS
    tol, over = t["roof_agrees"], t["overhead_bound"]
    cases = [{"overRoof": 1.3, "predictedV": 1.0, "measuredV": 2.14},              # a reader's report
             {"overRoof": 1.7, "predictedV": 1.70, "measuredV": 3.44},             # the phone's
             {"overRoof": 1.1, "predictedV": 2.0 * (1 - tol / 2), "measuredV": 2.0},
             {"overRoof": over, "predictedV": 2.0, "measuredV": 2.0},
             {"overRoof": over * 0.99, "predictedV": 2.0 * (1 + tol * 1.01), "measuredV": 2.0}]
    out = node("verdict", {"cases": cases, "thresholds": t}, tmp_path)
    assert [o["agrees"] for o in out] == [False, False, True, True, False]
    assert [o["overhead"] for o in out] == [False, False, False, True, False]
    for o, c in zip(out, cases):
        assert o["gap"] == pytest.approx(abs(c["predictedV"] - c["measuredV"]) / c["measuredV"], rel=1e-12)


def test_the_sampler_time_per_round_and_per_token_comes_from_the_median_pairs_totals(tmp_path):
    """Per round and per token: the decisions alone, and all that is not a forward (the timeline's pale segment)."""
    middle = {"speculative": {"rounds": 8, "sampler": 20.0, "total": 100.0, "model": 76.0},
              "target": {"tokens": 16, "sampler": 12.0, "total": 60.0, "model": 44.0}}
    assert node("sampler", {"measured": {"middle": middle}}, tmp_path) == {
        "round": 2.5, "token": 0.75, "roundBesides": 3.0, "tokenBesides": 1.0}
    empty = {"speculative": {"rounds": 0, "sampler": 0, "total": 0, "model": 0},
             "target": {"tokens": 0, "sampler": 0, "total": 0, "model": 0}}
    assert node("sampler", {"measured": {"middle": empty}}, tmp_path) == {
        "round": 0, "token": 0, "roundBesides": 0, "tokenBesides": 0}


@pytest.mark.parametrize("scale", [0.01, 0.37, 1, 23])
def test_the_axis_labels_any_scale_of_durations(tmp_path, scale):
    args = timeline_args()
    for key in ("draftMs", "verifyMs", "targetMs", "samplerRoundMs", "samplerTokenMs"):
        args[key] *= scale
    out = node("timeline", args, tmp_path)
    assert "error" not in out, out.get("error")
    ticks = [float(t) for t in re.findall(r'c13-muted c13-fs11"[^>]*>([\d.,]+)</text>', out["svg"])]
    assert ticks[0] == 0 and ticks[-1] >= max(out["segments"][s]["total"] for s in ("speculative", "target"))


def live_words():
    """E6's words in docs/lab.md: {paragraph: (blank paths, {pick path: cases})}, read from the page source."""
    source = (ROOT / "docs" / "lab.md").read_text(encoding="utf-8")
    out = {}
    for name, body in re.findall(r'<div data-say="(\w+)" markdown>(.*?)</div>', source, flags=re.S):
        blanks = set(re.findall(r"\[\[ run\.(\w+)", body))
        picks, open_picks = {}, []  # picks nest: each case belongs to the innermost open pick
        for tag, word in re.findall(r"\[% (pick|case|endpick)\s*(?:run\.)?(\w*) \+?%\]", body):
            if tag == "pick":
                open_picks.append(word)
                picks.setdefault(word, set())
            elif tag == "case":
                picks[open_picks[-1]].add(word)
            else:
                open_picks.pop()
        assert not open_picks, f"«{name}»: a pick is not closed"
        out[name] = (blanks, picks)
    return out


def sayings_case(c=0.1, v=1.5, e2e=(1.1, 1.2, 1.3), model=1.3, predicted=1.25, token=0.5, target=1.0, generated=40,
                 n_new=40, bound="bandwidth", bound_one="bandwidth", overhead=False, agrees=True, roof_c=0.12,
                 guess="faster"):
    """One made-up run for sayings(): the measured medians, the pairs' speedups (end to end: min, median, max; on the
    forwards' time), the prediction, the regime on the reader's roof at k + 1 positions and at one, its verdict."""
    lo, mid, hi = e2e
    return {"k": 4, "ratio": 0.1, "roofC": roof_c, "times": {"token": token, "round": 2.0},
            "opts": {"thresholds": THRESHOLDS, "vocab": 2048, "predictedOwn": predicted, "guess": guess},
            "result": {"measured": {"c": c, "v": v, "speedupModel": model, "speedupEndToEnd": mid, "targetMs": target,
                                    "runs": 5, "spread": {"speedupEndToEnd": {"min": lo, "median": mid, "max": hi}}},
                       "nNew": n_new, "speculative": {"generated": generated, "rounds": 16, "tokens": []}},
            "r": {"bound": bound, "memoryMs": 0.8, "computeMs": 0.3, "measuredMs": 1.2, "overRoof": 1.5,
                  "one": {"bound": bound_one, "memoryMs": 0.8, "computeMs": 0.1, "measuredMs": 1.0}},
            "verdict": {"overhead": overhead, "agrees": agrees, "predictedV": 1.2}}


def test_e6s_words_are_filled_by_names_its_explanation_works_out_and_every_case_is_reachable(tmp_path):
    far = THRESHOLDS["far_above"]
    cases = [sayings_case(),  # faster, the prediction within the spread, the forwards faster than predicted
             # slower, the prediction off mostly by what is not a forward
             sayings_case(c=far * 0.1 * 1.01, v=0.9, e2e=(0.7, 0.8, 0.9), model=1.25, predicted=1.3, token=2.0,
                          generated=43, bound="compute", bound_one="compute", overhead=True, agrees=False, roof_c=None,
                          guess="same"),
             # even, the prediction off mostly by the forwards themselves
             sayings_case(c=0.1 / far / 1.01, v=6.0, e2e=(0.9, 1.0, 1.1), model=1.05, predicted=1.6, guess=None)]
    said = node("sayings", {"cases": cases}, tmp_path)
    words = live_words()
    explained = {"speed", "regime", "no_roof", "c", "v", "timeline", "end_to_end", "overshoot"}  # report.js says the others
    assert explained <= set(words)
    for name, (blanks, picks) in ((n, w) for n, w in words.items() if n in explained):
        for values in said:
            missing = [b for b in blanks | set(picks) if b not in values]
            assert missing == [], f"E6's words «{name}» read {missing}, which explain.js sayings() does not give"
        for path, keys in picks.items():  # every case the page writes is one the run can take, and each is taken
            taken = {("yes" if v[path] else "no") if isinstance(v[path], bool) else v[path] for v in said}
            assert taken == keys, f"«{name}»: {path} takes {taken}, the page writes {keys}"
    assert said[1]["extra"] == 3 and said[0]["extra"] == 0  # the overshoot paragraph is said only with extra > 0
    assert said[0]["within"] == THRESHOLDS["roof_agrees"] and said[0]["far"] == far
