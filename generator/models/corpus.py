"""Read the training text and undo its hard wrapping.

A corpus is hard-wrapped, often mid-sentence (ours at about 38 characters). A paragraph starts with an
indentation of ideographic spaces, or after a blank line. We join each paragraph's lines back together, drop the
indentation, and put one paragraph per line. How two lines join depends on the script at the break: Chinese (and
any other script written without spaces, whose characters are wide) joins with nothing, `…白` + `髮漁樵…`; Latin
and other narrow scripts join with one space, `for` + `software` → `for software`.
"""
import hashlib
import unicodedata
from pathlib import Path

from ..errors import InputError

INDENT = "\u3000"


def is_wide(ch):
    """A character of a script written without spaces between words: East Asian wide or fullwidth (CJK ideographs,
    kana, hangul, fullwidth punctuation). Ambiguous-width marks such as “ ” … count as wide: in Chinese text they
    sit between characters that take no space."""
    return unicodedata.east_asian_width(ch) in "WFA"


def join_lines(pieces):
    """One paragraph from its stripped lines: a space where both sides of a break are narrow, else nothing.
    >>> join_lines(["words that run", "on"]), join_lines(["白", "髮漁樵"]), join_lines(["曹操", "said"])
    ('words that run on', '白髮漁樵', '曹操said')
    """
    out = pieces[0]
    for piece in pieces[1:]:
        if out and piece and not is_wide(out[-1]) and not is_wide(piece[0]):
            out += " "
        out += piece
    return out


def paragraphs(text):
    """Return the paragraphs of hard-wrapped text, each as one unwrapped string."""
    out, current = [], []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            if current:
                out.append(join_lines(current))
                current = []
            continue
        if line.startswith(INDENT) and current:  # an indented line opens a new paragraph
            out.append(join_lines(current))
            current = []
        current.append(stripped.strip(INDENT))
    if current:
        out.append(join_lines(current))
    return out


def read_corpus(path):
    """Read a corpus file and return (joined text, sha256 of the file's bytes)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise InputError(path, None, f"cannot read the corpus ({e.strerror})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(path, None, f"the corpus is not UTF-8 (byte {e.start})") from None
    joined = "\n".join(paragraphs(text)) + "\n"
    if len(joined) < 1000:
        raise InputError(path, None, f"only {len(joined)} characters of text, too little to train on: give a longer text")
    return joined, hashlib.sha256(raw).hexdigest()
