"""The template computes nothing: the values the lesson's pages (docs/index.md, docs/lab.md) read are named and derived
in Python (generator/pages/lesson_values.py, papers_table.py, evolution.py), each checked here against a recomputation,
and every wording the templates choose is a pick, rendered in each of its cases by tests/pages/test_picks.py.

Expectations are worked out from the data or from made-up inputs, never typed from the models.
"""
import copy
import math
import re

import pytest
from markupsafe import Markup

from generator.pages import evolution, lesson_values, papers_table
from tests.sitelib import ROOT, drafts_by_size

TEMPLATE = ROOT / "docs" / "index.md"
LAB = ROOT / "docs" / "lab.md"  # the measurement lab: the build machine's costs, the roofline, E6
TEMPLATES = (TEMPLATE, LAB)  # the lesson's pages, one template each
# docs/index.md once held 214 statement openings (then the whole lesson); at most half of them may remain in the
# lesson, now split over TEMPLATES
MAX_STATEMENTS = 214 // 2


@pytest.fixture
def d(data):
    return copy.deepcopy(data)


def context(data, monkeypatch, tmp_path, measured="none"):
    """build_context over `data` with no measured.json (measured="none": c13.json is taken to live in an empty
    folder) or with the committed one beside it ("committed")."""
    from generator.pages.context import build_context
    from generator.pages.data_file import DEFAULT_DATA
    monkeypatch.setenv("C13_DATA", str(tmp_path / "c13.json" if measured == "none" else DEFAULT_DATA))
    return build_context(data) | {"qa_contact": "—"}


def render(ctx):
    from generator.pages.templates import make_env, render_page
    return render_page(make_env(), ctx, TEMPLATE.read_text(encoding="utf-8"), "index.md")


def sources():
    """The lesson's templates, one text."""
    return "\n".join(t.read_text(encoding="utf-8") for t in TEMPLATES)


def test_at_most_half_the_statements_remain_and_no_set_computes():
    source = sources()
    # a pick's tags hold wordings, not code: they are not counted
    statements = len(re.findall(r"\[%(?! (?:pick|case|endpick)\b)", source))
    assert statements <= MAX_STATEMENTS, f"{statements} statements in docs/index.md and docs/lab.md"
    # the sets that remain capture prose (a figure's caption, a number of the evolution map), never an expression
    assert re.findall(r"\[% set [^%]*=", source) == []
    kept = set(re.findall(r"\[% set (\w+) %\]", source))
    assert kept <= {"caption", "drove_batching", "drove_speculation", "drove_self_drafting", "drove_quantization"}


def test_every_named_value_is_read_by_the_template(data, monkeypatch, tmp_path):
    from generator.pages.blanks import BLANKS
    source = sources() + "\n".join(expr for expr, _ in BLANKS.values())
    named = lesson_values.values(context(data, monkeypatch, tmp_path))
    unused = [name for name in named if not re.search(rf"\b{name}\b", source)]  # in the page or through a blank
    assert unused == [], f"lesson_values.py names values no template reads: {unused}"


def test_the_named_values_follow_the_data(data, monkeypatch, tmp_path):
    small, large = drafts_by_size(data)
    ctx = context(data, monkeypatch, tmp_path)
    main = data["replay"]["prompt"]
    off = data["offline"]["results"][main][small]
    assert ctx["replay_k"] == data["replay"]["k"] and ctx["k_max"] == max(data["constants"]["ks"])
    assert ctx["row_s"]["k"] == ctx["row_l"]["k"] == data["replay"]["k"]
    assert ctx["row_l_max"] is next(r for r in data["accounting"]["drafts"][large]["rows"] if r["k"] == ctx["k_max"])
    assert ctx["noise_ratio"] == off["resample_p"]["tv"] / off["direct"]["tv"]
    assert ctx["same_size"] == (abs(off["correct"]["tv"] - off["direct"]["tv"]) < off["direct"]["tv"] / 2)
    anchor = data["anchor"]
    assert math.isclose(ctx["bytes_per_param"] * anchor["params_read_per_token"], anchor["bytes_read_per_token"])
    assert ctx["v_anchor"] > 1
    assert ctx["greedy_runs"] == len(data["prompts"]) * 2 * len(data["greedy"]["ks"])
    assert [t["draft"] for t in ctx["e5_tables"]] == [small, large]
    for t in ctx["e5_tables"]:
        acc = data["accounting"]["drafts"][t["draft"]]
        assert [r["k"] for r in t["rows"]] == [r["k"] for r in acc["rows"]]
        assert [r["k"] for r in t["rows"] if r["best"]] == [acc["best_k"]]
        for mine, theirs in zip(t["rows"], acc["rows"]):
            assert mine["half"] == (theirs["alpha_high"] - theirs["alpha_low"]) * 50
            assert (mine["rate"], mine["n"], mine["speedup_n"]) == (
                theirs["acceptance_rate"], theirs["tokens_per_target_forward"], theirs["measured_speedup"])
    assert [m["name"] for m in ctx["model_rows"]] == [data["constants"]["target"], small, large]
    assert ctx["model_rows"][0]["ratio"] is None and ctx["model_rows"][1]["ratio"] == data["models"][small]["ratio_to_target"]
    assert [(r["prefix"], r["draft"]) for r in ctx["e2_rows"]] == [(p, dr) for p in ctx["prefixes"] for dr in (small, large)]
    for r in ctx["e2_rows"]:
        off_r = data["offline"]["results"][r["prefix"]][r["draft"]]
        assert (r["correct"], r["direct"], r["resample"]) == (off_r["correct"]["tv"], off_r["direct"]["tv"],
                                                               off_r["resample_p"]["tv"])
        assert r["closed"] == data["distributions"][r["prefix"]]["tv_resample_p_closed_form"][r["draft"]]
    assert [r["small"] for r in ctx["naive_rows"]] == [data["distributions"][p]["sum_pq"][small] for p in ctx["prefixes"]]
    assert ctx["anchor_k"] == anchor["positions_verified"] - 1
    assert ctx["leviathan_small"]["what"] == "T5-small draft"
    assert ctx["timings"] is None and ctx["wasm_timed"] is None and ctx["k_last"] is None  # no measured.json beside the data


def test_the_tv_falls_are_ratios_of_the_geometric_means():
    curve = {"ns": [10, 100, 1000, 10000, 100000]}
    means = {"direct": [0.8, 0.5, 0.3, 0.1, 0.01], "correct": [0.9, 0.6, 0.2, 0.1, 0.02]}
    falls = lesson_values.tv_falls(curve, means)
    assert falls["small_n"]["direct"] == 0.8 / 0.3 and falls["small_n"]["n_grew"] == 100
    assert falls["large_n"]["correct"] == 0.2 / 0.02 and falls["large_n"]["n_from"] == 1000
    assert falls["large_n"]["sqrt_n_grew"] == 10


def test_the_best_k_is_robust_only_when_both_ends_of_the_interval_agree():
    acc = {"a": {"c": 0.1, "best_k": 3, "alpha_low": 0.5, "alpha_high": 0.6}}
    assert lesson_values.robust_best_k(acc, lambda a, c: {"k": 3})
    assert not lesson_values.robust_best_k(acc, lambda a, c: {"k": 3 if a < 0.55 else 4})


def test_a_note_is_made_only_for_a_draft_whose_measured_best_k_differs():
    rows = {("a", 2): {"alpha_low": 0.4, "alpha_high": 0.6, "speedup": 1.5},
            ("b", 5): {"alpha_low": 0.7, "alpha_high": 0.8, "speedup": 1.25}}
    acc = {"a": {"best_k": 3, "measured_best_k": 2, "alpha": 0.5, "measured_best_speedup": 1.75},
           "b": {"best_k": 4, "measured_best_k": 5, "alpha": 0.5, "measured_best_speedup": 1.5},
           "c": {"best_k": 4, "measured_best_k": 4, "alpha": 0.5, "measured_best_speedup": 1.0}}
    notes = lesson_values.measured_best_notes(acc, ["a", "b", "c"], lambda draft, k: rows[(draft, k)])
    assert [(n["draft"], n["k"], n["inside"]) for n in notes] == [("a", 2, True), ("b", 5, False)]
    assert [(n["speedup"], n["pooled"]) for n in notes] == [(1.75, 1.5), (1.5, 1.25)]
    shown = {"tokens_per_target_forward": 2.5, "formula": 2.25, "acceptance_rate": 0.5, "alpha_low": 0.4,
             "alpha_high": 0.6}
    note = lesson_values.measured_best_notes(acc, ["a"], lambda draft, k: rows[(draft, k)],
                                             lambda draft: {"row": shown})[0]
    assert (note["n"], note["n_formula"], note["rate"], note["low"], note["high"]) == (2.5, 2.25, 0.5, 0.4, 0.6)


def test_the_measured_names_are_none_without_usable_timings():
    base = {"small_draft": "s", "large_draft": "l"}
    assert set(lesson_values.measured_values(base | {"measured": None}, 8, 3).values()) == {None}
    stale = {"usable": False, "small": "s2", "large": "l2", "ks": [1, 4], "browser": None,
             "target_ms": {"median": 8.0}, "v": {1: {"median": 1.5}, 4: {"median": 3.0}}, "target_bytes": 3_000_000,
             "by_draft": {"s2": {"rows": [], "ms": {"median": 2.0}}, "l2": {"rows": [], "ms": {"median": 4.0}}}}
    named = lesson_values.measured_values(base | {"measured": stale}, 8, 3)
    assert named["timings"] is None and named["wasm_timed"] is None and named["timed_small"] is stale["by_draft"]["s2"]
    assert named["k_last"] == 4  # stale timings are still shown, by the timed drafts' own sizes
    assert named["timed_c"] == {"small": 0.25, "large": 0.5} and named["timed_v_first"] == 1.5
    assert named["timed_target_mb"] == 3.0


def paper(figures, **more):
    return {"work": "W <&>", "setting_zh": "设定", "figures": figures, **more}


def test_the_papers_rows_say_what_each_figure_is():
    rows = papers_table.papers_rows([
        paper([{"what_zh": "范围", "low": 1.4, "high": 3.4, "unit": "×", "where_zh": "表 2"},
               {"what_zh": "接受率", "low": 0.85, "high": 0.9, "unit": "rate", "where_zh": "§1"},
               {"what_zh": "草稿", "alpha": 0.75, "speedup": 3.4, "unit": "×", "where_zh": "表 2"}]),
        paper([], also="the proof (§5.4.2)", also_zh="证明"),
        paper([])]).split("\n")
    assert len(rows) == 5 and all(r.startswith("| ") and r.endswith(" |") for r in rows)
    assert rows[0].startswith("| W &lt;&amp;&gt; | 范围：") and 'data-kind="reported"' in rows[0] and "1.4–3.4×" in rows[0]
    assert rows[1].startswith("| 〃 | 接受率：85%～90% | 〃 |")
    assert "α = 0.75，加速 " in rows[2] and rows[2].count('data-kind="reported"') == 1
    assert rows[3].endswith("| （没有可引用的数字） | 设定；证明 | §5.4.2 |")
    assert rows[4].endswith("| （没有可引用的数字） | 设定 | — |")


def test_the_evolution_map_marks_this_lesson_once_and_takes_every_number():
    keys = {key for _, _, key in evolution.GENERATIONS if key}
    numbers = {key: Markup(f"<b>{key}</b>") for key in keys}
    html = evolution.evolution_map(**numbers)
    assert html.count("<li") == len(evolution.GENERATIONS) and html.count('aria-current="step"') == 1
    assert all(f"相关的数字：<b>{key}</b>" in html for key in keys)
    items = html.split("<li")[1:]
    assert 'aria-current="step"' in items[evolution.here_position() - 1]
    with pytest.raises(KeyError, match="expected the numbers"):
        evolution.evolution_map(**{k: v for k, v in numbers.items() if k != "batching"})
    with pytest.raises(KeyError):
        evolution.evolution_map(**numbers, extra="x")


def test_every_named_value_says_what_it_is(data, monkeypatch, tmp_path):
    from generator.pages.context_info import describe
    named = lesson_values.values(context(data, monkeypatch, tmp_path))
    assert sorted(named) == sorted(lesson_values.ABOUT)
    listed = {v["name"]: v["where"] for v in describe(data)["variables"]}
    # a value that is a part of c13.json is named by its path there; the others by their line in ABOUT
    assert all(name in listed and (listed[name].startswith("c13.json") or lesson_values.ABOUT[name] in listed[name])
               for name in named if not callable(named[name]))


def test_the_page_hands_the_evolution_map_its_numbers_by_name():
    from generator.pages.templates import make_env
    keys = sorted({key for _, _, key in evolution.GENERATIONS if key})
    sets = "".join(f"[% set drove_{key} %]<b>{key}</b>[% endset %]" for key in keys)
    html = make_env().from_string(sets + "[[ evolution_map() ]]").render(evolution_map=evolution.evolution_map_of_page)
    assert all(f"相关的数字：<b>{key}</b>" in html for key in keys)
    with pytest.raises(KeyError, match=f"drove_{keys[0]}"):
        make_env().from_string(sets.split("[% endset %]", 1)[1] + "[[ evolution_map() ]]").render(
            evolution_map=evolution.evolution_map_of_page)


def test_a_wrapped_line_of_chinese_is_joined_back_and_nothing_else():
    from generator.pages.templates import join_wrapped
    assert join_wrapped("甲乙。\n丙丁，\n    戊己") == "甲乙。丙丁，戊己"  # one sentence a line, list items indented
    assert join_wrapped("甲。\n**乙**丙") == "甲。**乙**丙"
    for kept in ("甲。\n\n乙", "甲。\n- 乙", "甲。\n| 乙 |", "甲。\n<div>", "ab\ncd", "甲\n12 个", "12\n甲"):
        assert join_wrapped(kept) == kept


def test_the_note_on_the_best_k_with_measured_n_is_a_paragraph_of_its_own(data, monkeypatch, tmp_path):
    from generator.pages.formats import C_PARAMS_N
    ctx = context(data, monkeypatch, tmp_path, "committed")
    small = ctx["small_draft"]
    acc = dict(ctx["acc_s"], measured_best_k=ctx["replay_k"], measured_best_speedup=1.5)
    ctx["measured_best_notes"] = lesson_values.measured_best_notes({small: acc}, [small], ctx["row"],
                                                                   ctx["claims"].measured_best)
    md = render(ctx)
    at = md.index(C_PARAMS_N)  # the note's first speed figure, in its first sentence
    assert "。" not in md[md.rindex("\n\n", 0, at) + 2:at], "the note runs on from the paragraph before it"
