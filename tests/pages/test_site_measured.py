"""The build machine's measured costs on the measurement lab's page, lab.html (precomputed/measured.json, optional,
next to c13.json).

Present: the table and the figures show what measured.json and c13.json give (recomputed here from the two
files, never typed). Absent: the build passes and the page says how to measure. Stale (a model's sha256 differs
from c13.json's): the page says so. Corrupt: the build fails naming the file and the field, and the previous
site is left as it was.
"""
import html
import json
import re
import shutil

import pytest

from generator.errors import SettingError
from generator.pages.build import build
from generator.pages.formats import fixed, pct, times
from generator.cli import warn_stale_measured
from generator.pages.measured import measured_context, stale_inputs
from tests.sitelib import data_file, quiet, read

MEASURED = data_file().parent / "measured.json"


def e_n(alpha, k):
    return sum(alpha ** i for i in range(k + 1))


@pytest.fixture(scope="module")
def measured():
    assert MEASURED.is_file(), f"{MEASURED} is missing: make it with `make measure`"
    return json.loads(MEASURED.read_text(encoding="utf-8"))


def folder_with(tmp_path, measured=None):
    """A copy of the c13.json being tested, with the given measured.json next to it (none when None), and E6's
    browser files linked beside it as the page build reads them."""
    folder = tmp_path / "precomputed"
    folder.mkdir()
    shutil.copy(data_file(), folder / "c13.json")
    browser = json.loads(data_file().read_text(encoding="utf-8"))["browser"]["dir"]
    (folder / browser).symlink_to(data_file().parent / browser, target_is_directory=True)
    if measured is not None:
        (folder / "measured.json").write_text(json.dumps(measured), encoding="utf-8")
    return folder / "c13.json"


def section(page):
    """The measured-costs section of the lab page: from its heading to the next section or heading."""
    start = page.index('<h2 id="measured-costs">')
    end = re.compile(r"<section\b|<h[23]\b").search(page, start + 10)
    return page[start:end.start()]


def expected_rows(measured, data, draft):
    """Per k: v(k), the lesson's speedup, the measured-cost speedup, the measured one and its min–max, as shown."""
    alpha = data["accounting"]["drafts"][draft]["alpha"]
    c_params = data["models"][draft]["ratio_to_target"]
    c = measured["forward"]["c"][draft]["median"]
    v = {row["k"]: row["median"] for row in measured["forward"]["v"]}
    out = []
    for row in measured["speedup"]["drafts"][draft]:
        k, s = row["k"], row["speedup"]
        out.append([str(k), fixed(v[k], 2), times(e_n(alpha, k) / (k * c_params + 1)),
                    times(e_n(alpha, k) / (k * c + v[k])), times(s["median"]), f"{fixed(s['min'], 2)}–{times(s['max'])}"])
    return out


def table_rows(page):
    table = re.search(r'<table class="c13-measured-table">.*?</table>', section(page), re.S).group(0)
    groups = re.findall(r"<tbody>(.*?)</tbody>", table, re.S)
    return [[[html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr)]
             for tr in re.findall(r"<tr>(.*?)</tr>", g)] for g in groups]


def test_the_table_and_figures_show_what_the_two_files_give(site, data, measured):
    page = read(site / "lab.html")
    part = section(page)
    rows = table_rows(page)
    assert len(rows) == len(measured["drafts"])
    for draft, shown in zip(measured["drafts"], rows):
        assert shown == expected_rows(measured, data, draft), draft
    # the speedup figure's description lists the same three values per draft and k, in both layouts
    for layout in ("wide", "narrow"):
        desc = html.unescape(re.search(rf'<desc id="mc-speedup-{layout}-d">(.*?)</desc>', part).group(1))
        for draft in measured["drafts"]:
            for row in expected_rows(measured, data, draft):
                assert f"k = {row[0]}：课上公式 {row[2]}，代入实测代价的公式 {row[3]}，实测墙钟 {row[4]}" in desc
        vdesc = html.unescape(re.search(rf'<desc id="mc-verify-{layout}-d">(.*?)</desc>', part).group(1))
        for row in measured["forward"]["v"]:
            assert f"k = {row['k']}：v = {fixed(row['median'], 2)}（四分位 {fixed(row['q1'], 2)}–{fixed(row['q3'], 2)}）" in vdesc


def test_the_prose_names_the_machine_and_the_costs(site, data, measured):
    text = html.unescape(re.sub(r"<[^>]+>", "", section(read(site / "lab.html"))))
    machine = measured["machine"]
    for value in (machine["date_utc"][:10], machine["cpu"], machine["torch_version"], "make measure"):
        assert value in text
    for draft in measured["drafts"]:
        assert fixed(measured["forward"]["c"][draft]["median"], 2) in text
    assert "这些计时测的是别的模型" not in text
    best = max(r["speedup"]["median"] for d in measured["drafts"] for r in measured["speedup"]["drafts"][d])
    assert times(best) in text


def test_stale_compares_with_the_hashes_of_c13_json(data, measured, tmp_path):
    assert stale_inputs(measured, data) == []
    changed = json.loads(json.dumps(measured))
    changed["tokenizer_sha256"] = "0" * 64
    changed["models"][measured["target"]]["sha256"] = "1" * 64
    assert stale_inputs(changed, data) == [f"models/{measured['target']}", "models/tokenizer.json"]
    path = folder_with(tmp_path)
    assert measured_context(data, path) is None  # absent: nothing, and no error


@pytest.mark.slow("sites built with and without measured.json")
def test_absent_builds_and_says_how_to_measure(tmp_path):
    out = build(folder_with(tmp_path), out=tmp_path / "site", log=quiet)["site"]
    part = section(read(out / "lab.html"))
    assert 'class="c13-measured-absent"' in part and "make measure" in part and "measured.json" in part
    assert "mc-speedup" not in part and "c13-measured-table" not in part


@pytest.mark.slow("sites built with and without measured.json")
def test_stale_is_shown_and_corrupt_fails_leaving_the_site(tmp_path, measured):
    stale = json.loads(json.dumps(measured))
    draft = measured["drafts"][0]
    stale["models"][draft]["sha256"] = "f" * 64
    out = tmp_path / "site"
    data_at = folder_with(tmp_path, stale)
    build(data_at, out=out, log=quiet)
    before = {name: read(out / name) for name in ("index.html", "lab.html")}
    part = section(before["lab.html"])
    # the warning, worded for timings of other models (its words are the page's: stale.kind picks them)
    assert 'class="admonition warning c13-stale"' in part and f"models/{draft}" in part
    words = measured_context(json.loads(data_at.read_text(encoding="utf-8")), data_at)["stale_words"]
    assert words["kind"] == "models" and words["models"] == f"models/{draft}"
    # the old timings are shown on their own: no prediction, figure or table combines them with the new α
    for page in before.values():
        assert "mc-speedup" not in page and "mc-verify" not in page and "c13-measured-table" not in page
    assert f"{measured['forward']['c'][draft]['median']:.2f}" in part  # the old c, as measured
    warned = []
    assert warn_stale_measured(tmp_path / "precomputed" / "c13.json", log=warned.append) == [f"models/{draft}"]
    assert len(warned) == 1 and "measured.json" in warned[0] and "make measure" in warned[0]
    assert f"models/{draft}" in warned[0]

    corrupt = json.loads(json.dumps(measured))
    corrupt["forward"]["c"][draft]["median"] = -1
    (tmp_path / "precomputed" / "measured.json").write_text(json.dumps(corrupt), encoding="utf-8")
    with pytest.raises(SettingError) as failed:
        build(tmp_path / "precomputed" / "c13.json", out=out, log=quiet)
    message = str(failed.value)
    assert "measured.json" in message and f"forward.c.{draft}.median" in message
    assert {name: read(out / name) for name in before} == before, "a failed build changed the previous site"


def test_pct_is_the_alpha_the_figure_shows(site, data, measured):
    part = section(read(site / "lab.html"))
    for draft in measured["drafts"]:
        assert f"α = {pct(data['accounting']['drafts'][draft]['alpha'])}，实测 c = " in html.unescape(part)


def test_the_prose_says_what_sets_torchs_c_and_what_e6s_own_forward_costs_here(site, page_ctx, measured, small_draft):
    """torch's ATen calls per step and its share outside the matrix products, and E6's WebAssembly forward timed
    in Node on the same machine (with the JavaScript one beside it): each figure from measured.json."""
    from generator.pages.formats import ms
    text = html.unescape(re.sub(r"<[^>]+>", "", section(read(site / "lab.html"))))
    target, small = measured["target"], small_draft
    overhead = measured["torch_overhead"]
    wasm, js = (measured["browser_forwards"]["engines"][k] for k in ("wasm-simd128", "js"))
    # each a blank of the page (generator/pages/blanks.py), recomputed from measured.json and shown as printed
    expected = {"aten_calls": (overhead[target]["aten_calls_per_step"], lambda x: fixed(x, 0)),
                "target_outside": (overhead[target]["outside_matmul_share"], lambda x: pct(x, 0)),
                "small_outside": (overhead[small]["outside_matmul_share"], lambda x: pct(x, 0)),
                "wasm_target_ms": (wasm["ms_per_forward"][target]["median"], ms),
                "js_target_ms": (js["ms_per_forward"][target]["median"], ms),
                "wasm_c_small": (wasm["c"][small]["median"], lambda x: fixed(x, 3)),
                "node_version": (measured["browser_forwards"]["node"], str)}
    for name, (value, shown) in expected.items():
        assert page_ctx[name] == value and shown(value) in text, name


def test_make_check_and_make_site_warn_naming_measured_json_when_it_timed_other_models(tmp_path, measured):
    """The commands an author runs after retraining say that measured.json is stale, naming it and `make measure`."""
    import subprocess
    import sys
    from tests.conftest import ROOT
    folder = tmp_path / "precomputed"
    shutil.copytree(data_file().parent, folder, ignore=shutil.ignore_patterns("measured.json"))
    stale = json.loads(json.dumps(measured))
    stale["tokenizer_sha256"] = "0" * 64
    (folder / "measured.json").write_text(json.dumps(stale), encoding="utf-8")
    check = subprocess.run([sys.executable, "-m", "generator", "check", "--precomputed", str(folder)], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, check.stderr[-2000:]
    warning = [line for line in check.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warning) == 1 and "measured.json" in warning[0] and "`make measure`" in warning[0], check.stderr
    assert "models/tokenizer.json" in warning[0]
    (folder / "measured.json").write_text(json.dumps(measured), encoding="utf-8")
    check = subprocess.run([sys.executable, "-m", "generator", "check", "--precomputed", str(folder)], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert check.returncode == 0 and "warning" not in check.stderr, check.stderr[-2000:]


def test_a_speedup_counts_below_one_as_the_page_prints_it():
    from generator.pages.measured import shown_below_one
    assert shown_below_one(0.994) and not shown_below_one(0.996) and not shown_below_one(1.0)
