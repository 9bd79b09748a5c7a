"""The byte-level BPE tokenizer: training, loading, and a readable label for every token id."""
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from ..errors import InputError

VOCAB_SIZE = 2048


def train_tokenizer(text, vocab_size=VOCAB_SIZE, source="<corpus>"):
    """Train a byte-level BPE on unwrapped text; every byte is in the alphabet, so nothing is unknown.

    `source` names the corpus file in the message when the text is too small for the vocabulary."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(text.splitlines(keepends=True), trainer=trainer)
    if tok.get_vocab_size() != vocab_size:
        raise InputError(source, None, f"the text is too small for a vocabulary of {vocab_size:,} tokens (BPE stopped "
                                       f"at {tok.get_vocab_size():,}): train on a longer text")
    return tok


TOKENIZER_FIX = "restore it from git (git restore models/tokenizer.json) or retrain with `make train`"


def load_tokenizer(path):
    """The tokenizer at path, checked to be byte-level: every token of its vocabulary spelt in the byte alphabet."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, None, "tokenizer file is missing")
    try:
        tok = Tokenizer.from_file(str(path))
    except Exception as e:  # the library raises a bare Exception on malformed JSON
        raise InputError(path, None, f"not a readable tokenizer ({e})") from None
    check_byte_level(tok, path)
    return tok


def check_byte_level(tok, path):
    """Every token id below the vocabulary size, each token made of byte-level characters only: what token_bytes
    (and so every label and the models' fingerprint) reads. Anything else is an InputError naming the token."""
    alphabet, size = set(_byte_decoder()), tok.get_vocab_size()
    for piece, i in sorted(tok.get_vocab().items(), key=lambda item: item[1]):
        if not 0 <= i < size:
            raise InputError(path, "model.vocab", f"token {piece!r} has id {i}, outside 0…{size - 1}; "
                                                  f"{TOKENIZER_FIX}")
        if not piece:
            raise InputError(path, "model.vocab", f"token id {i} is empty; {TOKENIZER_FIX}")
        strange = next((ch for ch in piece if ch not in alphabet), None)
        if strange is not None:
            raise InputError(path, "model.vocab", f"token {piece!r} (id {i}) is not byte-level BPE: {strange!r} "
                                                  f"(U+{ord(strange):04X}) is not a character of the byte alphabet; "
                                                  f"{TOKENIZER_FIX}")


def _byte_decoder():
    """The inverse of byte-level BPE's byte → printable-character table."""
    return {ch: b for b, ch in _bytes_to_unicode().items()}


def _bytes_to_unicode():
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def token_bytes(tok):
    """The raw bytes of every token id, as a list indexed by id."""
    dec = _byte_decoder()
    out = [b""] * tok.get_vocab_size()
    for piece, i in tok.get_vocab().items():
        out[i] = bytes(dec[ch] for ch in piece)
    return out


_SHOWN = {"\n": "⏎", " ": "␠", "\t": "⇥", "\r": "␍"}


def label(raw):
    """A readable label for a token's bytes: whole UTF-8 characters as text, other bytes as ‹hex›, consecutive ones grouped.

    Whitespace and control characters are made visible, so no label is blank or a bare U+FFFD.
    """
    parts, hexes, i = [], [], 0

    def flush():
        if hexes:
            parts.append("‹" + " ".join(hexes) + "›")
            hexes.clear()

    while i < len(raw):
        for width in (1, 2, 3, 4):
            try:
                ch = raw[i:i + width].decode("utf-8")
            except UnicodeDecodeError:
                continue
            break
        else:
            hexes.append(f"{raw[i]:02X}")
            i += 1
            continue
        flush()
        if ch in _SHOWN:
            ch = _SHOWN[ch]
        elif not ch.isprintable():
            ch = f"‹U+{ord(ch):04X}›"
        parts.append(ch)
        i += width
    flush()
    return "".join(parts)


def token_labels(tok):
    return [label(b) for b in token_bytes(tok)]
