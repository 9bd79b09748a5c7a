"""The browser's tokenizer (widgets/e6/tokenizer.mjs) against the `tokenizers` library on models/tokenizer.json.

Each test runs Node once (tests/widgets/node/e6_tokenize.mjs) on one JSON job: the corpus, the edge cases, the labels of
every id, the options of the file, and malformed files.
"""
import json
import shutil
import string
import subprocess

import pytest
from tokenizers import Tokenizer

from generator.models.corpus import paragraphs
from generator.models.tokenizer import _bytes_to_unicode, label, token_labels, train_tokenizer
from tests.conftest import CORPUS, MODELS, ROOT

DRIVER = ROOT / "tests" / "widgets" / "node" / "e6_tokenize.mjs"
TOKENIZER = MODELS / "tokenizer.json"

EDGE_CASES = [
    # emoji: plain, skin tones, ZWJ sequences, a flag with a variation selector
    "😀", "😀😀 😀", "👍🏽 👋🏿", "👨‍👩‍👧‍👦", "🏳️‍🌈 家", "孔明😀曰",
    # simplified and traditional characters, CJK extension B
    "说话 說話", "诸葛亮与曹操", "諸葛亮與曹操", "孔明曰：「吾自有妙計。」", "𠀀𠀁 罕字",
    # CRLF, lone CR, runs of newlines
    "第一行\r\n第二行\r\n", "a\r\nb", "a\rb", "\r", "\r\r\n\n", "\n", "\n\n\n", "a\n\n\nb", "a \n \nb", "曹操\n\n\n劉備",
    # U+3000 and other Unicode white space (U+0085 is white space for the library's regex, U+FEFF is not)
    "\u3000\u3000天下大勢", "a\u3000 b", "\u3000", "a \u00a0b", "a \x85b", "a \ufeffb", "\ufeff開頭", "x\u200by",
    # repeated spaces and tabs, leading and trailing spaces, only spaces, the empty string
    "a  b", "a   \t\t b", "\t\tx", "x \t \t", "  hello", "hello  ", " 曹操 ", "", " ", "     ", "\t",
    # digits, fullwidth and other numerals, ASCII punctuation
    "123456789", "2048 tokens", "１２３", "第3回 12.5%", "١٢٣ Ⅻ", string.punctuation, "!!!...??? a,b;c",
    # mixed Latin and Chinese
    "Mixed 中文 and ASCII, 123 — ok?\n第二行", "GPT模型speculative解码", "k=4，α≈0.8",
    # contractions (lower case only, as GPT-2's regex), and an apostrophe elsewhere
    "it's don't they're we've I'm you'll he'd", "IT'S DON'T", "'s", " 's", "rock 'n' roll",
    # the replacement character, a control character, NUL
    "\ufffd", "a\ufffdb", "a\x00b\x1c",
]

# runs of one character, where pairs of equal tokens overlap
TIES = ["aaa", "aaaaa", "aaaaaaa b", "-----", "=======", "!!!!!", "哈哈哈哈哈", "      x", "\n\n\n\n\n", "——————"]


def run_node(job, tmp_path):
    node = shutil.which("node") or pytest.fail("node is needed (install Node 20)")
    path = tmp_path / "job.json"
    path.write_text(json.dumps(job, ensure_ascii=False), encoding="utf-8")
    run = subprocess.run([node, str(DRIVER), str(path)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.fixture(scope="module")
def lib():
    return Tokenizer.from_file(str(TOKENIZER))


def corpus_texts():
    """Every paragraph of the corpus, then its first 2,000 raw lines (hard-wrapped, with the U+3000 indentation and
    the newline: the text as the file has it)."""
    assert CORPUS.is_file(), f"{CORPUS} is missing (the corpus lives in ../shared/corpus, never in the project)"
    text = CORPUS.read_text(encoding="utf-8")
    return paragraphs(text) + text.splitlines(keepends=True)[:2000]


@pytest.mark.slow("the whole corpus encoded twice")
def test_every_paragraph_of_the_corpus_encodes_as_the_library_does(tmp_path, lib):
    texts = corpus_texts()
    out = run_node({"tokenizer": str(TOKENIZER), "texts": texts}, tmp_path)
    expected = [e.ids for e in lib.encode_batch(texts)]
    wrong = [i for i, (got, want) in enumerate(zip(out["ids"], expected)) if got != want]
    assert len(out["ids"]) == len(texts) > 2000
    assert not wrong, f"{len(wrong)} of {len(texts)} differ, first: {texts[wrong[0]]!r}"
    assert out["decoded"] == texts


def test_edge_cases_encode_as_the_library_does_and_decode_back(tmp_path, lib):
    out = run_node({"tokenizer": str(TOKENIZER), "texts": EDGE_CASES}, tmp_path)
    for text, ids, decoded in zip(EDGE_CASES, out["ids"], out["decoded"]):
        assert ids == lib.encode(text).ids, f"encode({text!r})"
        assert decoded == text, f"decode(encode({text!r}))"
    assert out["ids"][EDGE_CASES.index("")] == []


def test_edge_cases_split_into_the_librarys_words(tmp_path, lib):
    """The pre-tokenizer's words, compared directly: with this vocabulary (no merge across white space) a wrong split
    of white space would not show in the ids."""
    out = run_node({"tokenizer": str(TOKENIZER), "texts": EDGE_CASES, "words": True}, tmp_path)
    stand_in = _bytes_to_unicode()
    for text, words in zip(EDGE_CASES, out["words"]):
        expected = [w for w, _ in lib.pre_tokenizer.pre_tokenize_str(text)]
        assert ["".join(stand_in[b] for b in w.encode()) for w in words] == expected, f"words({text!r})"


def test_a_tokenizer_trained_on_the_edge_cases_encodes_as_the_library_does(tmp_path):
    """A small BPE trained by the library on the edge cases has merges the lesson's lacks (of white space, of a pair
    of equal tokens as in "aaaa", where the leftmost of equal pairs must merge first)."""
    text = "\n".join(EDGE_CASES + TIES) * 20 + "\n".join(paragraphs(CORPUS.read_text(encoding="utf-8"))[:50])
    path = tmp_path / "tokenizer.json"
    train_tokenizer(text, vocab_size=600).save(str(path))
    other = Tokenizer.from_file(str(path))
    texts = EDGE_CASES + TIES
    out = run_node({"tokenizer": str(path), "texts": texts}, tmp_path)
    spec = json.loads(path.read_text(encoding="utf-8"))
    assert any(a == b for a, b in spec["model"]["merges"]), "the trained merges should include a pair of equal tokens"
    for text, ids in zip(texts, out["ids"]):
        assert ids == other.encode(text).ids, f"encode({text!r})"


def test_decode_of_split_characters_matches_the_library(tmp_path, lib):
    """Token sequences that cut a character: the library's lossy UTF-8 and TextDecoder give the same U+FFFD."""
    ming = lib.encode("明").ids
    pieces = [i for i in range(lib.get_vocab_size()) if "\ufffd" in lib.decode([i])][:40]
    assert pieces, "a byte-level BPE of 2,048 tokens keeps some partial characters"
    sequences = [[p] for p in pieces] + [pieces[:5], ming + pieces[:2], pieces[:1] + ming]
    texts = [lib.decode(s) for s in sequences]
    out = run_node({"tokenizer": str(TOKENIZER), "texts": [], "decodeIds": sequences}, tmp_path)
    assert out["decodedIds"] == texts


def test_every_label_equals_the_python_label(tmp_path, lib):
    out = run_node({"tokenizer": str(TOKENIZER), "labels": True}, tmp_path)
    assert out["vocabSize"] == lib.get_vocab_size() == 2048
    expected = token_labels(lib)
    wrong = [(i, got, want) for i, (got, want) in enumerate(zip(out["labels"], expected)) if got != want]
    assert len(out["labels"]) == len(expected) and not wrong, wrong[:5]


def test_label_of_any_bytes_equals_the_python_label(tmp_path):
    """label(bytes) on what no token of this vocabulary holds: a BOM, NUL, invisible and separator characters,
    surrogates and overlong forms (hex in both), cut characters between whole ones, an emoji."""
    samples = [b"\xef\xbb\xbf", b"\x00\x1c", "\u200b\u3000\x85\u00a0 \t\r\n".encode(), b"\xed\xa0\x80",
               b"\xc0\x80", b"\xf4\x90\x80\x80", b"a\xe6\x98b\x8e", "😀👍🏽".encode(), "😀".encode()[:3], b"\xff\xfe",
               "明".encode()[1:] + "曰".encode()]
    out = run_node({"labelBytes": [list(b) for b in samples]}, tmp_path)
    assert out["byteLabels"] == [label(b) for b in samples]


@pytest.mark.parametrize("options", [{"ignore_merges": True}, {"add_prefix_space": True}, {"use_regex": False}])
def test_the_files_options_are_honoured(tmp_path, lib, options):
    """The same vocabulary with another setting of ignore_merges, add_prefix_space or use_regex."""
    spec = json.loads(TOKENIZER.read_text(encoding="utf-8"))
    for key, value in options.items():
        (spec["model"] if key == "ignore_merges" else spec["pre_tokenizer"])[key] = value
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    other = Tokenizer.from_file(str(path))
    texts = EDGE_CASES + paragraphs(CORPUS.read_text(encoding="utf-8"))[:200]
    out = run_node({"tokenizer": str(path), "texts": texts}, tmp_path)
    expected = [e.ids for e in other.encode_batch(texts)]
    wrong = [t for t, got, want in zip(texts, out["ids"], expected) if got != want]
    assert not wrong, f"{len(wrong)} differ, first: {wrong[0]!r}"


def _broken(change):
    spec = json.loads(TOKENIZER.read_text(encoding="utf-8"))
    change(spec)
    return spec


def _drop_byte(spec):
    del spec["model"]["vocab"]["!"]


MALFORMED = [  # (what is wrong, the words the Error names)
    (lambda s: s.clear(), "model.type"),
    (lambda s: s["model"].update(type="WordPiece"), "model.type"),
    (lambda s: s["model"].pop("vocab"), "model.vocab"),
    (lambda s: s["model"].update(merges="a b"), "model.merges"),
    (lambda s: s["model"]["merges"].insert(0, ["!", "zzzz"]), "model.merges[0]"),
    (lambda s: s["model"]["merges"].insert(3, ["a"]), "model.merges[3]"),
    (lambda s: s["model"]["vocab"].update({"!": 1}), "id 1 is given twice"),
    (lambda s: s["model"]["vocab"].update({"!": 99999}), "id 99999"),
    (lambda s: s["model"]["vocab"].update({"!": "0"}), "id 0"),
    (_drop_byte, "model.vocab has no token for byte 33"),
    (lambda s: s.update(normalizer={"type": "NFC"}), "normalizer"),
    (lambda s: s.update(pre_tokenizer={"type": "Whitespace"}), "pre_tokenizer"),
    (lambda s: s.update(truncation={"max_length": 8}), "truncation"),
    (lambda s: s.update(added_tokens=[{"id": 0, "content": "<s>"}]), "added_tokens"),
    (lambda s: s["model"].update(dropout=0.1), "dropout"),
    (lambda s: s["model"].update(end_of_word_suffix="</w>"), "end_of_word_suffix"),
]


def test_a_malformed_tokenizer_file_throws_an_error_naming_what_is_wrong(tmp_path):
    broken = [_broken(change) for change, _ in MALFORMED] + [[], None, "tokenizer"]
    names = [name for _, name in MALFORMED] + ["not a JSON object"] * 3
    out = run_node({"malformed": broken}, tmp_path)
    for message, name in zip(out["errors"], names):
        assert message is not None, f"fromJSON accepted a file whose {name} is wrong"
        assert message.startswith("tokenizer.json: ") and name in message, message
