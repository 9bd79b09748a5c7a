"""What training checks in its inputs and results before it writes anything.

Each check returns problems as sentences (empty: nothing wrong). Training refuses on a problem and leaves the models
it would have replaced as they are; `--force` turns a refusal into a warning for an author who means it.
- the lesson's prompts must occur in the corpus, hold no control character, and not fall apart into raw bytes under
  its tokenizer (a prompt the models never saw gives the page's runs nothing to continue); the data stage checks the
  last two against the committed tokenizer (prompt_problems), as it cannot see the corpus;
- every model's held-out loss must beat guessing uniformly over the vocabulary (ln V nats per token).
"""
import math
import sys
import unicodedata

from ..errors import InputError
from .tokenizer import token_bytes

# a prompt "falls apart" when more than this share of its tokens are pieces of a character, not whole characters
BYTE_SHARE_LIMIT = 0.5


def byte_share(tok, text):
    """The share of text's tokens that are raw bytes, not tokens the tokenizer learnt: a piece of a UTF-8 character
    (😀 is four such bytes), or one byte the tokenizer never merged with anything (`Hello` spelt letter by letter
    by a tokenizer of Chinese). A lone space is a token of its own in any byte-level BPE, and counts as learnt."""
    pieces = token_bytes(tok)
    ids = tok.encode(text).ids
    raw = 0
    for i in ids:
        try:
            pieces[i].decode("utf-8")
            raw += len(pieces[i]) == 1 and not pieces[i].isspace()
        except UnicodeDecodeError:
            raw += 1
    return raw / len(ids) if ids else 0.0


def prompt_problems(tok, prompts, whose="the new"):
    """Problems with the prompts themselves under tokenizer tok, whatever the corpus: a control character (a prompt is
    a line of plain text), or more than BYTE_SHARE_LIMIT of its tokens raw bytes. whose: which tokenizer, in words."""
    problems = []
    for p in prompts:
        control = [c for c in p if unicodedata.category(c) == "Cc"]
        if control:
            problems.append(f"the prompt {p!r} holds the control character {control[0]!r} "
                            f"(U+{ord(control[0]):04X}): a prompt is one line of plain text")
        share = byte_share(tok, p)
        if share > BYTE_SHARE_LIMIT:
            problems.append(f"the prompt {p!r} falls apart into raw bytes under {whose} tokenizer ({share:.0%} of "
                            f"its tokens are pieces of a character or bytes never merged): the corpus hardly uses its "
                            f"characters")
    return problems


def check_prompts(text, tok, prompts):
    """Problems with the lesson's prompts against this corpus and its freshly trained tokenizer."""
    problems = []
    missing = [p for p in prompts if p not in text]
    if missing:
        problems.append("the lesson's prompts " + ", ".join(repr(p) for p in missing) + " do not occur in the corpus: "
                        "the models will not have seen how they go on (change the prompts in "
                        "precomputed/lesson.toml, or train on a text that has them)")
    return problems + prompt_problems(tok, prompts)


def check_losses(stats, vocab_size):
    """Problems with the trained models: a held-out loss no better than guessing uniformly (ln vocab_size)."""
    uniform = math.log(vocab_size)
    return [f"{name}'s held-out loss {m['heldout_loss']:.2f} is worse than guessing uniformly over "
            f"{vocab_size:,} tokens (ln {vocab_size:,} = {uniform:.2f}; train loss {m['train_loss']:.2f}): it learnt "
            f"the training part by heart, not the language — train on a longer text, or for fewer steps"
            for name, m in stats.items() if not m["heldout_loss"] < uniform]


def warn_or_refuse(problems, source, force, what="nothing was trained or written"):
    """Refuse (InputError naming source) on any problem, or with force print each as a warning and go on."""
    if not problems:
        return
    if not force:
        raise InputError(source, None, "; ".join(problems) + f". {what[0].upper()}{what[1:]}; "
                                       "to go ahead anyway, add --force (make train FORCE=1)")
    for problem in problems:
        print(f"warning: {source}: {problem} (going on: --force)", file=sys.stderr)
