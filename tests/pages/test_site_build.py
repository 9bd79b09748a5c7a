"""The page stage: a strict build from one validated c13.json, swapped into place; data binding, none typed in.

The site is built once per session (tests/conftest.py `site`: generator.pages.build.build, the page stage behind
`python -m generator build`) from $C13_DATA when set, else from the committed precomputed/c13.json.
"""
import copy
import json
import re
import shutil

import pytest

from generator import contract
from generator.errors import InputError
from generator.pages import formats, hooks
from generator.pages.build import build
from generator.pages.data_file import DataError
from generator.pages.vendor import VENDOR
from tests.sitelib import ROOT, our_pages, page_text, quiet, read, write_data


def test_strict_build_makes_the_pages_and_copies_the_pinned_browser_files(site):
    for name in ("index.html", "lab.html", "provenance.html", "404.html", "search/search_index.json",
                 "search/search_index.js"):
        assert (site / name).is_file(), name
    for _, _, dest in VENDOR:
        assert (site / dest).is_file(), dest
    assert list((site / "assets/vendor/katex/fonts").glob("*.woff2"))
    assert (site / "assets/c13/sampler.py").read_bytes() == (ROOT / "widgets/sampler.py").read_bytes()
    assert not list(site.parent.glob(".site.building-*")), "the temporary build folder was left behind"


def pages_of(site):
    """The text of each page of a built site, by name (the lesson, its lab, provenance, 404)."""
    pages = {p.name: read(p) for p in our_pages(site)}
    assert {"index.html", "lab.html"} <= set(pages)
    return pages


def test_a_failed_build_leaves_the_previous_site_and_names_file_and_key(site, data, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(site, out)
    before = pages_of(out)
    bad = copy.deepcopy(data)
    del bad["models"][next(n for n, m in bad["models"].items() if m["role"] == "target")]["parameters"]
    path = write_data(tmp_path / "bad.json", bad)
    with pytest.raises(InputError) as e:
        build(path, out=out, log=quiet)
    assert str(path) in str(e.value) and ".parameters" in str(e.value)
    assert pages_of(out) == before
    assert not list(tmp_path.glob(".out.building-*"))


def test_schema_version_is_checked_with_a_clear_message(data, tmp_path):
    bad = copy.deepcopy(data)
    bad["schema_version"] = data["schema_version"] + 1
    path = write_data(tmp_path / "c13.json", bad)
    with pytest.raises(DataError, match=rf"c13\.json: schema_version: is {data['schema_version'] + 1}"):
        hooks.load_data(path)
    del bad["anchor"]["compute_ms_per_token"]
    bad["schema_version"] = data["schema_version"]
    write_data(path, bad)
    with pytest.raises(DataError, match=r"anchor\.compute_ms_per_token: missing"):
        hooks.load_data(path)


def test_the_templates_read_the_schema_the_generator_writes():
    from generator.data import provenance
    assert provenance.SCHEMA_VERSION is contract.SCHEMA_VERSION
    assert not (ROOT / "generator/pages/data_checks.py").exists(), "the pages re-declare the contract again"


def test_new_keys_of_the_contract_are_checked(data, tmp_path):
    """constants and distributions[*].resample_p_deficit are part of what the pages may read."""
    prefix = next(iter(data["distributions"]))
    draft = data["constants"]["drafts"][0]
    for drop, named in ((("constants", "top_n"), "constants.top_n"),
                        (("distributions", prefix, "resample_p_deficit", draft, "output"),
                         f"distributions[{prefix}].resample_p_deficit.{draft}.output")):
        bad = copy.deepcopy(data)
        node = bad
        for key in drop[:-1]:
            node = node[key]
        del node[drop[-1]]
        path = write_data(tmp_path / "c13.json", bad)
        with pytest.raises(DataError) as e:
            hooks.load_data(path)
        assert f"{named}: missing" in str(e.value)
    for key, value, named in (("target", draft, "constants.target"), ("ks", [1, 2], f"accounting.drafts.{draft}.rows"),
                              ("greedy_ks", [3], "greedy.ks")):
        bad = copy.deepcopy(data)
        bad["constants"][key] = value
        with pytest.raises(InputError, match=re.escape(named)):
            contract.validate(contract.seal(bad), tmp_path / "c13.json")


def test_a_hand_edited_file_is_refused_with_what_to_do(site, data, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(site, out)
    before = pages_of(out)
    edited = copy.deepcopy(data)
    edited["greedy"]["identical"] = data["greedy"]["identical"] - 1
    path = write_data(tmp_path / "c13.json", edited, sealed=False)
    with pytest.raises(InputError) as e:
        build(path, out=out, log=quiet)
    message = str(e.value)
    assert str(path) in message and "digest" in message
    assert "edited by hand" in message and "make data" in message
    assert pages_of(out) == before
    unsealed = {key: value for key, value in data.items() if key != contract.DIGEST}
    with pytest.raises(DataError, match="digest: is missing"):
        hooks.load_data(write_data(tmp_path / "unsealed.json", unsealed, sealed=False))


# ---------------------------------------------------------------------------------------------
# data binding: figures come from the JSON, none typed in
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow("a second site built from changed figures")
def test_changed_figures_replace_the_old_ones_everywhere(site, data, tmp_path):
    changed = copy.deepcopy(data)
    models = changed["models"]
    target = next(n for n, m in models.items() if m["role"] == "target")
    pairs = []  # (old text, new text) as the page prints them
    for i, (name, m) in enumerate(sorted(models.items())):
        new = m["parameters"] + 104_729 + 7 * i
        pairs.append((formats.num(m["parameters"]), formats.num(new)))
        m["parameters"] = new
        new_sha = f"{0xabc0 + i:x}" + m["sha256"][4:][::-1]
        pairs.append((m["sha256"][:12], new_sha[:12]))
        for key, h in changed["provenance"]["inputs"].items():  # the same hash, recorded as an input
            if h == m["sha256"]:
                changed["provenance"]["inputs"][key] = new_sha
        m["sha256"] = new_sha
    old_loss = models[target]["heldout_loss"]
    models[target]["heldout_loss"] = old_loss + 1.2345
    pairs.append((formats.fixed4(old_loss), formats.fixed4(old_loss + 1.2345)))
    anchor = changed["anchor"]
    anchor["weight_read_ms_per_token"] *= 1.37
    pairs.append((formats.ms(data["anchor"]["weight_read_ms_per_token"]), formats.ms(anchor["weight_read_ms_per_token"])))
    changed["greedy"]["identical"] = changed["greedy"]["total"] - 1
    changed["greedy"]["runs"][0]["identical"] = False  # the contract counts the runs marked identical
    path = write_data(tmp_path / "changed.json", changed)
    second = build(path, out=tmp_path / "site2", log=quiet)["site"]

    first_text = {p.name: page_text(p) for p in our_pages(site)}
    second_text = {p.name: page_text(p) for p in our_pages(second)}
    for old, new in pairs:
        assert old != new
        assert any(old in t for t in first_text.values()), f"{old!r} is not on the first build's pages"
        assert any(new in t for t in second_text.values()), f"{new!r} did not reach the second build's pages"
        left = [name for name, t in second_text.items() if old in t]
        assert not left, f"the old figure {old!r} is still on {left}"
    total = changed["greedy"]["total"]
    assert f"{total}/{total}" not in second_text["index.html"]
    assert f"{total - 1}/{total}" in second_text["index.html"]
    # the widget data follows too, on each page that embeds it
    for name in ("index.html", "lab.html"):
        raw = json.loads(re.search(r'id="c13-widget-data">(.*?)</script>', read(second / name), re.S).group(1))
        assert raw["models"][target]["parameters"] == models[target]["parameters"], name


def test_no_figure_of_our_models_is_typed_into_the_markdown(data):
    sources = "\n".join(read(p) for p in (ROOT / "docs").rglob("*.md"))
    for m in data["models"].values():
        for text in (formats.num(m["parameters"]), str(m["parameters"]), m["sha256"][:12]):
            assert text not in sources
    a = data["anchor"]
    for text in (formats.ms(a["weight_read_ms_per_token"]), formats.ms(a["compute_ms_per_token"]),
                 formats.num(a["vocab_size"]), str(a["vocab_size"])):
        assert text not in sources
