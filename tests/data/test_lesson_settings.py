"""The lesson's settings in one author-facing file, precomputed/lesson.toml: read with the standard
library and checked key by key (an unknown key, a wrong kind, a value out of range is refused naming the file and
the key), recorded as an input of c13.json (`make check` names it), and followed by the page: one regeneration from a
copy with several settings changed shows every change on the built page and in the widgets' data."""
import json
import re
import shutil
import subprocess
import sys
import tomllib

import pytest

from generator.data.provenance import stale_inputs
from generator.data.settings import SCHEMA, read_lesson
from generator.errors import InputError
from tests.conftest import MODELS, ROOT

LESSON = ROOT / "precomputed" / "lesson.toml"


def written(tmp_path, text):
    path = tmp_path / "lesson.toml"
    path.write_text(text, encoding="utf-8")
    return path


def replaced(old, new, count=1):
    text = LESSON.read_text(encoding="utf-8")
    assert text.count(old) >= 1, old
    return text.replace(old, new, count)


def test_the_committed_file_gives_every_setting():
    settings = read_lesson(LESSON)
    assert set(settings) == set(SCHEMA)


@pytest.mark.parametrize("old, new, key, words", [
    ("[display]\n", "[display]\ncolour = 3\n", "display.colour", "is not a setting of the lesson"),
    ("[e6]\n", "[e7]\n", "e7", "is not a setting of the lesson"),
    ("[alpha_positions]", "[spread]", "spread", "was renamed [alpha_positions]"),
    ("max = 8 ", "max = 0 ", "k.max", "from 2 to 16, got 0"),
    ("lesson = 4 ", "lesson = 9 ", "k.lesson", "beyond k.max = 8"),
    ("greedy = [2, 4]", "greedy = [4, 2]", "k.greedy", "ascending"),
    ("n = 200000", "n = 2.5", "offline.n", "whole number"),
    ('prompts = ["孔明曰：「", "卻說曹操", "玄德曰：「", "次日，"]', 'prompts = ["次日，"]', "prompts", "2 to 16"),
    ("seeds = [1, 2, 3]", "seeds = []", "accounting.seeds", "a list of whole numbers"),
    ('prompts = ["孔明曰：「",', 'prompts = ["",', "prompts", "non-empty texts"),
    ("top_n = 12 ", "", "display.top_n", "is missing"),
])
def test_a_bad_setting_is_refused_naming_the_file_and_the_key(tmp_path, old, new, key, words):
    path = written(tmp_path, replaced(old, new))
    with pytest.raises(InputError) as e:
        read_lesson(path)
    assert str(e.value).startswith(f"{path}: {key}: ") and words in str(e.value), str(e.value)


def test_a_file_that_is_not_toml_is_refused_by_name(tmp_path):
    path = written(tmp_path, "prompts = [\n")
    with pytest.raises(InputError) as e:
        read_lesson(path)
    assert str(e.value).startswith(f"{path}: is not valid TOML")


def test_make_check_names_the_settings_file(fresh_precomputed):
    lesson = fresh_precomputed / "lesson.toml"
    assert stale_inputs(fresh_precomputed / "c13.json", MODELS, fresh_precomputed) == []
    lesson.write_text(lesson.read_text(encoding="utf-8").replace("top_n = 12", "top_n = 10"), encoding="utf-8")
    assert stale_inputs(fresh_precomputed / "c13.json", MODELS, fresh_precomputed) == ["precomputed/lesson.toml"]
    run = subprocess.run([sys.executable, "-m", "generator", "check", "--precomputed", str(fresh_precomputed)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1 and "  - precomputed/lesson.toml" in run.stderr, run.stderr


CHANGES = {  # old text → new text in lesson.toml; every one shows on the page or in the widgets' data
    'prompts = ["孔明曰：「", "卻說曹操", "玄德曰：「", "次日，"]': 'prompts = ["卻說曹操", "次日，", "孔明曰：「"]',
    "max = 8 ": "max = 5 ", "lesson = 4 ": "lesson = 3 ", "greedy = [2, 4]": "greedy = [3]",
    "seeds = [1, 2, 3]": "seeds = [5, 6]", "n = 200000": "n = 20000",
    "ns = [100, 1000, 10000, 100000, 1000000]": "ns = [100, 3000, 90000, 900000]",
    "top_n = 12 ": "top_n = 9 ", "live_sizes = [10000, 100000]": "live_sizes = [5000, 50000]",
    "new_tokens = [16, 32, 64, 96]": "new_tokens = [16, 40]",
}


@pytest.fixture(scope="module")
def changed_site(tmp_path_factory):
    """A copy of precomputed/ with CHANGES made to lesson.toml, regenerated and built: the author's journey."""
    root = tmp_path_factory.mktemp("lesson")
    pre = root / "precomputed"
    shutil.copytree(ROOT / "precomputed", pre, ignore=shutil.ignore_patterns("measured.json"))
    text = (pre / "lesson.toml").read_text(encoding="utf-8")
    for old, new in CHANGES.items():
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    (pre / "lesson.toml").write_text(text, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "generator", "build", "--quiet", "--precomputed", str(pre),
                          "--out", str(root / "site")], cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    assert "precomputed/lesson.toml" in run.stdout  # what changed, named before regenerating
    data = json.loads((pre / "c13.json").read_text(encoding="utf-8"))
    page = (root / "site" / "index.html").read_text(encoding="utf-8")
    widgets = {name: json.loads(re.search(r'<script type="application/json" id="c13-widget-data">(.*?)</script>',
                                          (root / "site" / name).read_text(encoding="utf-8"), re.S).group(1))
               for name in ("index.html", "lab.html")}  # each page's widget data: E1–E5's, E6's (the lab's)
    return data, page, widgets, tomllib.loads(text)


@pytest.mark.slow("a regeneration from changed settings and a site built from it")
def test_changing_the_settings_there_alone_changes_the_data(changed_site):
    data, _, _, lesson = changed_site
    c = data["constants"]
    assert [p["text"] for p in data["prompts"]] == lesson["prompts"]
    assert list(data["distributions"]) == ["卻說曹操", "次日，"] and data["replay"]["prompt"] == "卻說曹操"
    assert c["ks"] == [1, 2, 3, 4, 5] and c["lesson_k"] == 3 and c["greedy_ks"] == [3]
    assert data["replay"]["k"] == 3 and data["anchor"]["positions_verified"] == 4
    assert data["accounting"]["seeds"] == [5, 6] and data["offline"]["n"] == 20_000
    assert data["tv_curve"]["ns"] == [100, 3000, 90_000, 900_000]
    assert c["top_n"] == 9 and c["e2_live_sizes"] == [5000, 50_000] and c["e6_new_tokens"] == [16, 40]


@pytest.mark.slow("a regeneration from changed settings and a site built from it")
def test_changing_the_settings_there_alone_changes_the_page(changed_site):
    _, page, both, _ = changed_site
    widgets, lab = both["index.html"], both["lab.html"]
    # E1 verifies the lesson's k + 1 positions in one forward, and nowhere the old 5
    assert set(re.findall(r"一次前向算 (\d+) 个位置", page)) == {"4"} and "检查 4 个 token 的代价" in page
    assert widgets["constants"]["e2_live_sizes"] == [5000, 50_000]
    assert lab["e6"]["new_tokens"] == [16, 40] and lab["e6"]["ks"] == [1, 2, 3, 4, 5]
    assert lab["e6"]["defaults"]["k"] == 3
    assert widgets["prefixes"] == ["卻說曹操", "次日，"]
