"""Read the training text and undo its hard wrapping.

The corpus is wrapped at about 38 characters, often mid-sentence. A paragraph starts with two
ideographic spaces and paragraphs are separated by blank lines. We join each paragraph's lines
back together (no space: the text is Chinese), drop the indentation, and put one paragraph per line.
"""
import hashlib
from pathlib import Path

from ..errors import InputError

INDENT = "\u3000"


def paragraphs(text):
    """Return the paragraphs of hard-wrapped text, each as one unwrapped string."""
    out, current = [], []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            if current:
                out.append("".join(current))
                current = []
            continue
        if line.startswith(INDENT) and current:  # an indented line opens a new paragraph
            out.append("".join(current))
            current = []
        current.append(stripped.strip(INDENT))
    if current:
        out.append("".join(current))
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
