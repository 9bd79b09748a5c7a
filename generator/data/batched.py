"""Many independent speculative runs at once: each draft step and each verification is one batched forward.

The accounting table makes 48 runs per prompt (every draft, k and seed) and the greedy identity 16, that share
nothing but the models. Here any set of runs (each with its own draft and k) advances together: each draft
proposes the next token of every run of its own that is still drafting in one forward, and the target verifies
every run's new tokens in one forward, the tokens ragged (without padding: GPT.forward_ragged). Each run keeps its
own sequence, its own KV cache rows (its own length and learned positions; the model masks every other slot)
and its own random.Random(seed), and every decision is speculative_run's: sampler.verify on the same rows with
the same uniforms in the same order. Only the floats of a batched forward may differ from the unbatched ones, in
the last bits.

With `chunk`, a round is worked out lazily, `chunk` drafted positions at a time: the draft proposes that many,
the target scores them, and sampler.verify is asked for its verdict. If it needs a position not computed yet
(every token so far was kept), its random stream is put back and the next chunk follows; after a rejection the
rest of the round is never drafted nor scored, since nothing of it can change a decision: a round's k uniforms of
the draft draws are taken from the stream at its start, as speculative_run takes them, so every later uniform is
the same. The counts stay the algorithm's (k draft forwards and one target forward per round); the records keep
only the drafted tokens that were drawn.
"""
import random

import torch

from ..models.model import RowsKVCache
from ..shared_sampler import sampler
from .speculative import check_fits


class RowsDecoder:
    """Decoder for many sequences at once: a model with one RowsKVCache row per sequence."""

    def __init__(self, model, batch):
        self.model, self.cache = model, RowsKVCache(model.cfg.n_layer, batch, model.cfg.block_size)
        self.lengths = [0] * batch  # cache.lengths as a list (read on every call)

    def rollback(self, row, valid):
        """Forget row's cached positions from `valid` on (drafts that were rejected)."""
        self.lengths[row] = min(self.lengths[row], valid)

    def keep(self, rows):
        """Keep only the given rows (a list of indices), in that order."""
        self.cache.keep(rows)
        self.lengths = [self.lengths[r] for r in rows]

    @torch.inference_mode()
    def probs(self, rows, seqs, lasts):
        """For cache row rows[i], the next-token distributions (float64, T = 1) after the last lasts[i] positions
        of seqs[i], one batched forward for all: a (sum(lasts), vocab) tensor, row after row. Row rows[i] of the
        cache must hold seqs[i]'s leading tokens; rows not listed feed nothing and keep their cache."""
        idx, row, pos, out = [], [], [], []
        for r, seq, last in zip(rows, seqs, lasts):
            self.rollback(r, len(seq) - last)  # the last `last` positions must be fed to get their outputs
            n = self.lengths[r]
            idx += seq[n:]
            row += [r] * (len(seq) - n)
            pos += range(n, len(seq))
            out += range(len(idx) - last, len(idx))
        self.cache.lengths = torch.tensor(self.lengths)
        logits = self.model.forward_ragged(torch.tensor(idx), torch.tensor(row), torch.tensor(pos), self.cache,
                                           torch.tensor(out))
        for r, seq in zip(rows, seqs):
            self.lengths[r] = len(seq)
        return torch.softmax(logits.double(), dim=-1)


class NeedMore(Exception):
    """sampler.verify reached a drafted position that is not computed yet."""


class Known(list):
    """What is computed so far of a round's k drafted tokens or k + 1 target rows, as sampler.verify reads it:
    its full length, and NeedMore for an entry not there yet."""

    def __init__(self, values, full):
        super().__init__(values)
        self.full = full

    def __len__(self):
        return self.full

    def __iter__(self):
        yield from super().__iter__()
        if super().__len__() < self.full:
            raise NeedMore

    def __getitem__(self, i):
        if i >= super().__len__():
            raise NeedMore
        return super().__getitem__(i)


class Run:
    """One run's state: its draft and k, its sequence, its random stream, its rounds and the forwards it took
    part in, its rows in the target's and its draft's caches, and the round in progress."""

    def __init__(self, draft, k, prompt, seed):
        self.draft, self.k, self.prompt, self.tokens, self.rounds = draft, k, prompt, list(prompt), []
        self.rng = random.Random(seed)
        self.target_forwards = self.draft_forwards = 0
        self.target_row = self.draft_row = 0
        self.drafted, self.q_rows, self.draw_u, self.p_rows = [], [], [], []

    def new(self):
        return len(self.tokens) - len(self.prompt)

    def start_round(self, greedy):
        """The round's k uniforms for the draft draws come first in the stream, as in speculative_run."""
        self.drafted, self.q_rows, self.p_rows = [], [], []
        self.draw_u = [None] * self.k if greedy else [self.rng.random() for _ in range(self.k)]

    def target_rows(self):
        """How many of the round's k + 1 target rows the drafted tokens so far allow (the last only after all k)."""
        return len(self.drafted) + (len(self.drafted) == self.k)

    def result(self):
        return {"tokens": self.tokens[len(self.prompt):], "rounds": self.rounds,
                "target_forwards": self.target_forwards, "draft_forwards": self.draft_forwards}


def speculative_runs(target, draft, jobs, n_new, k, chunk=None):
    """speculative_run(target, draft, prompt, n_new, k, seed=seed) for every (prompt, seed) in jobs, together.
    Returns their results in the order of jobs (tokens, rounds, forward counts, as speculative_run's)."""
    return mixed_runs(target, {"draft": draft}, [("draft", k, prompt, seed) for prompt, seed in jobs], n_new,
                      chunk=chunk)


def mixed_runs(target, drafts, jobs, n_new, greedy=False, chunk=None, progress=None):
    """speculative_run(target, drafts[name], prompt, n_new, k, seed=seed, greedy=greedy) for every
    (name, k, prompt, seed) in jobs, all together; with chunk, each round worked out `chunk` drafted positions
    at a time (see the module's text). progress(fraction), if given, hears after each step which share of the
    tokens to generate is done. Returns their results in the order of jobs."""
    runs = [Run(*job) for job in jobs]
    for run in runs:
        check_fits(target, run.prompt, n_new, run.k)
        run.start_round(greedy)
    tgt = RowsDecoder(target, len(runs))
    dfts = {name: RowsDecoder(drafts[name], sum(run.draft == name for run in runs)) for name in drafts}
    active = _placed(runs, tgt, dfts, keep=False)
    while active:
        want = {id(run): min(run.k, len(run.drafted) + (chunk or run.k)) for run in active}
        for step in range(max(want[id(run)] - len(run.drafted) for run in active)):
            for name, dft in dfts.items():
                _draft_step(dft, [run for run in active if run.draft == name and len(run.drafted) < want[id(run)]],
                            greedy)
        scored = [run for run in active if run.target_rows() > len(run.p_rows)]
        lasts = [run.target_rows() - len(run.p_rows) for run in scored]
        p = tgt.probs([run.target_row for run in scored],
                      [run.tokens + run.drafted[:run.target_rows() - 1] for run in scored], lasts).tolist()
        at = 0
        for run, last in zip(scored, lasts):
            run.p_rows += p[at:at + last]
            at += last
        for run in active:
            _verify(run, tgt, dfts[run.draft], greedy)
        if progress:
            progress(sum(min(run.new(), n_new) for run in runs) / (n_new * len(runs)))
        going = [run for run in active if run.new() < n_new]
        if len(going) < len(active):  # finished runs leave the batch; their cache rows once a quarter is idle
            active = _placed(going, tgt, dfts, keep=4 * len(going) <= 3 * len(tgt.lengths))
    return [run.result() for run in runs]


def _placed(runs, tgt, dfts, keep):
    """The runs still going; with keep, their cache rows kept (in their order) and every other row dropped."""
    if keep:
        tgt.keep([run.target_row for run in runs])
        for name, dft in dfts.items():
            dft.keep([run.draft_row for run in runs if run.draft == name])
    counters = dict.fromkeys(dfts, 0)
    for i, run in enumerate(runs):
        if keep or not run.rounds:
            run.target_row, run.draft_row = i, counters[run.draft]
        counters[run.draft] += 1
    return runs


def _draft_step(dft, runs, greedy):
    """One draft forward: the next drafted token of each of these runs, drawn by the sampler."""
    if not runs:
        return
    q = dft.probs([run.draft_row for run in runs], [run.tokens + run.drafted for run in runs], [1] * len(runs))
    for run, row in zip(runs, q.tolist()):
        u = run.draw_u[len(run.drafted)]
        run.drafted.append(sampler.greedy_pick(row) if greedy else sampler.draw(row, u))
        run.q_rows.append(row)


def _verify(run, tgt, dft, greedy):
    """The sampler's verdict on one run's round, if what is computed so far decides it: then both caches forget
    what it rejected and the next round starts. Otherwise the run's random stream is put back as it was."""
    state = None if greedy else run.rng.getstate()
    try:
        rec = sampler.verify(Known(run.p_rows, run.k + 1), run.q_rows, Known(run.drafted, run.k),
                             None if greedy else run.rng)
    except NeedMore:
        if state is not None:
            run.rng.setstate(state)
        return
    run.draft_forwards += run.k  # the round's k draft steps, each one forward with this run in the batch
    run.target_forwards += 1
    rec.update(draft=run.drafted, draw_u=run.draw_u[:len(run.drafted)], **{"yield": rec["accepted"] + 1})
    tgt.rollback(run.target_row, len(run.tokens) + rec["accepted"])
    dft.rollback(run.draft_row, len(run.tokens) + rec["accepted"])
    run.tokens += run.drafted[:rec["accepted"]] + [rec["token"]]
    run.rounds.append(rec)
    run.start_round(greedy)
