"""The model family is data: its names come from generator/models/family.py (no test types them in), the page
calls a draft small or large by its parameter count (never by its place in constants.drafts), and a draft renamed
in a copy of the repository (family.py, its folder, the card) gives a page that names it, and only it, right."""
import copy
import json
import re
import shutil
import subprocess
import sys

import pytest

from generator.models.family import DRAFTS, TARGET
from generator.pages import context
from tests.conftest import ROOT
from tests.sitelib import drafts_by_size, our_pages, page_text, widget_json

# path: (count, why): the literal model names a test file may keep (at most 10 in all)
LITERALS_LEFT = {}
NEW_NAME = "x9_renamed"  # the renamed draft: no model's name is part of it, nor it of theirs
TARGET_LABEL = "目标"


def literal_names():
    """How often each test file types in a model's name."""
    found = {}
    for path in sorted((ROOT / "tests").rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts or path.suffix not in {".py", ".mjs", ".js", ".json"}:
            continue
        text = path.read_text(encoding="utf-8")
        count = sum(len(re.findall(rf"(?<![\w]){re.escape(name)}(?![\w])", text)) for name in (TARGET, *DRAFTS))
        if count:
            found[path.relative_to(ROOT).as_posix()] = count
    return found


def test_the_tests_take_the_models_names_from_the_family():
    assert sum(count for count, _ in LITERALS_LEFT.values()) <= 10
    assert literal_names() == {path: count for path, (count, _) in LITERALS_LEFT.items()}


def test_small_and_large_follow_the_parameter_counts_not_the_order(data, small_draft, large_draft):
    small, large = small_draft, large_draft
    swapped = copy.deepcopy(data)
    swapped["constants"]["drafts"].reverse()
    for variant in (data, swapped):
        assert context.drafts_by_size(variant) == [small, large]
        assert context.role_names(variant) == {TARGET: TARGET_LABEL, small: "小草稿", large: "大草稿"}
        ctx = context.build_context(variant)
        assert (ctx["small_draft"], ctx["large_draft"], ctx["drafts"]) == (small, large, [small, large])
    # the same order with the sizes exchanged: the labels change hands
    resized = copy.deepcopy(data)
    models = resized["models"]
    models[small]["parameters"], models[large]["parameters"] = models[large]["parameters"], models[small]["parameters"]
    assert context.role_names(resized) == {TARGET: TARGET_LABEL, large: "小草稿", small: "大草稿"}


def scratch_copy(dest):
    """The working tree's files (tracked, and untracked ones git does not ignore) copied into dest; node_modules
    linked."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode("utf-8").split("\0")
    for rel in filter(None, listed):
        source = ROOT / rel
        if source.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / rel)
    (dest / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)


def rename_draft(repo, old, new):
    """family.py names `new` instead of `old` and lists it last; its folder, config and card follow."""
    family = repo / "generator" / "models" / "family.py"
    text = family.read_text(encoding="utf-8")
    listed = f'("{DRAFTS[0]}", "{DRAFTS[1]}")'
    assert text.count(listed) == 1, f"{family} no longer lists the drafts as {listed}"
    others = [name for name in DRAFTS if name != old]
    family.write_text(text.replace(listed, "(" + ", ".join(f'"{name}"' for name in [*others, new]) + ")"),
                      encoding="utf-8")
    models = repo / "models"
    (models / old).rename(models / new)
    config = models / new / "config.json"
    config.write_text(config.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    for path in (models / "card.json", models / "README.md"):  # the card names each model (losses, widths, dropout)
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    # measured.json timed the models under their old names: set aside, `make measure` would write it anew
    measured = repo / "precomputed" / "measured.json"
    if measured.exists():
        measured.rename(repo / "stale-measured.json")


@pytest.mark.slow("regenerates the data and builds a site")
def test_a_renamed_draft_gives_a_page_that_names_it(tmp_path, data):
    """The smaller draft renamed and listed last: one regeneration of the data, then the page build."""
    old = drafts_by_size(data)[0]
    repo = tmp_path / "repo"
    scratch_copy(repo)
    rename_draft(repo, old, NEW_NAME)
    for args in (["data", "--quiet"], ["build", "--out", str(tmp_path / "site")]):
        run = subprocess.run([sys.executable, "-m", "generator", *args], cwd=repo, capture_output=True, text=True)
        assert run.returncode == 0, f"generator {args[0]}:\n{run.stderr[-4000:]}"
    new_data = json.loads((repo / "precomputed" / "c13.json").read_text(encoding="utf-8"))
    assert new_data["constants"]["drafts"][-1] == NEW_NAME and old not in new_data["models"]
    small, large = drafts_by_size(new_data)
    assert small == NEW_NAME  # the renamed draft keeps its weights, so it is still the smaller one
    site = tmp_path / "site"
    for path in site.rglob("*"):
        assert old not in path.name, path
        if path.is_file():
            assert old.encode() not in path.read_bytes(), path
    pages = {page.name: page_text(page) for page in our_pages(site)}
    text = "\n".join(pages.values())
    assert NEW_NAME in pages["index.html"] and NEW_NAME in pages["provenance.html"]
    for name, label, other in ((small, "小草稿", "大草稿"), (large, "大草稿", "小草稿")):
        assert f"{name}（{label}）" in text and f"{name}（{other}）" not in text
    roles = json.loads(widget_json((site / "index.html").read_text(encoding="utf-8")))["roles"]
    assert roles == {TARGET: TARGET_LABEL, small: "小草稿", large: "大草稿"}
    # with the old timings put back the page still builds: it lists them as another model's, combines none of them
    stale = repo / "stale-measured.json"
    if stale.exists():
        stale.rename(repo / "precomputed" / "measured.json")
        out = tmp_path / "site-stale"
        run = subprocess.run([sys.executable, "-m", "generator", "build", "--out", str(out)], cwd=repo,
                             capture_output=True, text=True)
        assert run.returncode == 0, f"generator build with stale measured.json:\n{run.stderr[-4000:]}"
        assert "measured.json" in run.stderr and "make measure" in run.stderr  # the warning names both
        page = page_text(out / "lab.html")  # the build machine's timings: the measurement lab's
        assert "这些计时测的是别的模型" in page and f"models/{old}" in page
