"""Many independent speculative runs (T = 1) at once: each draft step and each verification is one batched forward.

The accounting table makes 12 runs per draft and k that share nothing but the models. Here they advance
together, round by round: the draft proposes the next token of every unfinished run in one forward, and the
target verifies every run's k tokens in one forward. Each run keeps its own sequence, its own KV cache rows
(its own length and learned positions; the model masks every other slot) and its own random.Random(seed),
and every decision is speculative_run's: the same sampler calls with the same uniforms in the same order.
Only the floats of a batched forward may differ from the unbatched ones, in the last bits.
"""
import random

import torch

from ..models.model import RowsKVCache
from .shared_sampler import sampler
from .speculative import check_fits


class RowsDecoder:
    """Decoder for many sequences at once: a model with one RowsKVCache row per sequence."""

    def __init__(self, model, batch):
        self.model, self.cache = model, RowsKVCache(model.cfg.n_layer, batch)

    def rollback(self, row, valid):
        """Forget row's cached positions from `valid` on (drafts that were rejected)."""
        self.cache.lengths[row] = min(int(self.cache.lengths[row]), valid)

    def keep(self, rows):
        self.cache.keep(rows)

    @torch.inference_mode()
    def probs(self, seqs, last):
        """For each sequence b, the next-token distributions (float64, T = 1) after its last `last` positions:
        a (B, last, vocab) tensor. Row b of the cache must hold seqs[b]'s leading tokens."""
        for b, seq in enumerate(seqs):
            self.rollback(b, len(seq) - last)  # the last `last` positions must be fed to get their outputs
        cached = self.cache.lengths.tolist()
        feeds = [seq[n:] for seq, n in zip(seqs, cached)]
        width = max(map(len, feeds))
        idx = torch.tensor([feed + [0] * (width - len(feed)) for feed in feeds])
        logits = self.model.forward_rows(idx, self.cache)
        fed = torch.tensor([len(feed) for feed in feeds])
        self.cache.lengths += fed
        at = (fed - last)[:, None] + torch.arange(last)  # where each row's last `last` real tokens sit in idx
        return torch.softmax(logits[torch.arange(len(seqs))[:, None], at].double(), dim=-1)


class Run:
    """One run's state: its sequence, its random stream, its rounds and the forwards it took part in."""

    def __init__(self, prompt, seed):
        self.prompt, self.tokens, self.rng, self.rounds = prompt, list(prompt), random.Random(seed), []
        self.target_forwards = self.draft_forwards = 0

    def new(self):
        return len(self.tokens) - len(self.prompt)

    def result(self):
        return {"tokens": self.tokens[len(self.prompt):], "rounds": self.rounds,
                "target_forwards": self.target_forwards, "draft_forwards": self.draft_forwards}


def speculative_runs(target, draft, jobs, n_new, k):
    """speculative_run(target, draft, prompt, n_new, k, seed=seed) for every (prompt, seed) in jobs, together.
    Returns their results in the order of jobs (tokens, rounds, forward counts, as speculative_run's)."""
    for prompt, _ in jobs:
        check_fits(target, prompt, n_new, k)
    runs = [Run(prompt, seed) for prompt, seed in jobs]
    active = list(runs)
    tgt, dft = RowsDecoder(target, len(runs)), RowsDecoder(draft, len(runs))
    while active:
        drafted, q_rows, draw_u = ([[] for _ in active] for _ in range(3))
        for _ in range(k):
            q = dft.probs([run.tokens + d for run, d in zip(active, drafted)], 1)[:, 0]
            for run, row, d, rows, us in zip(active, q.tolist(), drafted, q_rows, draw_u):
                u = run.rng.random()
                d.append(sampler.draw(row, u))
                rows.append(row)
                us.append(u)
        p = tgt.probs([run.tokens + d for run, d in zip(active, drafted)], k + 1)
        for b, (run, p_rows) in enumerate(zip(active, p.tolist())):
            run.draft_forwards += k  # the k draft steps above, each one forward with this run in the batch
            run.target_forwards += 1
            rec = sampler.verify(p_rows, q_rows[b], drafted[b], run.rng)
            rec.update(draft=drafted[b], draw_u=draw_u[b], **{"yield": rec["accepted"] + 1})
            tgt.rollback(b, len(run.tokens) + rec["accepted"])
            dft.rollback(b, len(run.tokens) + rec["accepted"])
            run.tokens += drafted[b][:rec["accepted"]] + [rec["token"]]
            run.rounds.append(rec)
        going = [b for b, run in enumerate(active) if run.new() < n_new]
        if len(going) < len(active):  # finished runs leave the batch
            active = [active[b] for b in going]
            tgt.keep(going)
            dft.keep(going)
    return [run.result() for run in runs]
