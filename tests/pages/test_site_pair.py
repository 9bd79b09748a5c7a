"""The editable pair's static version on the built page (the experiment after E2): where it stands, the presets it
embeds for the live widget and the numbers it prints for them — α, Σ p·q and resample-from-p's closed-form TV, each
what widgets/sampler.py computes in CPython — and the default preset's build-time picture."""
import html
import json
import re

import pytest

from generator.shared_sampler import sampler
from generator.pages import formats, pair_presets
from tests.sitelib import read

SIX = 6


def section(page):
    m = re.search(r'<section\b[^>]*\bid="pair"[^>]*>(.*?)</section>', page, re.S)
    assert m, "the page has no editable-pair experiment"
    assert 'data-widget="pair"' in m.group(0)[: m.group(0).index(">")]
    return m.group(1)


def embedded(body):
    m = re.search(r'<script class="c13-pair-data" type="application/json">(.*?)</script>', body, re.S)
    assert m, "the section embeds no presets"
    return json.loads(m.group(1))


def expected(preset):
    p = [v / preset["unit"] for v in preset["p_units"]]
    q = [v / preset["unit"] for v in preset["q_units"]]
    pair = sampler.Pair(p, q)
    return pair.alpha, pair.sum_pq, sampler.resample_p_tv(pair.p, pair.q)


def test_the_pair_follows_e2_and_precedes_the_next_section(site):
    page = read(site / "index.html")
    e2, pair = page.index('id="e2"'), page.index('id="pair"')
    assert e2 < pair < page.index('<h2 id="one-forward"')
    assert re.search(r'<h3 id="exp-pair">实验 E2 续 · 自己动手', page)


def test_the_presets_cover_same_disjoint_flat_sharp_and_zero_cases_over_six_tokens(site):
    config = embedded(section(read(site / "index.html")))
    assert config["labels"] == list("ABCDEF") and config["unit"] == pair_presets.UNIT
    presets = {p["id"]: p for p in config["presets"]}
    for preset in presets.values():
        assert len(preset["p_units"]) == len(preset["q_units"]) == SIX
        assert sum(preset["p_units"]) == sum(preset["q_units"]) == config["unit"]
    assert presets["same"]["p_units"] == presets["same"]["q_units"]
    disjoint = presets["disjoint"]
    assert sum(map(min, disjoint["p_units"], disjoint["q_units"])) <= 0.1 * config["unit"]
    flat = presets["flat"]["q_units"]
    assert max(flat) - min(flat) <= 1
    sharp = presets["sharp"]
    assert max(sharp["q_units"]) > max(sharp["p_units"])
    assert any(q == 0 < p for p, q in zip(presets["q-zero"]["p_units"], presets["q-zero"]["q_units"]))
    assert any(p == 0 < q for p, q in zip(presets["p-zero"]["p_units"], presets["p-zero"]["q_units"]))
    assert config["default"] in presets


def test_each_preset_carries_and_prints_what_sampler_py_computes(site):
    body = section(read(site / "index.html"))
    config = embedded(body)
    tbody = body.split("<tbody>")[1].split("</tbody>")[0]
    rows = [[html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", tbody, re.S)]
    assert [row[0] for row in rows] == [p["name"] for p in config["presets"]]
    for preset, row in zip(config["presets"], rows):
        alpha, sum_pq, tv = expected({**preset, "unit": config["unit"]})
        assert (preset["alpha"], preset["sum_pq"], preset["tv"]) == (alpha, sum_pq, tv), preset["id"]
        assert row[1:3] == [" ".join(map(str, preset["p_units"])), " ".join(map(str, preset["q_units"]))]
        assert row[3:] == [formats.pct(alpha), formats.prob(sum_pq), formats.fixed4(tv)], preset["id"]


def test_the_default_preset_has_its_build_time_picture(site):
    body = section(read(site / "index.html"))
    config = embedded(body)
    ids = re.findall(r'<div class="c13-duo c13-stack" id="(pair-stack-\d+)"', body)
    default = [p["id"] for p in config["presets"]].index(config["default"])
    assert ids == [pair_presets.stacked_id(default)]
    # every token is drawn (no folded rest column) in both layouts
    first = body[body.index(ids[0]):]
    first = first[: first.index("</figure>")]
    assert first.count("<svg") == 2 and first.count('data-token="rest"') == 0
    assert sorted(set(re.findall(r'data-token="(\d)"', first))) == [str(i) for i in range(SIX)]


@pytest.mark.parametrize("edit, field", [
    (lambda t: t.replace("p = [300, 250, 180, 120, 90, 60]", "p = [300, 250, 180, 120, 90, 61]", 1), "preset[0].p"),
    (lambda t: t.replace('default = "sharp"', 'default = "none"'), "default"),
    (lambda t: t.replace('name = "q = p"', 'name = ""'), "preset[0].name"),
    (lambda t: t.replace('id = "disjoint"', 'id = "same"'), "preset"),
])
def test_the_pairs_words_file_is_refused_naming_the_field(tmp_path, edit, field):
    """The presets' names, notes and thousandths are the page's words (docs/words/pair_presets.toml): a pair that
    does not sum to the unit, an unknown default, an empty name or a repeated id stops the build, naming them."""
    from generator.errors import InputError
    text = pair_presets.WORDS.read_text(encoding="utf-8")
    assert [p["id"] for p in pair_presets.presets() if p["default"]] == [pair_presets.read_presets()[0]]
    bad = tmp_path / "pair_presets.toml"
    bad.write_text(edit(text), encoding="utf-8")
    assert bad.read_text(encoding="utf-8") != text
    with pytest.raises(InputError) as e:
        pair_presets.read_presets(bad)
    assert str(e.value).startswith(f"{bad}: {field}")
