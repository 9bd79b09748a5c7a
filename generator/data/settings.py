"""The settings of gen_c13_precomputed. What an author changes lives in precomputed/lesson.toml (prompts, seeds, run
sizes, the k range and the lesson's k, TV's n, what the widgets offer), read here with the standard library and
checked key by key; what only the generator's author changes (stored digits) stays below. Changing either changes
c13.json: the file is a recorded input, this module is generator code.

The data stage reads the lesson file beside the c13.json it writes (`--precomputed`): generator/cli.py names it in
C13_LESSON before this module is imported, in this process and the worker it starts, so both read the same file.
generator.data.precompute re-exports every name, so `precompute.ACCOUNTING` and this module's are one dict.
"""
import hashlib
import os
import tomllib
from pathlib import Path

from ..errors import InputError
from ..models.family import DRAFTS

LESSON_NAME = "lesson.toml"
LESSON_ENV = "C13_LESSON"
DEFAULT_LESSON = Path(__file__).resolve().parents[2] / "precomputed" / LESSON_NAME
DIGITS = 4  # significant digits of stored probabilities

# every key of lesson.toml: (kind, smallest, largest); lists are of whole numbers, ascending, or of texts. The ranges
# are what the page can speak of: k.max from 2 (the lesson compares k's: the best k, E5's tries), TV's n from 100 (fewer
# draws of a 2,048-token distribution leave its TV near 1, and the curve's first fall is noise), the accounting's new
# tokens from 8 (fewer test so few positions that the pooled α can come out 0% or 100%, where the formula has no best
# k and E[N] no bound), E2's top_n to 15 (its picture's columns, with the rest, keep their text legible in the widest
# column, 980 px: widgets/figures/svg.mjs). What depends on the models (each run, and one of E6's choices, within
# their context) is checked when they are loaded (precompute.py).
SCHEMA = {
    "prompts": ("texts", 2, 16),
    "k.max": ("int", 2, 16), "k.lesson": ("int", 1, 16), "k.greedy": ("ints", 1, 16),
    "greedy.new_tokens": ("int", 1, 120),
    "replay.new_tokens": ("int", 1, 120), "replay.seed": ("int", 0, 2**31), "replay.max_tries": ("int", 1, 10_000),
    "accounting.seeds": ("ints", 0, 2**31), "accounting.new_tokens": ("int", 8, 120),
    "alpha_positions.new_tokens": ("int", 1, 120), "alpha_positions.seed": ("int", 0, 2**31),
    "offline.n": ("int", 1_000, 10_000_000), "offline.seed": ("int", 0, 2**31),
    "tv.ns": ("ints", 100, 10_000_000), "tv.seeds": ("int", 1, 20), "tv.seed": ("int", 0, 2**31),
    "display.top_n": ("int", 2, 15), "display.small_vocab": ("int", 2, 16),
    "e2.live_sizes": ("ints", 100, 1_000_000),
    "e6.new_tokens": ("ints", 1, 120),
}


# sections an older lesson.toml may still use, with their names now
RENAMED = {"spread": "alpha_positions"}


def _flat(table, path, prefix=""):
    """{"k.max": 8, …} from the parsed file; a key of no known place is refused by name."""
    out = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if name in SCHEMA:
            out[name] = value
        elif isinstance(value, dict) and any(s.startswith(name + ".") for s in SCHEMA):
            out.update(_flat(value, path, name + "."))
        elif name in RENAMED:
            raise InputError(path, name, f"was renamed [{RENAMED[name]}] (the same settings): rename the section")
        else:
            raise InputError(path, name, f"is not a setting of the lesson; the settings are: {', '.join(SCHEMA)}")
    return out


def _check(name, value, path):
    kind, low, high = SCHEMA[name]
    whole = lambda v: isinstance(v, int) and not isinstance(v, bool)  # noqa: E731
    if kind == "int":
        if not (whole(value) and low <= value <= high):
            raise InputError(path, name, f"must be a whole number from {low:,} to {high:,}, got {value!r}")
    elif kind == "ints":
        if not (isinstance(value, list) and value and all(whole(v) and low <= v <= high for v in value)):
            raise InputError(path, name, f"must be a list of whole numbers from {low:,} to {high:,}, got {value!r}")
        if value != sorted(set(value)):
            raise InputError(path, name, f"must list each number once, ascending, got {value!r}")
    elif not (isinstance(value, list) and low <= len(value) <= high
              and all(isinstance(v, str) and v.strip() for v in value) and len(set(value)) == len(value)):
        raise InputError(path, name, f"must be a list of {low} to {high} different, non-empty texts, got {value!r}")


def lesson_bytes(path):
    """The file's bytes, read once: what is parsed is what is hashed (LESSON_SHA256)."""
    try:
        return Path(path).read_bytes()
    except OSError as e:
        raise InputError(path, None, f"cannot read the lesson's settings ({e.strerror})") from None


def read_lesson(path, raw=None):
    """The settings of lesson.toml at path (raw: its bytes, when read already), flat ({"k.max": 8, …}), every key
    present and checked, and checked against each other (the lesson's k within the k range, the shown prompts among
    the prompts)."""
    path = Path(path)
    raw = lesson_bytes(path) if raw is None else raw
    try:
        table = tomllib.loads(raw.decode("utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise InputError(path, None, f"is not valid TOML ({e})") from None
    except UnicodeDecodeError as e:
        raise InputError(path, None, f"is not UTF-8 text (byte {e.start}: {e.reason}): save it as UTF-8") from None
    flat = _flat(table, path)
    missing = [name for name in SCHEMA if name not in flat]
    if missing:
        raise InputError(path, missing[0], "is missing: every setting of the lesson must be given "
                                           f"(missing: {', '.join(missing)})")
    for name, value in flat.items():
        _check(name, value, path)
    for name in ("k.lesson", "k.greedy"):
        values = flat[name] if isinstance(flat[name], list) else [flat[name]]
        if max(values) > flat["k.max"]:
            raise InputError(path, name, f"is {flat[name]!r}, beyond k.max = {flat['k.max']}")
    _check_across(flat, path)
    return flat


# TV against n: the page compares the fall over the first three n with the fall over the last three, and says the TV
# falls at every n; so at least this many n, each at least TV_STEP times the one before.
TV_COUNT, TV_STEP = 4, 10


def _check_across(flat, path):
    """What one key asks of another (the ranges alone are checked by _check)."""
    k, n = flat["k.lesson"], flat["replay.new_tokens"]
    if n < k + 2:  # E4's replay must show a 1-token round and a (k + 1)-token round: k + 2 tokens at least
        raise InputError(path, "replay.new_tokens", f"is {n}, too few for a replay that shows both a 1-token round and "
                                                    f"a full round of k.lesson + 1 = {k + 1} tokens: make it at least "
                                                    f"{k + 2}")
    ns = flat["tv.ns"]
    if len(ns) < TV_COUNT:
        raise InputError(path, "tv.ns", f"lists {len(ns)} n, got {ns!r}: the page compares the TV's fall over the "
                                        f"first three n with its fall over the last three; give at least {TV_COUNT}")
    steps = [(a, b) for a, b in zip(ns, ns[1:]) if b < TV_STEP * a]
    if steps:
        a, b = steps[0]
        raise InputError(path, "tv.ns", f"goes from {a:,} to {b:,}: each n must be at least {TV_STEP} times the one "
                                        "before, so that the TV falls clear of the sampling noise at every n")


LESSON_FILE = Path(os.environ.get(LESSON_ENV) or DEFAULT_LESSON)
_raw = lesson_bytes(LESSON_FILE)
_lesson = read_lesson(LESSON_FILE, _raw)
# the sha256 of the settings this process runs on: the data stage records the file's, and refuses to write when the
# two differ (the file was saved between this import and the recording, e.g. under `make preview`)
LESSON_SHA256 = hashlib.sha256(_raw).hexdigest()

PROMPTS = tuple(_lesson["prompts"])                             # short openings found in the corpus
PREFIXES = PROMPTS[:2]                                          # where E2 shows the full p and q
LESSON_K = _lesson["k.lesson"]                                  # E4's replay; E1 and E3 verify LESSON_K + 1 positions
GREEDY = {"n_new": _lesson["greedy.new_tokens"], "ks": tuple(_lesson["k.greedy"])}
OFFLINE = {"n": _lesson["offline.n"], "seed": _lesson["offline.seed"]}   # seeds are seed + index, recorded
REPLAY = {"draft": DRAFTS[0], "k": LESSON_K, "n_new": _lesson["replay.new_tokens"], "seed": _lesson["replay.seed"],
          "max_tries": _lesson["replay.max_tries"]}
ACCOUNTING = {"seeds": tuple(_lesson["accounting.seeds"]), "n_new": _lesson["accounting.new_tokens"],
              "ks": tuple(range(1, _lesson["k.max"] + 1))}
ALPHA_POSITIONS = {"n_new": _lesson["alpha_positions.new_tokens"], "seed": _lesson["alpha_positions.seed"]}
TV = {"ns": tuple(_lesson["tv.ns"]), "seeds": _lesson["tv.seeds"], "seed": _lesson["tv.seed"]}
# How the page shows the data; the browser needs them too, so they live in the data, once (c13.json → constants).
DISPLAY = {"top_n": _lesson["display.top_n"], "small_vocab": _lesson["display.small_vocab"]}
WIDGETS = {"e2_live_sizes": list(_lesson["e2.live_sizes"]), "e6_new_tokens": list(_lesson["e6.new_tokens"])}


def rounded(x, digits=DIGITS):
    return float(f"{x:.{digits}g}")


def stored_dist(probs):
    """A distribution as c13.json stores it; every consumer (offline checks, browser) uses these values."""
    return [rounded(v) for v in probs.tolist()]
