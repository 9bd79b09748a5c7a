"""The README's pointers hold: every path its folder table, its "Where to change what" and its glossary
name is in the tree, every name its glossary quotes is in the source, and every glossary term is used there."""
import re

import pytest

from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
# where a quoted name must occur: the code, the templates, the settings and the make file
CORPUS_GLOBS = ("generator/**/*.py", "generator/**/*.mjs", "generator/**/*.txt", "widgets/**/*.py", "widgets/**/*.js",
                "widgets/**/*.mjs", "widgets/**/*.css", "widgets/**/*.wat", "docs/**/*.md", "precomputed/lesson.toml",
                "Makefile")
QUOTED = re.compile(r"`([^`]+)`")
PATH = re.compile(r"[\w.-]+(?:/[\w.-]+)*/?")


def section(title):
    """The text of the README's section `## title`, up to the next section."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", README, re.S | re.M)
    assert match, f"the README has no section '## {title}'"
    return match.group(1)


def quoted(text):
    return [q for q in QUOTED.findall(text) if not re.search(r"\s", q)]


def paths(text):
    """The quoted repository paths of a text: a quoted word with a slash in it (an address is no path)."""
    return [q for q in quoted(text) if "/" in q and "://" not in q and PATH.fullmatch(q)]


def corpus():
    texts = [p.read_text(encoding="utf-8") for g in CORPUS_GLOBS for p in sorted(ROOT.glob(g))
             if p.is_file() and "node_modules" not in p.parts and "__pycache__" not in p.parts]
    return "\n".join(texts)


def glossary_entries():
    """(terms, text) of each glossary entry: its bold terms and the whole entry."""
    entries = re.split(r"^- ", section("Glossary"), flags=re.M)[1:]
    return [(re.findall(r"\*\*(.+?)\*\*", e.split(":")[0]), e) for e in entries]


@pytest.mark.parametrize("title", ["Layout", "Where to change what", "Glossary"])
def test_every_path_the_section_names_exists(title):
    named = paths(section(title))
    assert len(named) >= 10, named  # the pattern still finds the paths
    missing = sorted({p for p in named if not (ROOT / p).exists()})
    assert not missing, f"README '## {title}' names paths that are not in the tree: {missing}"


def test_the_folder_table_has_one_short_line_per_folder():
    rows = [line for line in section("Layout").splitlines() if line.startswith("| `")]
    assert rows and all(len(row) <= 160 for row in rows), [row[:60] for row in rows if len(row) > 160]
    folders = [q for row in rows for q in paths(row.split(" | ")[0])]
    assert len(folders) == len(set(folders)), folders


def test_every_name_the_glossary_and_the_pointers_quote_is_in_the_source():
    text = corpus()
    names = quoted(section("Glossary")) + quoted(section("Where to change what"))
    lost = sorted({q for q in names if "/" not in q and q not in text and not (ROOT / q).exists()})
    assert not lost, f"the README quotes names the source no longer has (renamed?): {lost}"


def test_every_glossary_term_is_used_in_the_source():
    text = corpus().lower()
    entries = glossary_entries()
    assert len(entries) >= 30
    for terms, entry in entries:
        assert terms, f"a glossary entry without a bold term: {entry[:60]}"
        missing = [t for t in terms if t.lower() not in text]
        assert not missing, f"glossary terms no longer used in the source: {missing}"


def test_the_checks_catch_a_renamed_name_and_a_missing_path():
    assert "mountVerifyMotion" in corpus() and "mountVerify(" not in corpus()
    assert paths("see `widgets/gone.js` and `https://x/y`, not `make site`") == ["widgets/gone.js"]
    assert not (ROOT / "widgets/gone.js").exists()
