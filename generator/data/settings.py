"""The settings of gen_c13_precomputed: prompts, run sizes, seeds, stored digits. Changing one changes c13.json.

generator.data.precompute re-exports every name, so `precompute.ACCOUNTING` and this module's are one dict.
"""
from ..models.family import DRAFTS

PROMPTS = ("孔明曰：「", "卻說曹操", "玄德曰：「", "次日，")   # short openings found in the corpus
PREFIXES = PROMPTS[:2]                                          # where E2 shows the full p and q
GREEDY = {"n_new": 48, "ks": (2, 4)}
OFFLINE = {"n": 200_000, "seed": 20221130}                      # seeds are seed + index, recorded
REPLAY = {"draft": DRAFTS[0], "k": 4, "n_new": 32, "seed": 7, "max_tries": 100}
ACCOUNTING = {"seeds": (1, 2, 3), "n_new": 96, "ks": tuple(range(1, 9))}
SPREAD = {"n_new": 32, "seed": 11}                              # α along the target's own samples
DIGITS = 4                                                      # significant digits of stored probabilities
# How the page shows the data; the browser needs them too, so they live here, in the data, once.
DISPLAY = {"top_n": 12,       # tokens shown one by one in E2's pictures; the rest fold into one column
           "small_vocab": 8}  # E3's small scale, small enough to count the cells


def rounded(x, digits=DIGITS):
    return float(f"{x:.{digits}g}")


def stored_dist(probs):
    """A distribution as c13.json stores it; every consumer (offline checks, browser) uses these values."""
    return [rounded(v) for v in probs.tolist()]
