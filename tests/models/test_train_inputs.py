"""Training checks its inputs: wrapped lines joined by their script, a held-out part free of text repeated
in training, and a refusal (a warning with --force) when the lesson's prompts are not in the corpus, fall apart into
raw bytes, or when a model's held-out loss is no better than guessing. Then `make train` passes STEPS, CORPUS, OUT and
FORCE, and says where it writes before it starts. Every corpus here is text the test writes itself."""
import math
import random
import subprocess
import sys

import pytest

from generator.errors import InputError
from generator.models.checks import byte_share, check_losses, check_prompts
from generator.models.corpus import paragraphs
from generator.models.train import Recipe, split, train_all
from generator.models.family import DRAFTS, TARGET
from tests.conftest import ROOT
from tests.models.test_train import synthetic_text

TINY = dict(batch_size=8, block_size=32, n_layer=1, n_head=2, lr=3e-3, warmup=5, eval_every=20, vocab_size=300,
            heldout_fraction=0.2, widths={TARGET: 32, DRAFTS[0]: 8, DRAFTS[1]: 16})


def english_text(n_paragraphs=150, seed=5, width=30):
    """Hard-wrapped paragraphs of Latin-script sentences, blank lines between them: words of made-up syllables, many
    enough that a byte-level BPE finds thousands of merges."""
    rng = random.Random(seed)
    syllables = [c + v for c in "bcdfghklmnprstvwz" for v in ("a", "e", "i", "o", "u", "ai", "ou")]
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(3000)]
    lines = []
    for _ in range(n_paragraphs):
        para = " ".join(" ".join(rng.choice(words) for _ in range(rng.randint(4, 9))).capitalize() + "."
                        for _ in range(3))
        row = ""
        for word in para.split(" "):
            if len(row) + len(word) + 1 > width:
                lines.append(row)
                row = word
            else:
                row = f"{row} {word}" if row else word
        lines += [row, ""]
    return "\n".join(lines)


def test_wrapped_lines_join_by_their_script():
    text = "\u3000\u3000白\n髮漁樵江渚上\n\nWords that were\nwrapped here,\nand there.\n\n曹操\nsaid 「好」\n"
    assert paragraphs(text) == ["白髮漁樵江渚上", "Words that were wrapped here, and there.", "曹操said 「好」"]
    words = " ".join(paragraphs(english_text())).split()
    assert all(w.strip(".").isalpha() for w in words), "two words were glued where a line was wrapped"


def pieces_of(paragraph_texts):
    """(text, ids) per paragraph: 40 copies of one id per text, so that the ids tell which text they came from."""
    ids = {t: i for i, t in enumerate(dict.fromkeys(paragraph_texts))}
    return [(t, [ids[t]] * 40) for t in paragraph_texts], ids


def test_the_held_out_part_holds_no_paragraph_of_the_training_part():
    texts = [f"p{i}" for i in range(60)] + ["p3", "p7", "new1", "p11", "new2", "new3", "new4", "new5"]
    r = Recipe(block_size=32, heldout_fraction=0.2)
    pieces, ids = pieces_of(texts)
    train, held, _, _, dropped = split(pieces, r, "corpus.txt")
    assert dropped == 3  # p3, p7 and p11 are in the held-out part's place, and in training
    assert not set(held.tolist()) & set(train.tolist())
    assert set(held.tolist()) == {ids[t] for t in ("p55", "p56", "p57", "p58", "p59", "new1", "new2", "new3", "new4",
                                                    "new5")}
    assert len(train) + len(held) + 40 * dropped == 40 * len(texts)


def test_a_text_that_repeats_itself_is_refused_by_name():
    texts = [f"p{i}" for i in range(40)] * 2
    with pytest.raises(InputError) as e:
        split(pieces_of(texts)[0], Recipe(block_size=32, heldout_fraction=0.2), "twice.txt")
    assert str(e.value).startswith("twice.txt: ") and "repeats itself" in str(e.value)


def test_held_out_loss_worse_than_guessing_is_reported_per_model():
    stats = {"a": {"heldout_loss": 6.0, "train_loss": 0.1}, "b": {"heldout_loss": 5.0, "train_loss": 4.0}}
    problems = check_losses(stats, 300)
    assert len(problems) == 1 and problems[0].startswith("a's held-out loss 6.00") and f"{math.log(300):.2f}" in problems[0]


@pytest.fixture
def judged_worse_than_chance(monkeypatch):
    """Real training whose losses are judged against a uniform guess over 2 tokens (ln 2 = 0.69), which no tiny model
    beats: the real check, on real models, with a bar low enough to fail in seconds (the full recipe on a single
    chapter does the same at ln 2,048 in half an hour)."""
    import generator.models.train as train
    monkeypatch.setattr(train, "check_losses", lambda stats, vocab: check_losses(stats, 2))


def test_models_worse_than_chance_are_refused_and_nothing_is_written(judged_worse_than_chance, tmp_path):
    corpus = tmp_path / "tiny.txt"
    corpus.write_text(synthetic_text(), encoding="utf-8")
    out = tmp_path / "out"
    with pytest.raises(InputError) as e:
        train_all(corpus, out, Recipe(steps=10, **TINY))
    message = str(e.value)
    assert message.startswith(f"{corpus}: {TARGET}'s held-out loss ") and "worse than guessing uniformly" in message
    assert "--force" in message and f"Nothing was written to {out}" in message
    assert not out.exists(), "a refused run wrote files"


def test_force_writes_them_with_a_warning(judged_worse_than_chance, tmp_path, capsys):
    corpus = tmp_path / "tiny.txt"
    corpus.write_text(synthetic_text(), encoding="utf-8")
    train_all(corpus, tmp_path / "out", Recipe(steps=10, **TINY), force=True)
    assert (tmp_path / "out" / "card.json").is_file()
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 3 and all("worse than guessing uniformly" in w for w in warnings)


def test_prompts_missing_from_the_corpus_or_broken_into_bytes_are_named():
    from generator.models.tokenizer import train_tokenizer
    text = "\n".join(paragraphs(synthetic_text(120, seed=2)))
    tok = train_tokenizer(text, 360)
    assert byte_share(tok, "甲往東城") == 0
    assert byte_share(tok, "諸葛亮") == 1.0  # characters the corpus never has: three bytes each
    problems = check_prompts(text, tok, ("甲往", "諸葛亮曰"))
    assert len(problems) == 2
    assert "'諸葛亮曰'" in problems[0] and "do not occur" in problems[0] and "'甲往'" not in problems[0]
    assert "'諸葛亮曰'" in problems[1] and "raw bytes" in problems[1]


def run_train(*args):
    return subprocess.run([sys.executable, "-m", "generator", "train", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.slow("the train command started with torch")
def test_the_command_refuses_a_corpus_without_the_lessons_prompts_before_training(tmp_path):
    corpus = tmp_path / "english.txt"
    corpus.write_text(english_text(1500), encoding="utf-8")
    out = tmp_path / "models"
    (out / DRAFTS[0]).mkdir(parents=True)
    (out / "card.json").write_text("{}", encoding="utf-8")
    run = run_train("--corpus", str(corpus), "--out", str(out), "--steps", "5")
    assert run.returncode == 2, run.stderr[-2000:]
    assert f"writing to {out}/ once all models have trained" in run.stdout
    assert f"replaces: {DRAFTS[0]}, card.json" in run.stdout
    error = run.stderr.strip().splitlines()[-1]
    assert error.startswith(f"error: {corpus}: the lesson's prompts ") and "do not occur in the corpus" in error
    assert "all models" not in run.stderr, "it started training before refusing"
    assert (out / "card.json").read_text(encoding="utf-8") == "{}"


def test_make_train_passes_steps_corpus_out_and_force():
    import os
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}  # run by `make test`
    run = subprocess.run(["make", "--no-print-directory", "-n", "train", "CORPUS=/x/a.txt", "STEPS=300", "OUT=/tmp/m",
                          "FORCE=1"], cwd=ROOT, capture_output=True, text=True, env=env)
    line = [ln for ln in run.stdout.splitlines() if "-m generator train" in ln]
    assert line and line[-1].endswith("-m generator train --corpus /x/a.txt --steps 300 --out /tmp/m --force"), run.stdout


@pytest.mark.slow("three tiny models trained for 30 steps")
def test_one_estimate_for_the_whole_run(tmp_path):
    corpus = tmp_path / "tiny.txt"
    corpus.write_text(synthetic_text(), encoding="utf-8")
    run = subprocess.run([sys.executable, "-c", (
        "import sys; from generator.models.train import Recipe, train_all;"
        "from tests.models.test_train_inputs import TINY;"
        f"train_all({str(corpus)!r}, {str(tmp_path / 'o')!r}, Recipe(steps=30, **TINY))")],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    overall = [line for line in run.stderr.replace("\r", "\n").splitlines() if "all models" in line]
    assert overall and "100%" in overall[-1] and "left" in overall[-1], run.stderr[-1500:]
