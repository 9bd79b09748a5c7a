"""The data stage checks the prompts of lesson.toml as training checks them, before any work: a prompt that
falls apart into raw bytes under the models' tokenizer (emoji, characters the corpus never has, English under a
Chinese tokenizer), one with a control character, and one too long for the context with its runs are refused,
naming lesson.toml, the key `prompts` and the prompt."""
import shutil
import subprocess
import sys

import pytest

from generator.data import precompute
from generator.errors import InputError
from generator.models.checkpoint import load_family
from tests.conftest import MODELS, ROOT

COMMITTED = ("孔明曰：「", "卻說曹操", "玄德曰：「", "次日，")


@pytest.fixture(scope="module")
def tokenizer():
    return load_family(MODELS)[0]


def refusal(monkeypatch, tok, prompts):
    monkeypatch.setattr(precompute, "PROMPTS", prompts)
    with pytest.raises(InputError) as e:
        precompute.check_prompts(tok, 128)
    return str(e.value)


@pytest.mark.parametrize("prompt, words", [
    ("😀🎉👍", "falls apart into raw bytes under the models' tokenizer (100% of its tokens"),
    ("量子计算机", "falls apart into raw bytes under the models' tokenizer (89% of its tokens"),
    ("Hello world", "falls apart into raw bytes"),
    ("曹操\x07曰", "holds the control character '\\x07' (U+0007)"),
    ("曹操\n曰", "holds the control character '\\n' (U+000A)"),
])
def test_a_prompt_the_models_cannot_continue_is_refused_by_file_key_and_prompt(monkeypatch, tokenizer, prompt, words):
    message = refusal(monkeypatch, tokenizer, (COMMITTED[0], prompt))
    assert message.startswith(f"{precompute.LESSON_FILE}: prompts: the prompt {prompt!r} "), message
    assert words in message and "change it to an opening" in message


def test_a_prompt_too_long_for_the_context_with_its_runs_is_refused_by_file_key_and_prompt(monkeypatch, tokenizer):
    long = "卻說曹操" * 20
    message = refusal(monkeypatch, tokenizer, (COMMITTED[0], long))
    assert message.startswith(f"{precompute.LESSON_FILE}: prompts: the prompt {long!r} is "), message
    assert "more than the models' context of 128; shorten it to at most 24 tokens" in message
    assert "accounting.new_tokens" in message


def test_runs_too_long_for_any_prompt_are_named_by_their_key(monkeypatch, tokenizer):
    from generator.errors import SettingError
    monkeypatch.setattr(precompute, "PROMPTS", COMMITTED)
    monkeypatch.setitem(precompute.GREEDY, "n_new", 126)
    with pytest.raises(SettingError) as e:
        precompute.check_prompts(tokenizer, 128)
    assert str(e.value).startswith(f"{precompute.LESSON_FILE}: greedy.new_tokens: its runs need 130 positions")


def test_the_committed_prompts_pass(monkeypatch, tokenizer):
    monkeypatch.setattr(precompute, "PROMPTS", COMMITTED)
    assert list(precompute.check_prompts(tokenizer, 128)) == list(COMMITTED)


@pytest.mark.slow("the data stage started as a command")
def test_the_data_command_refuses_before_any_work(tmp_path):
    pre = tmp_path / "precomputed"
    pre.mkdir()
    for name in ("anchor-model.json", "papers.json", "lesson.toml"):
        shutil.copy2(ROOT / "precomputed" / name, pre / name)
    lesson = pre / "lesson.toml"
    text = lesson.read_text(encoding="utf-8")
    old = 'prompts = ["孔明曰：「", "卻說曹操", "玄德曰：「", "次日，"]'
    assert text.count(old) == 1
    lesson.write_text(text.replace(old, 'prompts = ["😀🎉👍", "次日，"]'), encoding="utf-8")
    out = tmp_path / "c13.json"
    run = subprocess.run([sys.executable, "-m", "generator", "data", "--precomputed", str(pre), "--out", str(out),
                          "--quiet"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 2, run.stdout[-2000:] + run.stderr[-2000:]
    error = run.stderr.strip().splitlines()[-1]
    assert error.startswith(f"error: {lesson}: prompts: the prompt '😀🎉👍' falls apart into raw bytes"), error
    assert "Traceback" not in run.stderr and not out.exists()
