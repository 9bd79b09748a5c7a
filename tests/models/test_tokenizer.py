from generator.models.corpus import paragraphs
from generator.models.tokenizer import VOCAB_SIZE, label, token_bytes, token_labels


def test_committed_tokenizer_has_the_lesson_vocabulary(tok):
    assert tok.get_vocab_size() == VOCAB_SIZE


def test_round_trip_chinese_and_mixed_text(tok):
    for text in ["孔明曰：「吾自有妙計。」", "卻說曹操引兵至城下", "Mixed 中文 and ASCII, 123 — ok?\n第二行", "emoji 😀 與罕字 𠀀"]:
        ids = tok.encode(text).ids
        assert tok.decode(ids) == text
        assert all(0 <= i < VOCAB_SIZE for i in ids)


def test_every_id_has_bytes_and_a_nonblank_label(tok):
    raw = token_bytes(tok)
    labels = token_labels(tok)
    assert len(raw) == len(labels) == VOCAB_SIZE
    assert all(raw) and all(labels)
    assert "\ufffd" not in "".join(labels)
    assert len(set(raw)) == VOCAB_SIZE  # ids are distinct byte strings


def test_labels_show_whole_characters_as_text_and_split_ones_as_hex(tok):
    ming = "明".encode()  # three bytes: E6 98 8E
    assert label(ming) == "明"
    assert label(ming[:2]) == "‹E6 98›"
    assert label("曰".encode() + ming[:1]) == "曰‹E6›"
    assert label(b"\n") == "⏎" and label(b" ") == "␠"
    # The committed tokenizer has tokens that are parts of characters; each reads as hex.
    split = [(b, lab) for b, lab in zip(token_bytes(tok), token_labels(tok)) if b[0] >= 0xE0 and len(b) < 3]
    assert split, "a byte-level BPE of 2,048 tokens keeps some partial characters"
    for b, lab in split:
        assert lab == "‹" + " ".join(f"{x:02X}" for x in b) + "›"


def test_paragraphs_join_hard_wrapped_lines():
    text = "第一章：題目\n\n\u3000\u3000天下大勢，分久\n必合，合久必分。\n\n\u3000\u3000次段一行。\n\u3000\u3000緊接新段。\n"
    assert paragraphs(text) == ["第一章：題目", "天下大勢，分久必合，合久必分。", "次段一行。", "緊接新段。"]
