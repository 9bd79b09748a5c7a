"""The page's comparisons and conclusions (generator/pages/claims.py): altered copies of c13.json give the
wording their numbers call for, or stop the build naming the check, its page of docs/ and line, and the numbers.

The alterations move the figures a sentence rests on (a large draft faster than the small one, the best k at the
edge of the range, two figures that print alike, a bound above the cost); every expectation is worked out from the
altered numbers, never typed.
"""
import copy
import math

import pytest

from generator.pages import claims
from generator.pages.claims import ClaimError, Claims, order, speedup
from tests.sitelib import ROOT, drafts_by_size


# every page of docs/ by name (sorted as claims.page_lines names them), its lines
PAGES = {page.name: page.read_text(encoding="utf-8").split("\n") for page in sorted((ROOT / "docs").glob("*.md"))}


@pytest.fixture
def d(data):
    return copy.deepcopy(data)


def names_its_place(e, check, numbers, reads=None):
    """The ClaimError `e` names the check, each page of docs/ with the lines that call it (or, for a helper, that read
    its result as `reads`), as "docs/index.md line 3" or "docs/index.md lines 3, 9; docs/lab.md line 2", and each of
    the numbers. Returns {page: its lines}."""
    text = str(e.value)
    found = {name: [i for i, line in enumerate(lines, 1) if (reads or f"claims.{check}(") in line]
             for name, lines in PAGES.items()}
    found = {name: lines for name, lines in found.items() if lines}
    assert found and f"claims.{check}()" in text
    place = "; ".join(f"docs/{name} line{'s' * (len(lines) > 1)} {', '.join(map(str, lines))}"
                      for name, lines in found.items())
    assert f" at {place})" in text, f"{text!r} does not name {place!r}"
    assert all(repr(n) in text for n in numbers)
    return found


def set_accounting(data, draft, alpha, c):
    """The draft's pooled α and c, and every row's formula figures and best k as the data stage derives them."""
    acc = data["accounting"]["drafts"][draft]
    acc["alpha"], acc["c"] = alpha, c
    for r in acc["rows"]:
        r["formula"] = sum(alpha ** i for i in range(r["k"] + 1))
        r["speedup"] = speedup(alpha, c, r["k"])
        r["tokens_per_target_forward"], r["measured_speedup"] = r["formula"], r["speedup"]  # runs as the formula says
    best = max(acc["rows"], key=lambda r: (r["speedup"], -r["k"]))
    acc["best_k"], acc["best_speedup"] = best["k"], best["speedup"]
    acc["measured_best_k"], acc["measured_best_speedup"] = best["k"], best["speedup"]


def test_figures_that_print_alike_are_neither_larger_nor_smaller():
    assert order(1.0349, 1.0301, "times") == "same"
    assert order(1.036, 1.0301, "times") == "more"
    assert order(0.5504, 0.5496, "pct") == "same" and order(0.551, 0.549, "pct") == "more"


def test_the_committed_data_reads_as_the_page_says(data):
    small, large = drafts_by_size(data)
    c = Claims(data)
    acc = data["accounting"]["drafts"]
    assert c.large_at_k_max()["case"] == ("slower" if acc[large]["best_k"] != max(data["constants"]["ks"]) else "best")
    assert c.bigger_draft()["best"]["larger"] == order(acc[large]["best_speedup"], acc[small]["best_speedup"], "times")
    assert c.script() == {**c.script(), "han": True}


def test_a_large_draft_faster_than_the_small_one_is_not_called_the_worse(d):
    small, large = drafts_by_size(d)
    set_accounting(d, large, alpha=0.95, c=d["accounting"]["drafts"][large]["c"])
    c = Claims(d)
    acc = d["accounting"]["drafts"]
    assert acc[large]["best_speedup"] > acc[small]["best_speedup"]
    assert c.bigger_draft()["best"]["larger"] == "more"
    # at α = 0.95 the best k of the large draft is the largest one: the fourth try may not ask why it slows down
    k_max = max(d["constants"]["ks"])
    assert acc[large]["best_k"] == k_max
    assert c.large_at_k_max()["case"] == "best"
    assert c.slow_at_k_max(large)["say"] is False  # «到 k = k_max 时是 …» would repeat its best
    sd = c.self_drafting()
    assert sd["case"] == "plain" and sd["best_draft"] == large  # not «还会拖慢», not «不如» itself


def test_a_slowdown_is_explained_by_the_bound_only_when_the_bound_is_below_the_cost(d):
    small, large = drafts_by_size(d)
    k_max = max(d["constants"]["ks"])
    c_large = d["accounting"]["drafts"][large]["c"]
    for alpha in (0.5, 0.62, 0.7, 0.75, 0.8):
        set_accounting(d, large, alpha=alpha, c=c_large)
        big = Claims(d).large_at_k_max()
        if big["case"] != "slower":
            continue
        assert big["bounded"] == (round(1 / (1 - alpha), 2) < round(c_large * k_max + 1, 2))
        assert big["yield"] / big["yield_best"] < big["cost"] / big["cost_best"]  # «多猜的几个抵不上多花的前向»
    set_accounting(d, large, alpha=0.75, c=c_large)  # a retrained family's case: bound 4.0 above cost 3.30
    assert 1 / (1 - 0.75) > c_large * k_max + 1 and Claims(d).large_at_k_max()["bounded"] is False


def test_the_evolution_map_says_slows_only_below_one(d):
    small, large = drafts_by_size(d)
    k_max = max(d["constants"]["ks"])
    c_large = d["accounting"]["drafts"][large]["c"]
    for alpha in (0.3, 0.6, 0.7, 0.8):
        set_accounting(d, large, alpha=alpha, c=c_large)
        r = next(r for r in d["accounting"]["drafts"][large]["rows"] if r["k"] == k_max)
        case = Claims(d).self_drafting()["case"]
        assert (case == "slows") == (float(f"{r['speedup']:.2f}") < 1)
        slow = Claims(d).slowest()
        assert slow["below_one"] == (float(f"{slow['speedup']:.2f}") < 1)


def test_the_timed_wall_clock_also_decides_slows(d):
    small, large = drafts_by_size(d)
    k_max = max(d["constants"]["ks"])
    set_accounting(d, large, alpha=0.3, c=d["accounting"]["drafts"][large]["c"])
    rows = {dr: [{"k": k, "measured": {"median": 1.2}} for k in d["constants"]["ks"]] for dr in (small, large)}
    measured = {"usable": True, "by_draft": {dr: {"rows": rows[dr]} for dr in rows}}
    assert Claims(d).self_drafting()["case"] == "slows"
    sd = Claims(d, measured).self_drafting()
    assert sd["case"] != "slows" and sd["wall"] == 1.2
    assert "wall" not in Claims(d, measured).bigger_draft()  # misconception 2 speaks of the formula only


def test_the_interval_is_said_wider_than_the_spread_only_when_it_is(d):
    small, large = drafts_by_size(d)
    k = d["replay"]["k"]
    c = Claims(d)
    r = c.row(small, k)
    noise = c.alpha_noise(k)
    assert noise["wider"] == (noise["width"] > noise["spread"])
    assert noise["case"] == ("wider" if noise["wider"] else "narrower")
    acc = d["accounting"]["drafts"][small]
    acc["alpha_k_min"], acc["alpha_k_max"] = r["alpha_low"] - 0.01, r["alpha_high"] + 0.01
    assert Claims(d).alpha_noise(k)["case"] == "narrower"
    r["alpha_low"], r["alpha_high"] = acc["alpha_k_min"] - 0.02, acc["alpha_k_max"] + 0.02
    d["accounting"]["drafts"][large]["alpha_k_min"] = d["accounting"]["drafts"][large]["alpha_k_max"] - 0.01
    assert Claims(d).alpha_noise(k)["case"] == "wider"


def test_the_first_try_drags_alpha_up_and_says_whether_the_best_k_moved(d):
    small, _ = drafts_by_size(d)
    c_small = d["accounting"]["drafts"][small]["c"]
    set_accounting(d, small, alpha=0.85, c=c_small)
    t = Claims(d).try_alpha()
    assert t["alpha"] > 0.85 and t["alpha"] == 0.9
    assert t["case"] == ("later" if t["k"] > d["accounting"]["drafts"][small]["best_k"] else
                         "earlier" if t["moved"] else "top" if t["k"] == max(d["constants"]["ks"]) else "same")
    set_accounting(d, small, alpha=0.97, c=c_small)
    with pytest.raises(ClaimError) as e:
        Claims(d).try_alpha()
    names_its_place(e, "try_alpha", [0.97, *claims.TRY_ALPHAS], reads="try_alpha")
    set_accounting(d, small, alpha=0.79, c=1.0)  # so costly that k = 1 stays best at any α: «还是 k = 1»
    t = Claims(d).try_alpha()
    assert t["moved"] is False and t["k"] == d["accounting"]["drafts"][small]["best_k"]
    assert t["case"] == ("top" if t["k"] == max(d["constants"]["ks"]) else "same")


def test_the_naive_scheme_is_called_tiny_only_when_it_is(d):
    n = Claims(d).naive()
    assert n["level"] == "tiny" and n["waste"] == "none"
    for entry in d["distributions"].values():
        for draft in entry["sum_pq"]:
            entry["sum_pq"][draft] = entry["alpha"][draft] * 0.4
    n = Claims(d).naive()
    assert n["level"] == "far" and n["waste"] == ("most" if n["max"] < 0.5 else "more")
    for entry in d["distributions"].values():
        for draft in entry["sum_pq"]:
            entry["sum_pq"][draft] = entry["alpha"][draft] * 0.9
    n = Claims(d).naive()
    assert n["level"] == "below" and n["waste"] == ("most" if n["max"] < 0.5 else "more")


def test_a_contradicted_sentence_stops_the_build_naming_it_and_its_numbers(d):
    small, _ = drafts_by_size(d)
    main = d["replay"]["prompt"]
    deficit = d["distributions"][main]["resample_p_deficit"][small]
    deficit["q"] = deficit["p"] * 2
    with pytest.raises(ClaimError) as e:
        Claims(d).check_deficit()
    names_its_place(e, "check_deficit", [deficit["p"], deficit["q"], deficit["output"]])
    d["anchor"]["compute_ms_for_positions"] = d["anchor"]["weight_read_ms_per_token"]
    with pytest.raises(ClaimError) as e:
        Claims(d).check_anchor()
    names_its_place(e, "check_anchor", [d["anchor"]["weight_read_ms_per_token"]])
    d["tokenizer"]["vocab_size"] = d["anchor"]["vocab_size"] + 1
    with pytest.raises(ClaimError) as e:
        Claims(d).check_vocab_between()
    names_its_place(e, "check_vocab_between", [d["tokenizer"]["vocab_size"], d["anchor"]["vocab_size"]])


def test_the_measured_costs_sentences_are_checked(d):
    small, large = drafts_by_size(d)
    ks = d["constants"]["ks"]
    mc = {"usable": True, "ks": ks, "small": small, "by_draft": {small: {"c": {"median": 0.6}, "c_params": 0.09}},
          "v": {k: {"median": 1 + 0.1 * k} for k in ks}, "summary": {"below_one": 16, "rows": 16}}
    assert Claims(d).check_measured_costs(mc) == ""
    mc["by_draft"][small]["c"]["median"] = 0.1
    with pytest.raises(ClaimError, match="parameter ratio") as e:
        Claims(d).check_measured_costs(mc)
    names_its_place(e, "check_measured_costs", [0.1, 0.09])
    mc["by_draft"][small]["c"]["median"] = 0.6
    mc["v"][max(ks)]["median"] = mc["v"][min(ks)]["median"]
    with pytest.raises(ClaimError, match="does not grow") as e:
        Claims(d).check_measured_costs(mc)
    names_its_place(e, "check_measured_costs", [mc["v"][min(ks)]["median"]])
    mc["v"][max(ks)]["median"] = 2.0
    mc["summary"]["below_one"] = 3
    with pytest.raises(ClaimError, match="at least 1×") as e:
        Claims(d).check_measured_costs(mc)
    assert list(names_its_place(e, "check_measured_costs", [3, 16])) == ["lab.md"]  # the measurement lab's sentence


def test_the_note_on_chinese_bytes_needs_byte_tokens_and_chinese_text(d):
    c = Claims(d).script()
    assert c["byte_tokens"] and c["han"] and d["tokenizer"]["labels"][c["example"]].startswith("‹")
    labels = d["tokenizer"]["labels"]
    for i, label in enumerate(labels):  # the same tokens, as if they were English words
        labels[i] = "word" if not label.startswith("‹") else label
    for p in d["prompts"]:
        p["text"] = "The "
    assert Claims(d).script()["han"] is False
    replay = d["replay"]
    replay["tokens"] = [t for t in replay["tokens"] if not labels[t].startswith("‹")]
    replay["prompt_tokens"] = [t for t in replay["prompt_tokens"] if not labels[t].startswith("‹")]
    assert Claims(d).script()["byte_tokens"] is False


def test_the_built_markdown_follows_an_altered_accounting(d, tmp_path, monkeypatch):
    """The template itself: with the large draft's best k at the edge of the range, no sentence compares its best
    with itself or asks why it slows down; with a contradicted sentence, the render fails naming it."""
    from generator.pages.context import build_context
    from generator.pages.templates import make_env, render_page
    from generator.pages.formats import times
    from mkdocs.exceptions import PluginError
    monkeypatch.setenv("C13_DATA", str(tmp_path / "c13.json"))  # no measured.json beside it
    small, large = drafts_by_size(d)
    k_max = max(d["constants"]["ks"])
    set_accounting(d, large, alpha=0.95, c=d["accounting"]["drafts"][large]["c"])
    best = d["accounting"]["drafts"][large]["best_speedup"]
    ctx = build_context(d)
    ctx["qa_contact"] = "—"
    source = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    env = make_env()
    render_page(env, ctx, source, "index.md")
    taken = {}
    for _, name, key in env.picks_taken:
        taken.setdefault(name, set()).add(key)
    assert taken["large_at_k_max.case"] == {"best"}  # it is fastest at the largest k: no asking why it slows down
    assert taken["self_drafting.case"] == {"plain"}  # nor «X, slower than its own best X»
    assert taken["bigger.best.larger"] == {"more"} and taken["bigger.large_k_max.below_one"] == {"no"}
    assert times(best) == times(ctx["large_at_k_max"]["best_speedup"])
    small_row = d["distributions"][d["replay"]["prompt"]]["resample_p_deficit"][small]
    small_row["q"] = small_row["p"] * 3
    with pytest.raises(PluginError) as e:
        render_page(make_env(), build_context(d) | {"qa_contact": "—"}, source, "index.md")
    place = names_its_place(e, "check_deficit", [small_row["p"], small_row["q"], small_row["output"]])
    assert list(place) == ["index.md"]
    line, = place["index.md"]
    assert f"index.md: line {line}: ClaimError" in str(e.value)  # the render's own place, the same line
    assert math.isfinite(best)


def test_the_tv_is_said_to_fall_slower_at_small_n_only_when_every_fall_is_smaller():
    assert Claims.tv_slower([3.1, 2.9], [9.8, 10.1]) is True
    assert Claims.tv_slower([3.1, 10.0], [9.8, 10.1]) is False
    assert Claims.tv_slower([9.84, 2.0], [9.8, 10.1]) is False  # 9.8 against 9.8 as printed


def test_a_naive_acceptance_that_prints_as_alpha_is_not_called_smaller(d):
    entry = next(iter(d["distributions"].values()))
    draft = next(iter(entry["sum_pq"]))
    for e in d["distributions"].values():
        for dr in e["sum_pq"]:
            e["sum_pq"][dr] = e["alpha"][dr] * 0.9
    entry["sum_pq"][draft] = entry["alpha"][draft]
    with pytest.raises(ClaimError) as e:
        Claims(d).naive()
    names_its_place(e, "naive", [entry["alpha"][draft]], reads="naive.level")


def test_the_read_time_of_the_weights_is_the_build_machines_measured_one(d):
    """«读这么大一块内存要 … ms» (the lab page's roofline): the probe's bandwidth from measured.json, never a claim about
    a cache."""
    assert Claims.build_read({"browser": None}, 1000) is None and Claims.build_read({}, 1000) is None
    roof = {"bandwidth_gbs": {"median": 12.5}}
    got = Claims.build_read({"browser": {"roof": roof}}, 25_000_000)
    assert got == {"ms": 25_000_000 / 12.5e6, "bandwidth": 12.5}
    assert "缓存" not in (ROOT / "docs" / "lab.md").read_text(encoding="utf-8").split("受算力或调用开销所限")[1][:400]


def test_the_tv_curves_falling_together_is_checked(d):
    from generator.pages.context import tv_means
    means = tv_means(d["tv_curve"])
    p = d["distributions"][d["tv_curve"]["prefix"]]["p"]
    assert Claims(d).check_tv_together(means) == "" and Claims(d).check_many_small(p) == ""
    rising = copy.deepcopy(means)
    rising["direct"][-1] = rising["direct"][-2] * 1.01
    with pytest.raises(ClaimError, match="does not fall") as e:
        Claims(d).check_tv_together(rising)
    names_its_place(e, "check_tv_together", [rising["direct"][-2:]])
    apart = copy.deepcopy(means)
    apart["correct"] = [2 * v for v in apart["correct"]]
    with pytest.raises(ClaimError, match="times the other") as e:
        Claims(d).check_tv_together(apart)
    names_its_place(e, "check_tv_together", [apart["correct"][0], apart["direct"][0]])
    peaked = [0.0] * len(p)
    peaked[:5] = [0.2] * 5  # five tokens hold everything: none with n·p_i < 1
    with pytest.raises(ClaimError, match="only 0 tokens") as e:
        Claims(d).check_many_small([x for x in peaked if x > 0])
    names_its_place(e, "check_many_small", [0, d["tv_curve"]["ns"][0]])


def test_the_tv_curve_is_called_bias_from_the_first_n_past_the_one_rule(d):
    """By the lesson's one rule (over clear_of_noise × the noise floor): resampling's TV on the curve becomes
    bias at the first n where it passes direct sampling's by that much, recomputed here; never past it, the page says
    so at the largest n."""
    from generator.pages.context import tv_means
    means = tv_means(d["tv_curve"])
    ns, rule = d["tv_curve"]["ns"], claims.CLEAR_OF_NOISE
    first = next((n for n, r, x in zip(ns, means["resample_p"], means["direct"]) if r > rule * x), None)
    assert Claims(d).tv_bias_from(means) == ({"case": "seen", "n": first} if first else {"case": "unseen", "n": ns[-1]})
    flat = copy.deepcopy(means)
    flat["resample_p"] = [x * rule for x in flat["direct"]]  # exactly at the rule: not past it
    assert Claims(d).tv_bias_from(flat) == {"case": "unseen", "n": ns[-1]}
    early = copy.deepcopy(means)
    early["resample_p"][0] = early["direct"][0] * (rule + 0.2)
    assert Claims(d).tv_bias_from(early) == {"case": "seen", "n": ns[0]}


def test_every_check_guards_a_sentence_the_page_still_has():
    """A check whose sentence left the page would guard nothing, silently: each Claims.check_… is called by the
    page, and a helper whose result the page reads is read (decisions.py names them, tests/pages/test_picks.py)."""
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md"))
    checks = [name for name in dir(Claims) if name.startswith("check_")]
    assert checks and [name for name in checks if f"claims.{name}(" not in source] == []
