"""The page's blanks: a short name for each value the page prints, written once in
generator/pages/blanks.py with the path it reads and what it is; the page source reads as prose, its blanks and
statements short and computing nothing."""
import re

import jinja2
import pytest
from jinja2 import meta

from generator.pages import blanks, figure_table
from tests.sitelib import ROOT

PAGES = [ROOT / "docs" / "index.md", ROOT / "docs" / "lab.md", ROOT / "docs" / "provenance.md"]
LESSON = PAGES[:2]  # the lesson and its measurement lab
MAX_BLANK = 40  # no blank or decision over 40 characters
NAME = r"[A-Za-z_]\w*"
# a path: names, attributes and subscripts by a name, a path or an integer; `| length` at the end at most
PATH = re.compile(rf"{NAME}(\.{NAME}|\[(-?\d+|{NAME}(\.{NAME})*(\[(\d+|{NAME})\])?)\])*( \| length)?")
FIGURE_CALL = re.compile(rf"({NAME})\(({NAME}(, {NAME})*)?\)")


def context(data, monkeypatch, measured):
    from generator.pages.context import build_context
    from generator.pages.data_file import DEFAULT_DATA
    monkeypatch.setenv("C13_DATA", str(DEFAULT_DATA) if measured else "/nonexistent/c13.json")
    return build_context(data)


def test_every_blank_is_a_path_or_a_figure_and_says_what_it_is():
    accessors = {f.accessor for f in figure_table.FIGURES}
    for name, (expr, about) in blanks.BLANKS.items():
        call = FIGURE_CALL.fullmatch(expr)
        assert PATH.fullmatch(expr) or (call and call.group(1) in accessors), f"{name}: {expr} computes"
        assert about and len(name) <= 24, name


def test_every_blank_is_read_by_a_page():
    from generator.pages.templates import make_env
    env = make_env()
    read = set()
    for page in PAGES:
        read |= meta.find_undeclared_variables(env.parse(page.read_text(encoding="utf-8")))
    assert sorted(set(blanks.BLANKS) - read) == []


def test_every_blank_has_a_value_with_the_committed_data_and_timings(data, monkeypatch):
    ctx = context(data, monkeypatch, measured=True)
    assert [name for name in blanks.BLANKS if isinstance(ctx[name], jinja2.Undefined)] == []
    # a blank is the value its path reads, not a copy
    assert ctx["naive_small"] == data["distributions"][data["replay"]["prompt"]]["sum_pq"][ctx["small_draft"]]
    assert ctx["read_ms"] == data["anchor"]["weight_read_ms_per_token"]
    assert ctx["tv_seeds"] == len(data["tv_curve"]["seeds"][data["tv_curve"]["schemes"][0]])


def test_a_blank_without_a_value_fails_only_where_printed_naming_itself(data, monkeypatch):
    from generator.pages.templates import make_env
    ctx = context(data, monkeypatch, measured=False)
    assert isinstance(ctx["timed_date"], jinja2.Undefined) and isinstance(ctx["timed_prompts"], jinja2.Undefined)
    assert make_env().from_string("[% if measured %][[ timed_date ]][% endif %]ok").render(ctx) == "ok"
    for source in ("[[ timed_date ]]", "[[ timed_prompts | num ]]"):
        with pytest.raises(jinja2.UndefinedError, match=r"the blank 'timed_\w+' \(measured\..*blanks\.py"):
            make_env().from_string(source).render(ctx)


def test_a_blank_may_not_take_a_name_the_context_has(data, monkeypatch):
    monkeypatch.setitem(blanks.BLANKS, "target", ("anchor.model", "a clash"))
    with pytest.raises(KeyError, match=r"blanks\.py: target already"):
        context(data, monkeypatch, measured=False)


def test_the_context_listing_names_each_blank_with_what_it_is(data):
    from generator.pages.context_info import describe
    listed = {v["name"]: v["where"] for v in describe(data)["variables"]}
    for name, (expr, about) in blanks.BLANKS.items():  # a part of c13.json itself is listed by its path there
        assert name in listed and (about in listed[name] and expr in listed[name] or listed[name].startswith(
            "c13.json → ")), name


@pytest.mark.parametrize("page", LESSON, ids=lambda p: p.name)
def test_the_lesson_source_has_short_blanks_and_statements_that_compute_nothing(page):
    source = re.sub(r"\[#.*?#\]", "", page.read_text(encoding="utf-8"), flags=re.S)
    tags = re.findall(r"\[\[(.*?)\]\]|\[%(.*?)%\]", source, flags=re.S)
    inner = [(a or b).strip(" +-") for a, b in tags]
    assert inner and [t for t in inner if len(t) > MAX_BLANK] == []
    unquoted = [re.sub(r'"[^"]*"', '""', t) for t in inner]
    computing = [t for t in unquoted if re.search(r"[*/~]| [-+] |\bif\b.*\belse\b| [=!<>]=? ", t)]
    assert computing == []
