"""E6 on the built site, on the measurement lab's page (lab.html): the model files copied with the sha256 the data stage
recorded, the widget payload that points at them, the static version (the build machine's measured table) and the
page's own E6 code kept small."""
import hashlib
import json
import re

import pytest
from mkdocs.exceptions import PluginError

from generator.models.family import TARGET
from generator.pages.experiments import SERVE_COMMAND
from generator.pages.vendor import MODELS_DEST, browser_models
from tests.sitelib import data_file, read, widget_json

# the page's own E6 modules, loaded with the page; the engine, the models and the tokenizer load on 开始 only
PAGE_MODULES = ("index.js", "controls.js", "rounds.js", "report.js", "explain.js", "spread.mjs")
LAZY_MODULES = ("engine.mjs", "model.mjs", "tokenizer.mjs", "speculate.mjs", "timing.mjs", "roof.mjs")
# bytes: E6's share of the ≤ 500 KB a reader fetches before Pyodide (44 KB since the report draws the roofline,
# 56 KB since it explains the run; 52 KB since the report's sentences are the page's words, not explain.js's)
PAGE_MODULES_BUDGET = 52_000


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def expected_files(data):
    """name → {sha256, bytes}: what the data stage recorded in c13.json's browser.files."""
    return data["browser"]["files"]


def e6_section(site):
    page = read(site / "lab.html")
    m = re.search(r'<section\b[^>]*\bid="e6"[^>]*>.*?</section>', page, re.S)
    assert m, "the lab page has no E6 section"
    return page, m.group(0)


def test_the_site_holds_each_model_file_with_its_recorded_sha256(site, data):
    want = expected_files(data)
    assert {"tokenizer.json", f"{data['constants']['target']}.safetensors"} <= set(want)
    for draft in data["constants"]["drafts"]:
        assert f"{draft}.safetensors" in want
    for name, entry in want.items():
        copy = site / MODELS_DEST / name
        assert copy.is_file(), f"{MODELS_DEST}/{name} is missing from the site"
        assert copy.stat().st_size == entry["bytes"] and sha256(copy) == entry["sha256"], name


def test_the_payload_points_at_the_files_with_their_sizes(site, data):
    page = read(site / "lab.html")
    e6 = json.loads(widget_json(page))["e6"]
    assert e6["models"] == MODELS_DEST + "/"
    assert e6["files"] == {name: entry["bytes"] for name, entry in expected_files(data).items()}
    target = data["constants"]["target"]
    assert e6["target"] == target and e6["drafts"] == data["constants"]["drafts"]
    assert e6["context"] == data["models"][target]["context"]
    assert e6["ks"] == data["constants"]["ks"]
    assert e6["prompts"] == [p["text"] for p in data["prompts"]]
    # every choice of new tokens fits the context with the largest k and a prompt
    assert e6["new_tokens"] and all(n + max(e6["ks"]) < e6["context"] for n in e6["new_tokens"])
    d = e6["defaults"]
    assert d["draft"] in e6["drafts"] and d["k"] in e6["ks"] and d["nNew"] in e6["new_tokens"]
    assert d["temperature"] in e6["temperatures"] == [0, 1]


def test_e6_is_on_the_lab_page_after_the_measured_costs_and_the_roofline(site):
    page, _ = e6_section(site)
    assert page.index('id="measured-costs"') < page.index('id="roofline"') < page.index('id="e6"')
    assert re.search(r'<h2 id="exp-e6">实验 E6 · 在你的机器上跑一次', page)
    lesson = read(site / "index.html")  # the lesson itself keeps E1–E5 and points to the lab
    assert 'id="e6"' not in lesson and 'id="exp-e6"' not in lesson and 'href="lab.html"' in lesson


def test_the_static_version_shows_the_build_machines_measured_table(site):
    _, section = e6_section(site)
    opening = section[: section.index(">") + 1]
    assert 'data-widget="e6"' in opening
    notice = re.search(r'<p class="c13-exp-notice" hidden>(.*?)</p>', section, re.S)
    assert notice and SERVE_COMMAND in notice.group(1)
    static = re.search(r'<div class="c13-e6-static">(.*)</div>', section, re.S)
    assert static, "E6 has no static version"
    text = page_text_of(static.group(1))
    assert SERVE_COMMAND in text
    measured = data_file().parent / "measured.json"  # the optional timings next to the c13.json built from
    if measured.is_file():
        machine = json.loads(measured.read_text(encoding="utf-8"))["machine"]
        assert "<table" in static.group(1) and machine["date_utc"][:10] in text and machine["cpu"] in text
    else:
        assert "make measure" in text


def page_text_of(markup):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", markup))


def test_the_page_loads_only_a_small_e6_module_and_nothing_heavy(site):
    folder = site / "assets" / "c13" / "e6"
    total = sum((folder / name).stat().st_size for name in PAGE_MODULES)
    assert total <= PAGE_MODULES_BUDGET, f"E6's page modules weigh {total} bytes"
    for name in PAGE_MODULES:
        source = read(folder / name)
        imports = re.findall(r'^import\b[^;]*?from\s+"([^"]+)"', source, re.M | re.S)
        assert not [i for i in imports if i.rsplit("/", 1)[-1] in LAZY_MODULES], (name, imports)
        assert "safetensors" not in " ".join(imports) and "import(" not in source, name
    # the pages themselves name no model file nor the engine (the payload says where they are, for the worker)
    for name in ("index.html", "lab.html"):
        page = read(site / name)
        markup = page.replace(widget_json(page), "")
        assert ".safetensors" not in markup and "e6/engine" not in markup and "tokenizer.json" not in markup, name


def fake_data(files):
    return {"browser": {"dir": "browser", "dtype": "float16", "files": files}}


def test_a_model_file_that_differs_from_the_data_fails_the_build_naming_it(tmp_path):
    (tmp_path / "browser").mkdir()
    name = f"{TARGET}.safetensors"
    (tmp_path / "browser" / name).write_bytes(b"weights")
    good = {"sha256": hashlib.sha256(b"weights").hexdigest(), "bytes": 7}
    assert browser_models(fake_data({name: good}), tmp_path) == {name: (tmp_path / "browser" / name, 7)}
    cases = [({"tokenizer.json": good}, "browser.files.tokenizer.json", "missing"),
             ({name: {**good, "bytes": 8}}, f"browser.files.{name}.bytes", "7 bytes"),
             ({name: {**good, "sha256": "0" * 64}}, f"browser.files.{name}.sha256", "sha256")]
    for files, field, problem in cases:
        with pytest.raises(PluginError) as e:
            browser_models(fake_data(files), tmp_path)
        assert field in str(e.value) and problem in str(e.value)
