"""Speculative sampling with real models (Leviathan et al. 2022, Algorithm 1), every round recorded.

The draft proposes k tokens one at a time; the target scores all of them in one forward over the
appended segment, which yields k + 1 next-token distributions. Token i is kept with probability
min(1, p_i(x_i) / q_i(x_i)); at the first rejection the output is drawn from norm(max(0, p_i − q_i))
and the round ends; if all k are kept, a bonus token is drawn from p_{k+1}. A round therefore yields
between 1 and k + 1 tokens, for exactly one target forward.
"""
import random

import torch

from ..errors import SettingError
from ..models.model import KVCache


class Decoder:
    """A model with a KV cache over a token sequence that grows and is cut back after rejections."""

    def __init__(self, model):
        self.model, self.cache, self.seen, self.forwards = model, KVCache(model.cfg.n_layer), [], 0

    @torch.no_grad()
    def probs(self, tokens, last):
        """Next-token distributions (float64, T = 1) after each of the last `last` positions of tokens."""
        keep = 0
        while keep < min(len(self.seen), len(tokens) - last) and self.seen[keep] == tokens[keep]:
            keep += 1
        self.cache.truncate(keep)
        logits = self.model(torch.tensor([tokens[keep:]]), self.cache)[0, -last:]
        self.seen, self.forwards = list(tokens), self.forwards + 1
        return torch.softmax(logits.double(), dim=-1)


def draw(probs, u):
    """Inverse-CDF draw with uniform u ∈ [0, 1); never lands on a zero-probability token.

    The first i with cdf[i] > u·total has probs[i] > 0 (a zero adds nothing to the cdf); only when u·total
    rounds up to the total does the search run off the end, and then the last possible token is drawn.
    """
    cdf = torch.cumsum(probs, 0)
    i = int(torch.searchsorted(cdf, u * cdf[-1], right=True))
    return i if i < len(probs) else int(torch.nonzero(probs > 0)[-1])


def check_fits(model, prompt, n_new, k):
    need = len(prompt) + n_new + k
    if k < 1:
        raise SettingError(f"k = {k}: the draft must propose at least one token per round")
    if need > model.cfg.block_size:
        raise SettingError(f"prompt ({len(prompt)} tokens) + {n_new} new tokens + k = {k} is {need} positions, "
                           f"more than the context of {model.cfg.block_size}: the verification would be truncated")


def speculative_run(target, draft, prompt, n_new, k, seed=0, greedy=False, keep_dists=False):
    """Generate at least n_new tokens after prompt (token ids). Returns tokens, rounds and forward counts.

    greedy=True is temperature 0: a draft token is kept iff it is the target's argmax, so the output must
    equal the target's own greedy decoding. Otherwise T = 1 with random.Random(seed); each round records
    the uniforms it used: one per drafted token, one per acceptance test, one for the final draw.
    """
    check_fits(target, prompt, n_new, k)
    rng = random.Random(seed)
    tgt, dft = Decoder(target), Decoder(draft)
    tokens, rounds = list(prompt), []
    while len(tokens) - len(prompt) < n_new:
        drafted, q_dists, draw_u = [], [], []
        for _ in range(k):
            q = dft.probs(tokens + drafted, 1)[0]
            u = None if greedy else rng.random()
            drafted.append(int(q.argmax()) if greedy else draw(q, u))
            q_dists.append(q)
            draw_u.append(u)
        p_dists = tgt.probs(tokens + drafted, k + 1)
        rec = {"draft": drafted, "q": [], "p": [], "accept_prob": [], "u": [], "accepted": 0,
               "draw_u": draw_u}
        for i, x in enumerate(drafted):
            p_x, q_x = float(p_dists[i][x]), float(q_dists[i][x])
            if greedy:
                ok, a, u = x == int(p_dists[i].argmax()), None, None
            else:
                a, u = min(1.0, p_x / q_x), rng.random()
                ok = u < a
            for key, value in (("p", p_x), ("q", q_x), ("accept_prob", a), ("u", u)):
                rec[key].append(value)
            if not ok:  # at T = 0 both are point masses, so the residual is the target's own argmax
                residual = p_dists[i] if greedy else torch.clamp(p_dists[i] - q_dists[i], min=0)
                rec["kind"], final = "resampled", residual
                break
            rec["accepted"] += 1
        else:
            rec["kind"], final = "bonus", p_dists[k]
        rec["final_u"] = None if greedy else rng.random()
        rec["token"] = int(final.argmax()) if greedy else draw(final, rec["final_u"])
        if keep_dists:
            rec["p_dists"], rec["q_dists"] = p_dists, q_dists
        tokens += drafted[:rec["accepted"]] + [rec["token"]]
        rec["yield"] = rec["accepted"] + 1
        rounds.append(rec)
    return {"tokens": tokens[len(prompt):], "rounds": rounds,
            "target_forwards": tgt.forwards, "draft_forwards": dft.forwards}


@torch.no_grad()
def greedy_decode(model, prompt, n_new):
    """The reference: one token at a time, a full forward over the whole sequence each step, no cache."""
    tokens = list(prompt)
    for _ in range(n_new):
        tokens.append(int(model(torch.tensor([tokens]))[0, -1].argmax()))
    return tokens[len(prompt):]


@torch.no_grad()
def distributions(model, tokens):
    """p(· | tokens[:i+1]) for every position i, from one plain forward (float64, T = 1)."""
    return torch.softmax(model(torch.tensor([tokens]))[0].double(), dim=-1)
