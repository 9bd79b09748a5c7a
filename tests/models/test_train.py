"""A training smoke test on text the test writes itself (never the corpus)."""
import json
import random
import subprocess
import sys

import pytest

from generator.models.checkpoint import load_family
from generator.models.train import Recipe, train_all
from generator.models.family import DRAFTS, TARGET
from tests.conftest import ROOT


def synthetic_text(n_paragraphs=120, seed=7):
    """A few KB of hard-wrapped, Chinese-looking text from a tiny grammar: learnable, not random."""
    rng = random.Random(seed)
    people, verbs, places = ["甲", "乙", "丙將軍", "丁先生"], ["往", "攻", "守", "見"], ["東城", "西關", "南山", "北營"]
    lines = []
    for _ in range(n_paragraphs):
        sentence = "".join(f"{rng.choice(people)}{rng.choice(verbs)}{rng.choice(places)}，" for _ in range(rng.randint(2, 4)))
        sentence = sentence[:-1] + "。"
        para = "\u3000\u3000" + sentence
        lines += [para[i:i + 12] for i in range(0, len(para), 12)] + [""]
    return "\n".join(lines)


def test_training_smoke_loss_falls_and_writes_a_loadable_family(tmp_path):
    corpus = tmp_path / "tiny.txt"
    corpus.write_text(synthetic_text(), encoding="utf-8")
    assert 3_000 < corpus.stat().st_size < 20_000
    recipe = Recipe(steps=60, batch_size=8, block_size=32, n_layer=1, n_head=2, lr=3e-3, warmup=5,
                    eval_every=20, vocab_size=300, heldout_fraction=0.2,
                    widths={TARGET: 32, DRAFTS[0]: 8, DRAFTS[1]: 16})
    card = train_all(corpus, tmp_path / "out", recipe)
    for name, m in card["models"].items():
        first, last = m["heldout_curve"][0]["heldout_loss"], m["heldout_curve"][-1]["heldout_loss"]
        assert last < first - 0.3, f"{name}: held-out loss did not fall ({first} → {last})"
        assert m["train_loss"] < 5.7  # ln(300) ≈ 5.70: below chance
    tok, models = load_family(tmp_path / "out")
    assert tok.get_vocab_size() == 300 and set(models) == set(card["models"])
    on_disk = json.loads((tmp_path / "out" / "card.json").read_text(encoding="utf-8"))
    assert on_disk["corpus"]["sha256"] == card["corpus"]["sha256"]
    assert "held-out loss" in (tmp_path / "out" / "README.md").read_text(encoding="utf-8")


def test_training_is_deterministic(tmp_path):
    corpus = tmp_path / "tiny.txt"
    corpus.write_text(synthetic_text(60, seed=9), encoding="utf-8")
    recipe = Recipe(steps=8, batch_size=4, block_size=16, n_layer=1, n_head=1, warmup=2, eval_every=8,
                    vocab_size=280, heldout_fraction=0.2, widths={TARGET: 16, DRAFTS[0]: 8, DRAFTS[1]: 8})
    a = train_all(corpus, tmp_path / "a", recipe)
    b = train_all(corpus, tmp_path / "b", recipe)
    assert a["tokenizer"]["sha256"] == b["tokenizer"]["sha256"]
    for name in a["models"]:
        assert a["models"][name]["sha256"] == b["models"][name]["sha256"]


@pytest.mark.slow("the train command started with torch")
def test_a_corpus_too_small_for_the_recipe_is_refused_in_one_line(tmp_path):
    corpus = tmp_path / "small.txt"
    corpus.write_text(synthetic_text(120, seed=3), encoding="utf-8")
    out_dir = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "generator", "train", "--corpus", str(corpus), "--out", str(out_dir)],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 2, run.stderr[-2000:]
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert str(corpus) in lines[0] and "tokens" in lines[0] and "longer text" in lines[0]
    assert not out_dir.exists() or not any(out_dir.iterdir()), "a refused run wrote models"


def test_too_few_tokens_for_the_context_name_the_corpus_and_the_size_needed(tmp_path):
    from generator.errors import InputError
    from generator.models.train import split
    corpus = tmp_path / "small.txt"
    with pytest.raises(InputError) as e:
        split([(f"段落{i}", list(range(i * 31, i * 31 + 31))) for i in range(62)], Recipe(), corpus)
    message = str(e.value)
    assert message.startswith(f"{corpus}: ") and "1,922 tokens" in message and "longer text" in message
    needed = int(message.split("at least about ")[1].split(" ")[0].replace(",", ""))
    cut = int(needed * (1 - Recipe().heldout_fraction))
    assert needed - cut >= Recipe().block_size + 2, "the size it asks for would still be refused"
