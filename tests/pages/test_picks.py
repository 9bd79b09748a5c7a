"""Wordings in the page, decisions in code: a sentence whose wording depends on the data writes every
wording in the lesson's pages (docs/index.md, docs/lab.md), `[% pick NAME %][% case KEY %]…[% endpick %]`
(generator/pages/templates.py Pick), and a decision of generator/pages/decisions.py picks one.

- every pick names a registered decision and writes a wording for each key it can take, and for no other; every
  registered decision is picked somewhere (a guarded sentence that disappears fails here, it is not silenced);
- every alternative of every pick renders, forced one at a time, and reads as a sentence: no doubled or empty
  punctuation that the data's own rendering lacks;
- a key the page has no wording for stops the build, naming the decision, its line and what to add;
- a pick that ends a line keeps the line's end (`+%]`).
Nothing here pins a phrase: reword a case and these tests still pass.
"""
import re

import jinja2
import pytest
from mkdocs.exceptions import PluginError

from generator.pages.decisions import DECISIONS
from generator.pages.templates import make_env, render_page
from tests.pages.test_lesson_values import TEMPLATES, context

NEAR = 3  # lines: how far apart a pick and one nested in it may be written
# punctuation that never follows itself in the page's Chinese: a wording left empty or doubled shows as one of these
BROKEN = re.compile(r"[，、；：。][，、；：。]|（）|（[，。；]|[，；：]）|^\s*[，。；：]", re.M)


def where(template):
    return f"docs/{template.name}"


def picks(template):
    """(line, decision, keys in the order written) of every pick of one page, as the template compiles them."""
    env = make_env()
    env.from_string(template.read_text(encoding="utf-8"))
    return sorted(env.picks_parsed)


def test_every_pick_writes_a_wording_for_every_key_of_its_decision():
    names = set()
    for template in TEMPLATES:
        found = picks(template)
        assert found, f"{where(template)} has no [% pick %]"
        for line, name, keys in found:
            assert name in DECISIONS, f"{where(template)}:{line}: pick {name} is no decision of decisions.py"
            assert sorted(keys) == sorted(DECISIONS[name][0]), f"{where(template)}:{line}: pick {name} writes {keys}"
        names |= {name for _, name, _ in found}
    assert names == set(DECISIONS), "a decision the pages no longer pick by"


def test_a_pick_that_ends_a_line_keeps_the_line_end():
    for template in TEMPLATES:
        source = template.read_text(encoding="utf-8")
        # a line of tags only (a pick's end on a line of its own, as an [% endif %] stands) is no line of text
        ended = [line for line in source.split("\n")
                 if line.endswith("[% endpick %]") and re.sub(r"\[%.*?%\]", "", line)]
        assert ended == [], f"{where(template)}: write [% endpick +%] where a pick ends its line"


def stale_context(data, monkeypatch, tmp_path):
    """The context with the committed measured.json made stale (one draft's checkpoint hash changed): the page shows
    those timings on their own, under the warning whose words a pick chooses."""
    import json
    import shutil
    from generator.pages.context import build_context
    from generator.pages.data_file import DEFAULT_DATA
    folder = tmp_path / "stale"
    folder.mkdir()
    shutil.copy(DEFAULT_DATA, folder / "c13.json")
    measured = json.loads((DEFAULT_DATA.parent / "measured.json").read_text(encoding="utf-8"))
    measured["models"][measured["drafts"][0]]["sha256"] = "f" * 64
    (folder / "measured.json").write_text(json.dumps(measured), encoding="utf-8")
    monkeypatch.setenv("C13_DATA", str(folder / "c13.json"))
    ctx = build_context(data) | {"qa_contact": "—"}
    assert ctx["measured"]["stale"] and ctx["stale"]["kind"] == "models"
    return ctx


@pytest.mark.slow("the pages rendered once per alternative of every decision")
def test_every_alternative_renders_as_a_sentence(data, monkeypatch, tmp_path):
    stale = stale_context(data, monkeypatch, tmp_path)
    ctx = context(data, monkeypatch, tmp_path, "committed")
    assert ctx["timings"] and ctx["wasm_timed"] and ctx["roof_read"], "the committed measured.json is needed for its sentences"
    if not ctx["measured_best_notes"]:  # the note on the best k with measured N, shown for one draft, to reach its picks
        small = ctx["small_draft"]
        acc = dict(ctx["acc_s"], measured_best_k=ctx["replay_k"])
        ctx["measured_best_notes"] = [{"draft": small, "k": ctx["replay_k"], "acc": acc, "row": ctx["row_s"],
                                       "why": ctx["claims"].measured_best(small)}]
    for template in TEMPLATES:
        every_alternative_renders(template, ctx, stale)


def every_alternative_renders(template, ctx, stale):
    """Each pick of one page that the build decides, in each of its cases, with the committed timings and stale ones."""
    source, name_md, at_page = template.read_text(encoding="utf-8"), template.name, where(template)
    env = make_env()
    own = render_page(env, ctx, source, name_md)
    # the committed timings, then stale ones (their warning's picks are reached only there)
    contexts = [(ctx, BROKEN.findall(own)), (stale, BROKEN.findall(render_page(env, stale, source, name_md)))]
    found = [p for p in picks(template) if not p[1].startswith("run.")]  # E6's: decided in the browser (the next test)
    for line, name, keys in found:
        # alone, then under each case of the picks near it (one nested inside another is reached so: the source
        # wraps a sentence over lines, generator/pages/templates.py join_wrapped)
        around = [{}] + [{(at, other): k} for at, other, others in found
                         if abs(at - line) <= NEAR and (at, other) != (line, name) for k in others]
        reached = False
        for outer, c, broken in ((o, c, b) for c, b in contexts for o in around):
            texts = set()
            for key in keys:
                env.forced_picks = {**outer, (line, name): key}
                text = render_page(env, c, source, name_md)
                assert BROKEN.findall(text) == broken, f"{at_page}:{line}: pick {name}, case {key} ({outer})"
                texts.add(text)
            if len(texts) > 1:
                reached = True
                break
        # each pick is reached, and its cases say different things
        assert reached, f"{at_page}:{line}: pick {name} renders alike in every case (or is never reached)"


def test_a_pick_the_browser_decides_writes_every_case_for_it(data, monkeypatch, tmp_path):
    """E6's words (`run.*`, on the lab page): the build decides nothing, every case is in the page, each marked for the
    widget (c13-util.js say keeps the one its run takes); tests/widgets/test_e6_explain.py checks the run can take
    each case."""
    ctx = context(data, monkeypatch, tmp_path, "committed")
    pages = 0
    for template in TEMPLATES:
        live = [(line, name, keys) for line, name, keys in picks(template) if name.startswith("run.")]
        if not live:
            continue
        pages += 1
        html = render_page(make_env(), ctx, template.read_text(encoding="utf-8"), template.name)
        for line, name, keys in live:
            path = name.split(".", 1)[1]
            for key in keys:
                assert f'<span data-pick="{path}" data-case="{key}">' in html, \
                    f"{where(template)}:{line}: {name}, {key}"
        words = html[html.index("<div class=\"c13-words\" data-words"):]
        assert not re.search(r"\[\[|\[%", words) and '<span data-run="' in words
    assert pages == 1, "E6's words are not on one page of the lesson"


def test_a_key_without_its_wording_stops_the_build_naming_the_decision():
    env = make_env()
    source = "甲。\n它[% pick x.level %][% case tiny %]很小[% case far %]远小于 α[% endpick %]。\n"
    assert env.from_string(source).render(x={"level": "far"}) == "甲。\n它远小于 α。\n"
    with pytest.raises(PluginError) as e:
        render_page(env, {"x": {"level": "below"}}, source, "index.md")
    message = str(e.value)
    assert "index.md: line 2" in message and "x.level" in message and "'below'" in message
    assert "[% case below %]" in message
    with pytest.raises(PluginError, match="'x' is undefined"):
        render_page(env, {}, source, "index.md")


@pytest.mark.parametrize("source, words", [
    ("[% pick x %]前言[% case a %]甲[% endpick %]", "only [% case KEY %] branches may follow"),
    ("[% pick x %][% case a %]甲[% case a %]乙[% endpick %]", "the case a is written twice"),
    ("[% pick x %][% endpick %]", "write each wording after [% case KEY %]"),
])
def test_a_malformed_pick_is_refused_with_what_to_write(source, words):
    with pytest.raises(jinja2.TemplateSyntaxError) as e:
        make_env().from_string(source)
    assert words in str(e.value)


def test_the_context_command_lists_every_decision_with_its_keys_and_this_datas_choice(data, monkeypatch, tmp_path):
    from generator.pages import context_info
    from generator.pages.claims import Claims
    from generator.pages.data_file import DEFAULT_DATA
    monkeypatch.setenv("C13_DATA", str(DEFAULT_DATA))
    listed = {e["name"]: e for e in context_info.describe(data)["decisions"]}
    assert set(listed) == set(DECISIONS)
    for name, e in listed.items():
        assert e["keys"] == list(DECISIONS[name][0]) and e["doc"]
        assert e["value"] in (*e["keys"], "—"), name
    assert listed["naive.level"]["value"] == Claims(data).naive()["level"]
    assert "措辞的决定" in context_info.text(context_info.describe(data))
