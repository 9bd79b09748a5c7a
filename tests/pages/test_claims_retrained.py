"""Every conclusion of the page follows the data, also for models other than the committed ones.

Two families are trained here for a few dozen steps, one on a single chapter of the shared corpus (Chinese) and one
on English text that ships with Python (its LICENSE.txt and the documentation strings of a few standard modules, read
in place, never copied into the repository); for each
the data stage writes a c13.json in a scratch folder, and the page stage builds the site from it. The build runs the
page's checks (generator/pages/claims.py); this test then reads the built page and checks each sentence that compares
or concludes against the numbers of that c13.json, worked out here on their own: no sentence may say "slower" of a
gain, compare a figure with itself or with a larger one, or explain a slowdown by a bound above the cost, and the
note on Chinese characters and their bytes appears only where the text is Chinese.

About six minutes on 2 busy cores, training most of it (2½ for the English family, 3½ for the chapter): one test
per family.
"""
import html
import json
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.conftest import CORPUS, ROOT
from tests.sitelib import read

STEPS = 24  # "a few dozen": enough for the models to beat chance on a chapter, and far from the recipe's 1,800


def one_chapter(out):
    """The first chapter of the shared corpus (its headings look like 第一回：…), written only to the scratch folder."""
    text = CORPUS.read_text(encoding="utf-8")
    heads = [m.start() for m in re.finditer(r"^第[^\n]*回：", text, re.M)]
    out.write_text(text[heads[0]:heads[1]], encoding="utf-8")
    return out


# modules of the standard library whose documentation strings are long English prose
DOC_MODULES = ("argparse", "textwrap", "difflib", "heapq", "bisect", "collections", "functools", "json", "pickle",
               "logging", "unittest", "tarfile", "zipfile", "subprocess", "threading", "decimal", "fractions",
               "statistics", "random", "inspect", "dataclasses", "enum", "string", "shutil", "tempfile",
               "csv", "calendar", "datetime", "doctest", "pydoc", "email.message", "http.client", "urllib.parse")


ENGLISH_CHARS = 45_000  # enough text for the tokenizer's 2,048 tokens (LICENSE.txt alone is not), little enough to stay quick


def english_text(out):
    """English prose that ships with Python, read in place: its LICENSE.txt and the documentation strings of a few
    standard modules (and of their classes and functions), each paragraph once, hard-wrapped as a corpus is."""
    import importlib
    import inspect
    import textwrap
    source = Path(sysconfig.get_paths()["stdlib"]) / "LICENSE.txt"
    assert source.is_file(), f"{source} is missing: the English run reads the license that ships with Python"
    docs = [source.read_text(encoding="utf-8")]
    for name in DOC_MODULES:
        module = importlib.import_module(name)
        docs.append(inspect.getdoc(module) or "")
        for _, obj in sorted(vars(module).items()):
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and getattr(obj, "__module__", None) == name:
                docs.append(inspect.getdoc(obj) or "")
    seen, paragraphs, size = set(), [], 0
    for doc in docs:
        for para in re.split(r"\n\s*\n", doc):
            words = " ".join(para.split())
            if len(words) > 40 and words not in seen and size < ENGLISH_CHARS:
                seen.add(words)
                paragraphs.append(textwrap.fill(words, 72))
                size += len(words)
    out.write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
    return out


def prompts_in(text, candidates, n=2):
    found = [p for p in candidates if p in text]
    assert len(found) >= n, f"the scratch corpus holds too few of the prompts {candidates}"
    return found[:n]


CASES = {
    # name: (corpus writer, candidate prompts found in that text, whether its text is Chinese)
    "one_chapter": (one_chapter, ["玄德曰：「", "次日，", "張飛", "關公"], True),
    "english": (english_text, ["The ", "This ", "Python ", "the "], False),
}


def run(args, **kwargs):
    done = subprocess.run([sys.executable, "-m", "generator", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, **kwargs)
    assert done.returncode == 0, f"python -m generator {' '.join(args)} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    return done


def retrained_site(tmp, name):
    """Train the family on the case's text, regenerate c13.json beside a scratch lesson.toml, build the site."""
    from generator.models.train import Recipe, train_all
    write, candidates, _ = CASES[name]
    corpus = write(tmp / "corpus.txt")
    text = corpus.read_text(encoding="utf-8")
    prompts = prompts_in(text, candidates)
    pre = tmp / "precomputed"
    pre.mkdir()
    for f in ("anchor-model.json", "papers.json"):
        shutil.copy(ROOT / "precomputed" / f, pre / f)
    lesson = (ROOT / "precomputed" / "lesson.toml").read_text(encoding="utf-8")
    lesson = re.sub(r"(?m)^prompts = .*$", "prompts = " + json.dumps(prompts, ensure_ascii=False), lesson)
    (pre / "lesson.toml").write_text(lesson, encoding="utf-8")
    # a few dozen steps in small batches; force: such models are expected to be weak (checks.py warns instead)
    train_all(corpus, tmp / "models", Recipe(steps=STEPS, batch_size=4, warmup=4, eval_every=STEPS),
              prompts=prompts, force=True)
    run(["data", "--models", str(tmp / "models"), "--precomputed", str(pre), "--quiet"])
    data = json.loads((pre / "c13.json").read_text(encoding="utf-8"))
    run(["build", "--data", str(pre / "c13.json"), "--out", str(tmp / "site"), "--quiet"])
    return data, tmp / "site"


# --- the sentences, checked against the numbers (worked out here, not with claims.py) ---------------------------

def x2(v):
    """A speedup as the page prints it."""
    return float(f"{v:.2f}")


def flat_text(page):
    """The page's visible text with inline markup dropped (a figure and its "×" stay next to their words)."""
    s = re.sub(r"<(script|style)\b.*?</\1>", " ", read(page), flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", s))


def order(a, b):
    return "more" if a > b else "less" if a < b else "same"


def expected_decisions(data):
    """The key each of the page's decisions should take for this c13.json (the test checks which wording
    the build chose, not a phrase), worked out here from the numbers as the page prints them."""
    thresholds = {k: e["value"] for k, e in json.loads((ROOT / "widgets" / "thresholds.json").read_text()).items()
                  if k != "about"}
    acc = data["accounting"]["drafts"]
    small, large = sorted(data["constants"]["drafts"], key=lambda d: data["models"][d]["parameters"])
    k_max = max(data["constants"]["ks"])
    row = {(d, r["k"]): r for d in (small, large) for r in acc[d]["rows"]}
    pct = lambda v: float(f"{v * 100:.1f}")  # noqa: E731  (a percentage as printed)
    dist = data["distributions"]
    pairs = [(p["sum_pq"][d], p["alpha"][d]) for p in dist.values() for d in (small, large)]
    tiny = max(s for s, _ in pairs) < thresholds["tiny_sum_pq"]
    r = row[small, data["replay"]["k"]]
    width = round(pct(r["alpha_high"]) - pct(r["alpha_low"]), 1)
    spread = max(round(pct(acc[d]["alpha_k_max"]) - pct(acc[d]["alpha_k_min"]), 1) for d in (small, large))
    main = data["replay"]["prompt"]
    other = next(p["text"] for p in data["prompts"] if p["text"] != main)
    offline = data["offline"]["results"][main][small]
    greedy = data["greedy"]
    return {
        "naive.level": "tiny" if tiny else "far" if all(s <= a / 2 for s, a in pairs) else "below",
        "alpha_noise.case": "wider" if width > spread else "narrower",
        "large_at_k_max.case": "slower" if acc[large]["best_k"] != k_max and x2(row[large, k_max]["speedup"])
                    < x2(acc[large]["best_speedup"]) else "best",
        "bigger.best.larger": order(x2(acc[large]["best_speedup"]), x2(acc[small]["best_speedup"])),
        "greedy_identical": "yes" if greedy["identical"] == greedy["total"] else "no",
        "same_size": "yes" if abs(offline["correct"]["tv"] - offline["direct"]["tv"])
                     < thresholds["same_size"] * offline["direct"]["tv"] else "no",
        "bias_visible": "yes" if dist[main]["tv_resample_p_closed_form"][small]
                        > thresholds["clear_of_noise"] * offline["direct"]["tv"] else "no",
        "larger_overlaps": "yes" if pct(dist[main]["alpha"][large]) > pct(dist[main]["alpha"][small]) else "no",
        "other_bias": order(float(f"{dist[other]['tv_resample_p_closed_form'][small]:.4f}"),
                            float(f"{dist[main]['tv_resample_p_closed_form'][small]:.4f}")),
        **speed_decisions(data, acc, small, large, k_max, row),
    }


def formula_speedup(alpha, c, k):
    """The lesson's formula, v = 1: E[N] ÷ (c·k + 1), written out here (not generator/speedup.py's)."""
    return (1 - alpha ** (k + 1)) / ((1 - alpha) * (c * k + 1))


def speed_decisions(data, acc, small, large, k_max, row):
    """The decisions on speeds by the formula (the large draft at the largest k, the slowest row, E5's tries), as
    printed: two decimals; no build machine's timings beside a retrained family."""
    from generator.pages.claims import TRY_ALPHAS  # the lesson's choice of α to try, not a figure
    yes = {True: "yes", False: "no"}
    at_max = x2(row[large, k_max]["speedup"])
    best = max(acc[small]["best_speedup"], acc[large]["best_speedup"])
    slowest = min(x2(r["speedup"]) for d in (small, large) for r in acc[d]["rows"])
    bound, cost = round(1 / (1 - acc[large]["alpha"]), 2), round(acc[large]["c"] * k_max + 1, 2)
    ks = data["constants"]["ks"]
    pct = lambda v: float(f"{v * 100:.1f}")  # noqa: E731
    tried = next(t for t in TRY_ALPHAS if pct(t) > pct(acc[small]["alpha"]))
    speeds = [formula_speedup(tried, acc[small]["c"], k) for k in ks]
    k = ks[speeds.index(max(speeds))]
    return {
        "slow_at_k_max.below_one": yes[at_max < 1], "bigger.large_k_max.below_one": yes[at_max < 1],
        "self_drafting.case": "slows" if at_max < 1 else "costs" if at_max < x2(best) else "plain",
        "slow.below_one": yes[slowest < 1],
        "large_at_k_max.bounded": yes[bound < cost],
        "try_alpha.case": ("later" if k > acc[small]["best_k"] else "earlier" if k < acc[small]["best_k"]
                           else "top" if k == k_max else "same"),
    }


def decisions_taken(data_file, monkeypatch):
    """The key each decision took in the build from `data_file` (python -m generator context's listing)."""
    from generator.pages import context_info
    monkeypatch.setenv("C13_DATA", str(data_file))
    listed = context_info.describe(json.loads(data_file.read_text(encoding="utf-8")))["decisions"]
    return {e["name"]: e["value"] for e in listed}


@pytest.mark.slow("models trained briefly, their data regenerated and a site built")
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_page_built_from_briefly_trained_models_says_nothing_its_numbers_contradict(tmp_path, name, monkeypatch):
    data, site = retrained_site(tmp_path, name)
    taken = decisions_taken(tmp_path / "precomputed" / "c13.json", monkeypatch)
    wrong = {k: (taken[k], v) for k, v in expected_decisions(data).items() if taken[k] != v}
    assert not wrong, f"{name}: decisions (taken, expected): {wrong}"
    text = flat_text(site / "index.html") + flat_text(site / "lab.html")  # the lesson and its measurement lab
    labels, replay = data["tokenizer"]["labels"], data["replay"]
    byte_tokens = any(labels[t].startswith("‹") for t in replay["prompt_tokens"] + replay["tokens"])
    assert taken["script.byte_tokens"] == ("yes" if byte_tokens else "no"), f"{name}: the note on byte tokens"
    if CASES[name][2]:
        assert taken["script.text"] == "han", f"{name}: the note on bytes and Chinese characters"
    else:  # the prose, and every attribute and script of the page (the byte tokens' tooltips, E4's legend)
        assert "汉字" not in text, f"{name}: a remark on Chinese characters on an English page"
        page, lab = ((site / built).read_text(encoding="utf-8") for built in ("index.html", "lab.html"))
        e4 = (site / "assets" / "c13" / "e4" / "index.js").read_text(encoding="utf-8")
        replay = (site / "assets" / "c13" / "figures" / "replay.mjs").read_text(encoding="utf-8")
        for where, source in (("index.html", page), ("lab.html", lab), ("e4/index.js", e4),
                              ("figures/replay.mjs", replay)):
            assert "才是一个汉字" not in source, f"{name}: {where} says the bytes make a Chinese character"
