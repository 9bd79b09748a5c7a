"""Speculative sampling with real models (Leviathan et al. 2022, Algorithm 1), every round recorded.

The draft proposes k tokens one at a time; the target scores all of them in one forward over the
appended segment, which yields k + 1 next-token distributions. Torch only runs the models: every draft
draw, accept test, residual draw and bonus draw is made by widgets/sampler.py (the file the browser runs),
on the rows as Python lists of float64. A round yields between 1 and k + 1 tokens, for exactly one target
forward.
"""
import random

import torch

from ..errors import SettingError
from ..models.model import KVCache
from ..shared_sampler import sampler


class Decoder:
    """A model with a KV cache over a token sequence that grows and is cut back after rejections.

    `cached` is the number of leading tokens whose keys and values the cache holds; the caller says how many
    of them are still valid after a round (rollback), so no call compares token lists.
    """

    def __init__(self, model):
        self.model, self.cache, self.cached, self.forwards = model, KVCache(model.cfg.n_layer), 0, 0

    def rollback(self, valid):
        """Forget every cached position from `valid` on (tokens that were drafted and then rejected)."""
        if valid < self.cached:
            self.cached = valid
            self.cache.truncate(valid)

    @torch.inference_mode()
    def probs(self, tokens, last):
        """Next-token distributions (float64, T = 1) after each of the last `last` positions of tokens,
        as a (last, vocab) tensor. tokens[:self.cached] must be what the cache holds."""
        self.rollback(len(tokens) - last)  # the last `last` positions must be fed to get their outputs
        logits = self.model(torch.tensor([tokens[self.cached:]]), self.cache)[0, -last:]
        self.cached, self.forwards = len(tokens), self.forwards + 1
        return torch.softmax(logits.double(), dim=-1)


def check_fits(model, prompt, n_new, k):
    need = len(prompt) + n_new + k
    if k < 1:
        raise SettingError(f"k = {k}: the draft must propose at least one token per round")
    if need > model.cfg.block_size:
        raise SettingError(f"prompt ({len(prompt)} tokens) + {n_new} new tokens + k = {k} is {need} positions, "
                           f"more than the context of {model.cfg.block_size}: the verification would be truncated")


def speculative_run(target, draft, prompt, n_new, k, seed=0, greedy=False, keep_dists=False):
    """Generate at least n_new tokens after prompt (token ids). Returns tokens, rounds and forward counts.

    greedy=True is temperature 0: a draft token is kept iff it is the target's greedy pick, so the output
    must equal the target's own greedy decoding. Otherwise T = 1 with random.Random(seed); each round records
    the uniforms it used, in the stream order sampler.py documents: one per drafted token, one per accept
    test, one for the final draw.
    """
    check_fits(target, prompt, n_new, k)
    rng = random.Random(seed)
    tgt, dft = Decoder(target), Decoder(draft)
    tokens, rounds = list(prompt), []
    while len(tokens) - len(prompt) < n_new:
        drafted, q_dists, q_rows, draw_u = [], [], [], []
        for _ in range(k):
            q = dft.probs(tokens + drafted, 1)[0]
            row = q.tolist()
            u = None if greedy else rng.random()
            drafted.append(sampler.greedy_pick(row) if greedy else sampler.draw(row, u))
            q_dists.append(q)
            q_rows.append(row)
            draw_u.append(u)
        p_dists = tgt.probs(tokens + drafted, k + 1)
        p_rows = p_dists.tolist()
        rec = sampler.verify(p_rows, q_rows, drafted, None if greedy else rng)
        rec.update(draft=drafted, draw_u=draw_u, **{"yield": rec["accepted"] + 1})
        if keep_dists:
            rec["p_dists"], rec["q_dists"] = p_dists, q_dists
        tgt.rollback(len(tokens) + rec["accepted"])
        dft.rollback(len(tokens) + rec["accepted"])
        tokens += drafted[:rec["accepted"]] + [rec["token"]]
        rounds.append(rec)
    return {"tokens": tokens[len(prompt):], "rounds": rounds,
            "target_forwards": tgt.forwards, "draft_forwards": dft.forwards}


def greedy_decode(model, prompt, n_new):
    """The reference: the target's own greedy decoding, one token at a time with its KV cache (Decoder), the
    pick made by sampler.greedy_pick, the same T = 0 rule as the speculative runs."""
    decoder, tokens = Decoder(model), list(prompt)
    for _ in range(n_new):
        tokens.append(sampler.greedy_pick(decoder.probs(tokens, 1)[0].tolist()))
    return tokens[len(prompt):]


@torch.inference_mode()
def distributions(model, tokens):
    """p(· | tokens[:i+1]) for every position i, from one plain forward (float64, T = 1)."""
    return torch.softmax(model(torch.tensor([tokens]))[0].double(), dim=-1)
