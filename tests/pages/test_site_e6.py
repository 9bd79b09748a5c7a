"""E6 on the built site, on the measurement lab's page (lab.html): the model files copied with the sha256 the data stage
recorded, the widget payload that points at them and its defaults (the lesson's k and temperature), the opening (short,
asking its question) with the method in a fold below the static version (the build machine's measured table), and
the page's own E6 code kept small."""
import hashlib
import json
import re

import pytest
from mkdocs.exceptions import PluginError

from generator.models.family import TARGET
from generator.pages.experiments import SERVE_COMMAND
from generator.pages.vendor import MODELS_DEST, browser_models
from generator.pages.widget_payload import nearest_offered
from tests.pagetext import HAN, sentences
from tests.sitelib import data_file, read, widget_json

# the page's own E6 modules, loaded with the page; the engine, the models and the tokenizer load on 开始 only
PAGE_MODULES = ("index.js", "controls.js", "question.js", "rounds.js", "report.js", "explain.js", "spread.mjs")
LAZY_MODULES = ("engine.mjs", "model.mjs", "tokenizer.mjs", "speculate.mjs", "timing.mjs", "roof.mjs")
# bytes: E6's share of the ≤ 500 KB a reader fetches before Pyodide (44 KB since the report draws the roofline,
# 56 KB since it explains the run; 52 KB since the report's sentences are the page's words, not explain.js's; 56 KB
# since E6 asks its question before the run: question.js and its wiring, 4.6 KB; 61 KB since its verdict is the runs
# repeated in turn, with the prediction, the guess and the regime at one position judged against it, 5.2 KB)
PAGE_MODULES_BUDGET = 61_000
QUESTION = "你的机器上，投机解码会更快吗？"
OPENING_HAN = 200  # E6 opens with one short paragraph and its question, at most this many Chinese characters
SENTENCE_HAN = 120  # the lab page's longest sentence


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


def test_e6_starts_as_the_lesson_runs_its_k_and_temperature(site, data, page_ctx):
    """The defaults are the lesson's: the replay's k (E3/E4's, the page's replay_k) and temperature (T = 1), read from
    the data, taken as they are when E6 offers them (nearest_offered)."""
    e6 = json.loads(widget_json(read(site / "lab.html")))["e6"]
    d = e6["defaults"]
    assert d["k"] == page_ctx["replay_k"] == data["replay"]["k"] == data["constants"]["lesson_k"]
    assert d["k"] in e6["ks"]  # offered as it is: k.lesson ≤ k.max, and E6 offers every k up to k.max
    assert d["temperature"] == page_ctx["temperature"] == data["replay"]["temperature"] == 1
    assert d["prompt"] == data["replay"]["prompt"]


def test_a_lesson_value_e6_does_not_offer_becomes_the_nearest_it_does():
    assert nearest_offered(4, [1, 2, 3, 4, 5]) == 4
    assert nearest_offered(9, [1, 2, 3]) == 3 and nearest_offered(0, [2, 4]) == 2
    assert nearest_offered(3, [2, 4]) == 2  # as close both ways: the smaller (the cheaper run)
    assert nearest_offered(0.7, [0, 1]) == 1 and nearest_offered(0.5, [0, 1]) == 0


def e6_parts(site):
    """E6's opening (its prose and question, from the notices to the static version), the static version, the fold
    after it: the built markup of each."""
    _, section = e6_section(site)
    opening = section[section.index("</noscript>"):section.index('<div class="c13-e6-static">')]
    static = re.search(r'<div class="c13-e6-static">(.*?)</div>\s*<details', section, re.S)
    fold = re.search(r'</div>\s*(<details class="c13-more">.*?</details>)', section, re.S)
    assert static and fold, "E6's static version is not followed by its method fold"
    return opening, static.group(1), fold.group(1)


def test_e6_opens_with_a_short_paragraph_and_its_question(site):
    opening, _, _ = e6_parts(site)
    text = page_text_of(opening)
    assert len(HAN.findall(text)) <= OPENING_HAN, (len(HAN.findall(text)), text)
    question = re.search(r'<p class="c13-e6-question"><strong>(.*?)</strong>', opening)
    assert question and question.group(1) == QUESTION  # shown without JavaScript too; live, it heads the choice
    for words in ("WebAssembly", "Pyodide", "float16", "MB", "计时"):  # the method waits in the fold
        assert words not in text, words


def test_the_method_and_its_caveats_are_in_a_fold_below_the_result(site, page_ctx):
    from generator.pages.formats import as_written, fixed, num
    _, _, fold = e6_parts(site)
    text = page_text_of(fold)
    assert text.strip().startswith("E6 怎么跑") and "<summary>" in fold
    for words in ("WebAssembly SIMD", "JavaScript", "sampler.py", "Pyodide", "float16", "0.1 ms", "屋顶线", "再测一次"):
        assert words in text, words
    # the float16 comparison and the download, through their blanks
    for figure in (num(page_ctx["float16_positions"]), as_written(page_ctx["float16_max_dp"]),
                   f"{fixed(page_ctx['download_mb'], 1)} MB"):
        assert figure in text, figure


def test_no_sentence_of_e6s_prose_is_over_the_labs_limit(site):
    opening, _, fold = e6_parts(site)
    for part in (opening, fold):
        text = re.sub(r"<[^>]+>", "", re.sub(r"</p>|<br\s*/?>", "\n", part))
        long = [s for s in sentences(text) if len(HAN.findall(s)) > SENTENCE_HAN]
        assert not long, long


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
