"""Every setting of precomputed/lesson.toml that is accepted builds a true page, or is refused when read.

Fast tests: a value outside what the page can speak of is refused naming the file and the key (k.max below 2, a replay
too short for its full round, TV's n too few or too close, a file that is not UTF-8, E6's choices none of which fits the
context); measured.json that timed other k is shown as stale and says so, one that timed one draft is refused naming
measured.json, its field and `make measure`; the sentence on the best k with measured N takes the wording its numbers
call for. The slow test regenerates and builds the corners of the ranges (k.max 2, 3, 10, 16; k.lesson 1, 3, the
default 4, 16; the smallest and largest run sizes that stay quick).
"""
import copy
import json
import re
import shutil
import subprocess
import sys
import tomllib

import pytest

from generator.data.settings import SCHEMA, read_lesson
from generator.errors import InputError
from generator.pages.claims import Claims
from generator.pages.data_file import DataError
from generator.pages.measured import KS, measured_context, stale_inputs
from tests.conftest import ROOT
from tests.sitelib import drafts_by_size, page_text, widget_json, write_data

LESSON = ROOT / "precomputed" / "lesson.toml"
MEASURED = ROOT / "precomputed" / "measured.json"


def lesson_with(tmp_path, **settings):
    """A copy of lesson.toml with settings changed ({"k.max": 3, …}), each key's line replaced in its section."""
    text = LESSON.read_text(encoding="utf-8")
    for name, value in settings.items():
        section, key = name.rsplit(".", 1) if "." in name else (None, name)
        start = text.index(f"[{section}]") if section else 0
        line = re.compile(rf"^{key} = .*$", re.M).search(text, start)
        assert line, name
        text = text[:line.start()] + f"{key} = {json.dumps(value, ensure_ascii=False)}" + text[line.end():]
    path = tmp_path / "lesson.toml"
    path.write_text(text, encoding="utf-8")
    assert set(tomllib.loads(text)) >= {"prompts", "k"}
    return path


def refused(path, key, words):
    with pytest.raises(InputError) as e:
        read_lesson(path)
    assert str(e.value).startswith(f"{path}: {key}: ") and words in str(e.value), str(e.value)


@pytest.mark.parametrize("settings, key, words", [
    ({"k.max": 1, "k.lesson": 1, "k.greedy": [1], "replay.new_tokens": 32}, "k.max", "from 2 to 16, got 1"),
    ({"k.lesson": 4, "replay.new_tokens": 5}, "replay.new_tokens", "make it at least 6"),
    ({"tv.ns": [100, 1000, 10000]}, "tv.ns", "give at least 4"),
    ({"tv.ns": [100, 1000, 5000, 100000]}, "tv.ns", "goes from 1,000 to 5,000"),
    ({"tv.ns": [10, 1000, 10000, 100000]}, "tv.ns", "from 100 to 10,000,000"),
    ({"accounting.new_tokens": 4}, "accounting.new_tokens", "from 8 to 120, got 4"),
    ({"display.top_n": 16}, "display.top_n", "from 2 to 15, got 16"),
])
def test_a_setting_the_page_cannot_speak_of_is_refused_when_read(tmp_path, settings, key, words):
    refused(lesson_with(tmp_path, **settings), key, words)


def test_the_corners_of_the_ranges_are_accepted(tmp_path):
    low = {name: (low if kind == "int" else [low]) for name, (kind, low, _) in SCHEMA.items() if kind != "texts"}
    low.update({"k.greedy": [1], "k.lesson": 1, "replay.new_tokens": 3, "tv.ns": [100, 1000, 10_000, 100_000]})
    assert read_lesson(lesson_with(tmp_path, **low))["k.max"] == 2
    high = {name: (high if kind == "int" else [high]) for name, (kind, _, high) in SCHEMA.items() if kind != "texts"}
    high.update({"tv.ns": [10_000, 100_000, 1_000_000, 10_000_000]})
    assert read_lesson(lesson_with(tmp_path, **high))["k.lesson"] == 16


def test_a_file_that_is_not_utf8_is_refused_by_name(tmp_path):
    path = tmp_path / "lesson.toml"
    path.write_bytes(LESSON.read_text(encoding="utf-8").encode("gb18030"))
    with pytest.raises(InputError) as e:
        read_lesson(path)
    assert str(e.value).startswith(f"{path}: is not UTF-8 text") and "save it as UTF-8" in str(e.value)


def test_e6_choices_none_of_which_fits_are_refused_naming_the_key(data, monkeypatch, tmp_path):
    from generator.pages.widget_payload import e6_payload
    d = copy.deepcopy(data)
    context = d["models"][d["constants"]["target"]]["context"]
    d["constants"]["e6_new_tokens"] = [context - max(d["constants"]["ks"])]
    monkeypatch.setenv("C13_DATA", str(tmp_path / "c13.json"))
    with pytest.raises(InputError) as e:
        e6_payload(d)
    assert e.value.field == "constants.e6_new_tokens" and "e6.new_tokens in precomputed/lesson.toml" in str(e.value)


@pytest.mark.slow("the data stage started as a command, and a regeneration and a site per corner")
def test_the_data_stage_refuses_e6_choices_that_do_not_fit_before_any_work(tmp_path):
    pre = tmp_path / "precomputed"
    shutil.copytree(ROOT / "precomputed", pre, ignore=shutil.ignore_patterns("c13.json", "measured.json", "browser"))
    lesson_with(pre, **{"e6.new_tokens": [120]})
    run = subprocess.run([sys.executable, "-m", "generator", "data", "--quiet", "--precomputed", str(pre)], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert f"{pre / 'lesson.toml'}: e6.new_tokens: is [120]: with k.max = 8 none fits" in run.stderr, run.stderr
    assert not (pre / "c13.json").exists()


# --- measured.json that covers other k, or one draft ----------------------------------------------------------------
@pytest.fixture
def measured():
    return json.loads(MEASURED.read_text(encoding="utf-8"))


def beside(tmp_path, measured):
    (tmp_path / "measured.json").write_text(json.dumps(measured), encoding="utf-8")
    return tmp_path / "c13.json"


def fewer_ks(measured, top):
    m = copy.deepcopy(measured)
    m["ks"] = [k for k in m["ks"] if k <= top]
    m["forward"]["v"] = [r for r in m["forward"]["v"] if r["k"] <= top]
    for draft in m["drafts"]:
        m["speedup"]["drafts"][draft] = [r for r in m["speedup"]["drafts"][draft] if r["k"] <= top]
    for engine in (m.get("browser_forwards") or {}).get("engines", {}).values():
        engine["v"] = [r for r in engine["v"] if r["k"] <= top]
    return m


def test_timings_of_other_k_are_shown_as_stale_and_say_why(data, measured, tmp_path):
    m = fewer_ks(measured, 5)
    assert stale_inputs(m, data) == [KS]
    ctx = measured_context(data, beside(tmp_path, m))
    assert ctx["stale"] == [KS] and not ctx["usable"]
    words = ctx["stale_words"]  # the page's warning picks its words by these (docs/lab.md, stale.kind)
    ks = data["constants"]["ks"]
    assert words["kind"] == "ks" and words["missing_ks"] and "k.max" in words["en"]
    assert (words["timed"], words["ours"]) == ("1…5", f"{ks[0]}…{ks[-1]}")


def test_a_warning_names_measured_json_the_k_and_make_measure(data, measured, tmp_path):
    from generator.cli import warn_stale_measured
    lines = []
    path = beside(tmp_path, fewer_ks(measured, 5))
    assert warn_stale_measured(path, log=lines.append, data=data) == [KS]
    assert "measured.json timed k = 1…5, and c13.json's k are 1…8" in lines[0] and "make measure" in lines[0]


def test_timings_of_one_draft_are_refused_naming_measured_json_and_make_measure(data, measured, tmp_path):
    m = copy.deepcopy(measured)
    gone = m["drafts"].pop()
    for table in (m["models"], m["forward"]["c"], m["speedup"]["drafts"], m.get("torch_overhead") or {}):
        table.pop(gone, None)
    for engine in (m.get("browser_forwards") or {}).get("engines", {}).values():
        engine["c"].pop(gone, None)
        engine["ms_per_forward"].pop(gone, None)
    with pytest.raises(DataError) as e:
        measured_context(data, beside(tmp_path, m))
    assert "measured.json: drafts: times 1 draft" in str(e.value) and "make measure" in str(e.value)
    assert "make data" not in str(e.value)


# --- the best k with measured N --------------------------------------------------------------------------------------
def moved_best(data, draft, at_ratio, best_ratio):
    """The draft's best k with measured N one below its formula's best, with the measured N at that k and at the
    formula's best k the formula's times the given ratios."""
    d = copy.deepcopy(data)
    acc = d["accounting"]["drafts"][draft]
    best = next(r for r in acc["rows"] if r["k"] == acc["best_k"])
    k = acc["best_k"] - 1 if acc["best_k"] > 1 else acc["best_k"] + 1
    at = next(r for r in acc["rows"] if r["k"] == k)
    at["tokens_per_target_forward"] = at["formula"] * at_ratio
    best["tokens_per_target_forward"] = best["formula"] * best_ratio
    acc["measured_best_k"] = k
    return d, k, acc["best_k"]


@pytest.mark.parametrize("at_ratio, best_ratio, case", [(1.05, 1.0, "more"), (1.0, 0.95, "fewer"),
                                                         (1.0, 1.0, "close")])
def test_the_best_k_with_measured_n_says_which_runs_explain_it(data, at_ratio, best_ratio, case):
    small, _ = drafts_by_size(data)
    d, k, best_k = moved_best(data, small, at_ratio, best_ratio)
    why = Claims(d).measured_best(small)
    assert why["case"] == case
    assert why["row"]["k"] == (best_k if case == "fewer" else k)
    assert why["which"] == ("best" if case == "fewer" else "at") and why["best_k"] == best_k


def test_the_first_try_at_the_top_of_the_slider_does_not_ask_for_one_more(data):
    small, _ = drafts_by_size(data)
    d = copy.deepcopy(data)
    d["constants"]["ks"] = [1, 2]
    d["accounting"]["drafts"][small]["best_k"] = 2
    at = Claims(d).try_alpha()
    assert at["k"] == 2 and not at["moved"] and at["case"] == "top"


# --- the corners, regenerated and built ------------------------------------------------------------------------------
QUICK = {"greedy.new_tokens": 4, "replay.new_tokens": 18, "accounting.seeds": [1], "accounting.new_tokens": 16,
         "alpha_positions.new_tokens": 4, "offline.n": 1000, "tv.ns": [100, 1000, 10_000, 100_000], "tv.seeds": 1,
         "prompts": ["孔明曰：「", "卻說曹操"]}
CORNERS = {  # name: (settings, whether measured.json lies beside c13.json)
    "low": ({"k.max": 2, "k.lesson": 1, "k.greedy": [1], "greedy.new_tokens": 1, "replay.new_tokens": 3,
             "replay.seed": 0, "accounting.seeds": [0], "accounting.new_tokens": 8, "alpha_positions.new_tokens": 1,
             "alpha_positions.seed": 0, "offline.seed": 0, "tv.seed": 0, "display.top_n": 2, "display.small_vocab": 2,
             "e2.live_sizes": [100], "e6.new_tokens": [1]}, False),
    "k3": ({"k.max": 3, "k.lesson": 3, "k.greedy": [2, 3]}, True),
    "k10": ({"k.max": 10, "k.greedy": [1, 10], "e6.new_tokens": [16, 117, 118]}, True),
    "high": ({"k.max": 16, "k.lesson": 16, "k.greedy": [16], "replay.new_tokens": 32, "replay.max_tries": 10_000,
              "display.top_n": 15, "display.small_vocab": 16, "e2.live_sizes": [1_000_000],
              "e6.new_tokens": [111, 120], "tv.seeds": 2}, False),
}


@pytest.mark.slow("regenerates the data and builds a site, per corner")
@pytest.mark.parametrize("corner", list(CORNERS))
def test_every_corner_regenerates_and_builds_a_page(tmp_path, corner):
    """`make data` (its summary too) and the build, for settings at the ends of their ranges; the page follows them."""
    settings, with_measured = CORNERS[corner]
    pre = tmp_path / "precomputed"
    shutil.copytree(ROOT / "precomputed", pre, ignore=shutil.ignore_patterns("c13.json", "measured.json", "browser"))
    if with_measured:
        shutil.copy(MEASURED, pre / "measured.json")
    lesson_with(pre, **{**QUICK, **settings})
    lesson = read_lesson(pre / "lesson.toml")
    run = subprocess.run([sys.executable, "-m", "generator", "data", "--quiet", "--precomputed", str(pre)], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    assert f"k = {lesson['k.lesson']}: " in run.stdout  # the summary speaks of the lesson's k
    run = subprocess.run([sys.executable, "-m", "generator", "build", "--data", str(pre / "c13.json"), "--out",
                          str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    data = json.loads((pre / "c13.json").read_text(encoding="utf-8"))
    text = " ".join(page_text(tmp_path / "site" / "index.html").split())
    lab = " ".join(page_text(tmp_path / "site" / "lab.html").split())  # the measured costs and E6
    widgets = json.loads(widget_json((tmp_path / "site" / "lab.html").read_text(encoding="utf-8")))  # E6's, there
    k_max = lesson["k.max"]
    assert data["constants"]["ks"] == list(range(1, k_max + 1)) and data["replay"]["k"] == lesson["k.lesson"]
    assert f"k ∈ 1…{k_max}" in text and f"一次前向算 {lesson['k.lesson'] + 1} 个位置" in text
    context = data["models"][data["constants"]["target"]]["context"]
    assert widgets["e6"]["new_tokens"] == [n for n in lesson["e6.new_tokens"] if n + k_max < context]
    assert widgets["e6"]["ks"] == data["constants"]["ks"]
    if with_measured:  # timed k = 1…8: shown on their own, never combined with these k
        assert ("这些计时的 k 与本页不同" in lab) == (k_max != 8)
        assert "measured.json timed k = 1…8" in run.stderr and "make measure" in run.stderr
    sizes = lesson["e2.live_sizes"]  # E2's prose names the runs its buttons offer (no size typed in prose)
    assert f"再跑 {sizes[0]:,} 轮" in text and f"跑 {sizes[-1]:,} 轮，再复现离线数字" in text
    for word in ("None", "undefined", "nan"):
        assert not re.search(rf"\b{word}\b", text) and not re.search(rf"\b{word}\b", lab), word
