"""The page's comparisons and conclusions, decided from the data (issue 26).

Every sentence of the pages (docs/index.md, docs/lab.md) that says which draft is better, which k is best, whether speculation pays, what is
slower, bigger or closer either takes its wording from one of these helpers or calls one of their checks, which
stops the build with ClaimError naming the check, the page and lines that call it (or read the helper's
decision) and the numbers that contradict it. Comparisons are made on the
figures as the page prints them (two decimals for a speedup, one for a percentage): two figures that print alike
are never called larger and smaller.

The helpers read c13.json (and the build machine's timings, when there are any) and nothing else; the template
registers them as `claims` (generator/pages/context.py).
"""
import json
import math
import re
import unicodedata
from pathlib import Path

from .formats import prob
from ..speedup import best_k, speedup

ROOT = Path(__file__).resolve().parents[2]
THRESHOLDS_FILE = ROOT / "widgets" / "thresholds.json"
DOCS = ROOT / "docs"  # the pages whose sentences the checks guard

# The lesson's named thresholds (widgets/thresholds.json, read by E6's report as well): what each decides is written
# beside its value there.
THRESHOLDS = {name: entry["value"] for name, entry in json.loads(THRESHOLDS_FILE.read_text(encoding="utf-8")).items()
              if name != "about"}
TINY_SUM_PQ, TOGETHER, MANY_SMALL = THRESHOLDS["tiny_sum_pq"], THRESHOLDS["together"], THRESHOLDS["many_small"]
FAR_BELOW, FAR_ABOVE = THRESHOLDS["far_below"], THRESHOLDS["far_above"]
SAME_SIZE, CLEAR_OF_NOISE = THRESHOLDS["same_size"], THRESHOLDS["clear_of_noise"]
# E5's first try: α is dragged up to the first of these above the small draft's own α (a lesson choice, not a figure).
TRY_ALPHAS = (0.8, 0.9, 0.95)


def beyond_noise(tv, floor):
    """The lesson's one rule for noise or bias (widgets/e2/runs.js noiseOrBias is its twin in the browser): a TV over
    CLEAR_OF_NOISE times the noise floor is bias; one at or below it cannot be told from noise."""
    return tv > CLEAR_OF_NOISE * floor


def page_lines(pattern):
    """Where the pages call or read what matches the regex `pattern`: "docs/index.md line(s) N, …" for each page of
    docs/ with such a line (numbered as the template's errors number them), joined by "; "."""
    found = []
    for page in sorted(DOCS.glob("*.md")):
        try:
            text = page.read_text(encoding="utf-8")
        except OSError:
            continue
        lines = [str(i) for i, line in enumerate(text.split("\n"), 1) if re.search(pattern, line)]
        if lines:
            found.append(f"docs/{page.name} line{'s' * (len(lines) > 1)} {', '.join(lines)}")
    return "; ".join(found)


class ClaimError(ValueError):
    """A sentence of the page that the data contradicts, named by what guards it: `check`, the Claims method, and
    where the pages call it, or, for a helper whose result the page reads as a decision, the decision `key`
    and the lines that read it; then why, and the numbers."""

    def __init__(self, check, why, numbers, key=None):
        self.check, self.key, self.why, self.numbers = check, key, why, dict(numbers)
        self.lines = page_lines(rf"\b{re.escape(key)}\b" if key else rf"\bclaims\.{check}\(")
        at = self.lines or "no line of the pages in docs/"
        where = f"read as {key} at {at}" if key else f"called at {at}"
        shown = ", ".join(f"{name} = {value}" for name, value in self.numbers.items())
        super().__init__(f"claims.{check}() ({where}): the sentence it guards does not hold for this data: {why} "
                         f"({shown}); reword it there or find what is wrong with the data")


def shown_times(x):
    """A speedup as the page prints it (formats.times: two decimals)."""
    return float(f"{x:.2f}")


def shown_pct(x):
    """A fraction as the page prints it (formats.pct: a percentage with one decimal), in percentage points."""
    return float(f"{x * 100:.1f}")


def shown_fixed(x, digits):
    return float(f"{x:.{digits}f}")


SHOWN = {"times": shown_times, "pct": shown_pct, "fixed1": lambda x: shown_fixed(x, 1),
         "fixed2": lambda x: shown_fixed(x, 2), "fixed3": lambda x: shown_fixed(x, 3),
         "fixed4": lambda x: shown_fixed(x, 4)}


def order(a, b, fmt):
    """'more', 'less' or 'same': a against b as the page prints them in the format fmt."""
    sa, sb = SHOWN[fmt](a), SHOWN[fmt](b)
    return "more" if sa > sb else "less" if sa < sb else "same"


def is_han(ch):
    return unicodedata.name(ch, "").startswith("CJK UNIFIED IDEOGRAPH")


class Claims:
    """The page's conclusions for one c13.json (`data`) and, optionally, the build machine's usable timings
    (`measured`: generator/pages/measured.py's context, or None)."""

    def __init__(self, data, measured=None, drafts=None):
        self.data, self.measured = data, measured if measured and measured.get("usable") else None
        constants = data["constants"]
        # the small draft first, as the page names them (context.py: by their parameter counts)
        self.small, self.large = drafts or sorted(constants["drafts"], key=lambda d: data["models"][d]["parameters"])
        self.drafts = [self.small, self.large]
        self.ks = constants["ks"]
        self.k_max = max(self.ks)
        self.acc = data["accounting"]["drafts"]
        self.main = data["replay"]["prompt"]

    def row(self, draft, k):
        return next(r for r in self.acc[draft]["rows"] if r["k"] == k)

    # --- the naive scheme (Σ p·q) ------------------------------------------------------------------------------
    def naive(self):
        """How the page speaks of Σ p·q: level 'tiny' (every one below TINY_SUM_PQ), 'far' (every one at most half
        its α) or 'below' (smaller than α, as it always is); waste, for the line after its table: 'none' (tiny),
        'most' (every one below one half: most guesses are thrown away) or 'more'."""
        dist = self.data["distributions"]
        pairs = [(dist[p]["sum_pq"][d], dist[p]["alpha"][d]) for p in dist for d in self.drafts]
        biggest = max(s for s, _ in pairs)
        if biggest < TINY_SUM_PQ:
            level = "tiny"
        elif all(s <= a / 2 for s, a in pairs):
            level = "far"
        else:
            level = "below"
            for s, a in pairs:
                if not float(prob(s).rstrip("%")) < shown_pct(a):  # Σ p·q ≤ α always; printed alike, not "below"
                    raise ClaimError("naive", "Σ p·q is not below α as printed", {"Σ p·q": s, "α": a},
                                     key="naive.level")
        waste = "none" if level == "tiny" else "most" if biggest < 0.5 else "more"
        return {"level": level, "waste": waste, "max": biggest}

    # --- resampling from p after a rejection ---------------------------------------------------------------------
    def resample_bias_visible(self, prefix=None, draft=None):
        """Whether the bias of resampling from p stands clear of the sampling noise on the page's example: its
        closed-form TV over CLEAR_OF_NOISE times the TV of drawing from p directly."""
        prefix, draft = prefix or self.main, draft or self.small
        closed = self.data["distributions"][prefix]["tv_resample_p_closed_form"][draft]
        return beyond_noise(closed, self.data["offline"]["results"][prefix][draft]["direct"]["tv"])

    def check_deficit(self, prefix=None, draft=None):
        """E2's second step, which says that resampling from p under-draws the token the target likes and the draft
        seldom proposes, printing p, q and the output's probability of it: q and the output below p as printed."""
        prefix, draft = prefix or self.main, draft or self.small
        d = self.data["distributions"][prefix]["resample_p_deficit"][draft]
        if not (prob(d["q"]) != prob(d["p"]) and d["q"] < d["p"] and d["output"] < d["p"]
                and prob(d["output"]) != prob(d["p"])):
            raise ClaimError("check_deficit", f"the token that loses most at {prefix!r} is not below p under the draft "
                             "and the output", {"p": d["p"], "q": d["q"], "output": d["output"]})
        return ""

    # --- the accounting: α per k against the pooled α ---------------------------------------------------------
    def alpha_noise(self, k):
        """The line after the small draft's α at the lesson's k with its 95% interval: whether that interval is wider
        than the spread of the per-k rates of both drafts (in percentage points, as printed)."""
        r = self.row(self.small, k)
        width = round(shown_pct(r["alpha_high"]) - shown_pct(r["alpha_low"]), 1)
        spread = max(round(shown_pct(self.acc[d]["alpha_k_max"]) - shown_pct(self.acc[d]["alpha_k_min"]), 1)
                     for d in self.drafts)
        return {"case": "wider" if width > spread else "narrower", "wider": width > spread, "width": width,
                "spread": spread}

    def slow_at_k_max(self, draft):
        """The draft's speedup at k = k_max: said only when k_max is not the draft's best k (or it would repeat the
        best), and whether that figure prints below 1×."""
        a = self.acc[draft]
        r = self.row(draft, self.k_max)
        return {"say": a["best_k"] != self.k_max and shown_times(r["speedup"]) < shown_times(a["best_speedup"]),
                "below_one": shown_times(r["speedup"]) < 1, "speedup": r["speedup"]}

    def measured_best(self, draft):
        """The sentence that puts each k's measured N into the same formula and names the k that comes out best:
        why that best k differs from the best k with the pooled α. 'more' when the runs at that k produced more than
        the formula says (as printed), else 'fewer' when those at the formula's best k produced fewer, else 'close'
        (both print about as the formula says: the two k's were nearly as fast). `row` is the k whose runs it shows
        (`which`: 'at' that k, 'best' the formula's best), `inside` whether the pooled α lies in its 95% interval."""
        a = self.acc[draft]
        at, best = self.row(draft, a["measured_best_k"]), self.row(draft, a["best_k"])
        if order(at["tokens_per_target_forward"], at["formula"], "fixed2") == "more":
            case, row = "more", at
        elif order(best["tokens_per_target_forward"], best["formula"], "fixed2") == "less":
            case, row = "fewer", best
        else:
            case, row = "close", at
        return {"case": case, "row": row, "which": "best" if case == "fewer" else "at", "best_k": best["k"],
                "inside": row["alpha_low"] <= a["alpha"] <= row["alpha_high"]}

    # --- E5's tries --------------------------------------------------------------------------------------------
    def try_alpha(self):
        """E5's first try: the α to drag the small draft's to (the first of TRY_ALPHAS above its own, as printed),
        the best k there, and whether it moved from the draft's best k: case 'later' (to a larger k), 'earlier',
        'top' (it stays, at the top of the slider) or 'same' (it stays below the top)."""
        a = self.acc[self.small]
        target = next((t for t in TRY_ALPHAS if shown_pct(t) > shown_pct(a["alpha"])), None)
        if target is None:
            raise ClaimError("try_alpha", "the small draft's α is already above every α the try offers",
                             {"α": a["alpha"], "tries": TRY_ALPHAS}, key="try_alpha")
        k = best_k(target, a["c"], self.ks)
        later, moved = k > a["best_k"], k != a["best_k"]
        case = "later" if later else "earlier" if moved else "top" if k == self.k_max else "same"
        return {"alpha": target, "k": k, "speedup": speedup(target, a["c"], k), "moved": moved, "later": later,
                "case": case}

    def large_at_k_max(self):
        """E5's fourth try, the large draft at the largest k: 'slower' when its speedup there prints below its best
        (the question why guessing more gets slower holds), else 'best'. With the cost c·k + 1 and the bound
        1 ÷ (1 − α) on E[N], `bounded` says whether the bound alone explains it (the bound below the cost)."""
        a = self.acc[self.large]
        r = self.row(self.large, self.k_max)
        best = self.row(self.large, a["best_k"])
        cost_best, cost = a["c"] * a["best_k"] + 1, a["c"] * self.k_max + 1
        bound = 1 / (1 - a["alpha"]) if a["alpha"] < 1 else math.inf  # every position accepted: E[N] has no bound
        slower = a["best_k"] != self.k_max and shown_times(r["speedup"]) < shown_times(a["best_speedup"])
        return {"case": "slower" if slower else "best", "speedup": r["speedup"], "cost": cost, "bound": bound,
                "bounded": shown_fixed(bound, 2) < shown_fixed(cost, 2), "best_k": a["best_k"],
                "best_speedup": a["best_speedup"], "cost_best": cost_best, "yield_best": best["formula"],
                "yield": r["formula"]}

    # --- which draft is better --------------------------------------------------------------------------------
    def bigger_draft(self):
        """Misconception 2 (a larger, more accurate draft is always better): how our two drafts compare at their best
        k ('smaller_wins', 'larger_wins' or 'tie') and at the largest k, by the formula."""
        s, l = self.acc[self.small], self.acc[self.large]
        out = {"best": {"larger": order(l["best_speedup"], s["best_speedup"], "times"),
                        "small": s["best_speedup"], "small_k": s["best_k"],
                        "large": l["best_speedup"], "large_k": l["best_k"]},
               "k_max": order(self.row(self.large, self.k_max)["speedup"],
                              self.row(self.small, self.k_max)["speedup"], "times"),
               "large_k_max": self.slow_at_k_max(self.large)}
        return out

    def self_drafting(self):
        """The evolution map's line on self-drafting, the large draft at the largest k: 'slows' when it prints below
        1× (and, when timed, its wall clock too), 'costs' when it is below the best of either draft, else 'plain'."""
        r = self.row(self.large, self.k_max)
        best_draft = max(self.drafts, key=lambda d: self.acc[d]["best_speedup"])
        best = self.acc[best_draft]
        wall = None
        if self.measured:
            wall = next(m for m in self.measured["by_draft"][self.large]["rows"] if m["k"] == self.k_max)
            wall = wall["measured"]["median"]
        if shown_times(r["speedup"]) < 1 and (wall is None or shown_times(wall) < 1):
            case = "slows"
        elif shown_times(r["speedup"]) < shown_times(best["best_speedup"]):
            case = "costs"
        else:
            case = "plain"
        return {"case": case, "speedup": r["speedup"], "wall": wall, "best_draft": best_draft,
                "own_best": best_draft == self.large, "best_k": best["best_k"], "best_speedup": best["best_speedup"]}

    def slowest(self):
        """The sentence that speculation is even slower when α is too low or the draft too costly: the slowest of
        every draft and k by the formula, and whether it prints below 1×."""
        draft, r = min(((d, r) for d in self.drafts for r in self.acc[d]["rows"]), key=lambda dr: dr[1]["speedup"])
        return {"draft": draft, "k": r["k"], "speedup": r["speedup"], "below_one": shown_times(r["speedup"]) < 1}

    @staticmethod
    def tv_slower(small_n, large_n):
        """Whether the page may say the TV falls slower at small n, printing how many times it fell there: every fall
        of the TV over the small n (direct, correct) below every fall over the large n, as printed (one decimal)."""
        return max(shown_fixed(f, 1) for f in small_n) < min(shown_fixed(f, 1) for f in large_n)

    def tv_bias_from(self, means):
        """The sentence that, by the lesson's one rule, resampling's TV on the curve becomes bias only from some n: the
        first n at which its geometric mean is beyond_noise of direct sampling's (the noise floor the figure draws);
        "unseen" with the largest n when it never is."""
        ns = self.data["tv_curve"]["ns"]
        for n, resample, direct in zip(ns, means["resample_p"], means["direct"]):
            if beyond_noise(resample, direct):
                return {"case": "seen", "n": n}
        return {"case": "unseen", "n": ns[-1]}

    def check_tv_together(self, means):
        """The correct scheme and drawing from p directly, pure sampling noise, fall together along the noise floor:
        both schemes' TV (the geometric means the figure draws) falls at every n and stays within TOGETHER of the
        other's."""
        ns = self.data["tv_curve"]["ns"]
        correct, direct = means["correct"], means["direct"]
        for i in range(len(ns)):
            if i and not (correct[i] < correct[i - 1] and direct[i] < direct[i - 1]):
                raise ClaimError("check_tv_together", f"a TV does not fall from n = {ns[i - 1]} to n = {ns[i]}",
                                 {"correct": correct[i - 1:i + 1], "direct": direct[i - 1:i + 1]})
            if max(correct[i], direct[i]) > TOGETHER * min(correct[i], direct[i]):
                raise ClaimError("check_tv_together", f"at n = {ns[i]} one TV is over {TOGETHER:g} times the other",
                                 {"correct": correct[i], "direct": direct[i]})
        return ""

    def check_many_small(self, p):
        """At small n many tokens still have n·p_i below 1: at the smallest n at least MANY_SMALL tokens of p have
        n·p_i < 1."""
        ns = self.data["tv_curve"]["ns"]
        small = sum(1 for x in p if ns[0] * x < 1)
        if small < MANY_SMALL:
            raise ClaimError("check_many_small", f"only {small} tokens have n·p_i < 1 at n = {ns[0]}",
                             {"tokens": small, "n": ns[0]})
        return ""

    # --- small sentences that hold or fail -------------------------------------------------------------------
    def check_anchor(self):
        """Checking k + 1 tokens costs about as much as writing one: the anchor's compute bound for the verified
        positions far below its weight-read bound."""
        a = self.data["anchor"]
        if not a["compute_ms_for_positions"] < FAR_BELOW * a["weight_read_ms_per_token"]:
            raise ClaimError("check_anchor", f"the compute bound is not below {FAR_BELOW:g} of the weight-read bound",
                             {"compute ms": a["compute_ms_for_positions"], "weight read ms": a["weight_read_ms_per_token"]})
        return ""

    def check_vocab_between(self):
        """E3: our own model's vocabulary lies between the small scale and the anchor's."""
        small, ours, anchor = (self.data["constants"]["small_vocab"], self.data["tokenizer"]["vocab_size"],
                               self.data["anchor"]["vocab_size"])
        if not small < ours < anchor:
            raise ClaimError("check_vocab_between", "our vocabulary is not between E3's two scales",
                             {"small scale": small, "ours": ours, "anchor": anchor})
        return ""

    def check_measured_costs(self, mc):
        """Why our small target does not pay on a CPU: the measured c far above the parameter ratio, v(k) growing with
        k, and most wall-clock speedups below 1×; from the build machine's timings (any measured.json the page shows,
        stale or not: the sentences speak of its own figures)."""
        s = mc["by_draft"][mc["small"]]  # the timed small draft (the page's may be another model when stale)
        if not s["c"]["median"] >= FAR_ABOVE * s["c_params"]:
            raise ClaimError("check_measured_costs", f"the measured c is not {FAR_ABOVE:g} times the parameter ratio",
                             {"c measured": s["c"]["median"], "parameter ratio": s["c_params"]})
        ks = mc["ks"]
        v_first, v_last = mc["v"][min(ks)]["median"], mc["v"][max(ks)]["median"]
        if order(v_last, v_first, "fixed2") != "more":
            raise ClaimError("check_measured_costs", "v(k) does not grow from the smallest k to the largest as printed",
                             {f"v({min(ks)})": v_first, f"v({max(ks)})": v_last})
        if mc.get("usable") and mc["summary"]["below_one"] * 2 < mc["summary"]["rows"]:
            raise ClaimError("check_measured_costs", "most of the measured wall-clock speedups are at least 1×",
                             {"below 1×": mc["summary"]["below_one"], "of": mc["summary"]["rows"]})
        return ""

    @staticmethod
    def build_read(mc, weight_bytes):
        """How long the build machine's E6 probe takes to read the target's float32 weights once (measured.json →
        browser_forwards → roof): {ms, bandwidth}; None when it recorded no roof. A measured time, not a cache
        size: the page says whether reading is the larger part of a forward from this, never from a guess."""
        roof = (mc.get("browser") or {}).get("roof")
        if not roof:
            return None
        bandwidth = roof["bandwidth_gbs"]["median"]
        return {"ms": weight_bytes / (bandwidth * 1e6), "bandwidth": bandwidth}

    # --- the script of the text ---------------------------------------------------------------------------------
    def script(self):
        """What the notes on bytes may say: whether E4's replay shows byte tokens (labels ‹..›, tokens that are not
        whole UTF-8 characters), the first of them as an example, and whether the prompts and the replay's text are Chinese (Han characters)."""
        labels = self.data["tokenizer"]["labels"]
        replay = self.data["replay"]
        tokens = list(replay["prompt_tokens"]) + list(replay["tokens"])
        byte_tokens = [t for t in tokens if labels[t].startswith("‹") and labels[t].endswith("›")]
        text = "".join(p["text"] for p in self.data["prompts"]) + "".join(labels[t] for t in tokens)
        letters = [ch for ch in text if ch.isalpha()]
        han = bool(letters) and sum(is_han(ch) for ch in letters) * 2 > len(letters)
        return {"byte_tokens": bool(byte_tokens), "example": byte_tokens[0] if byte_tokens else None, "han": han,
                "text": "han" if han else "other"}


def register(ctx, data):
    """The template's `claims` (and `order`, a comparison on printed figures)."""
    ctx["claims"] = Claims(data, ctx.get("measured"), [ctx["small_draft"], ctx["large_draft"]])
    ctx["order"] = order
    return ctx


