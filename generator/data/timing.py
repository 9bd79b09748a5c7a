"""The timed pieces of `make measure`: one cached forward, a verification over k + 1 positions, and the two ways of
sampling, timed by wall clock (the speculative runs are speculative.py's), and the statistics over repeats.

Nothing here decides a token: the speculative runs are generator.data.speculative's (every accept/reject, residual
and bonus draw by widgets/sampler.py), and the target-only loop draws each token with sampler.draw on the same
Decoder's rows, with uniforms from random.Random(seed), as speculative_run does.
"""
import random
import statistics
import time

import torch

from ..models.model import KVCache
from ..shared_sampler import sampler
from .speculative import Decoder


@torch.inference_mode()
def forward_seconds(model, context, new, calls):
    """Seconds per forward of `model` over len(new) new positions after a KV cache holding `context` (batch 1): the
    mean of `calls` forwards, each after the cache is cut back to the context (the cut is not timed)."""
    cache = KVCache(model.cfg.n_layer)
    model(torch.tensor([context]), cache)
    x = torch.tensor([new])
    total = 0.0
    for _ in range(calls):
        start = time.perf_counter()
        model(x, cache)
        total += time.perf_counter() - start
        cache.truncate(len(context))
    return total / calls


def target_only_run(target, prompt, n_new, seed):
    """Target-only sampling at T = 1: one cached forward per token, each token sampler.draw(row, rng.random())."""
    rng = random.Random(seed)
    dec, tokens = Decoder(target), list(prompt)
    for _ in range(n_new):
        tokens.append(sampler.draw(dec.probs(tokens, 1)[0].tolist(), rng.random()))
    return {"tokens": tokens[len(prompt):], "target_forwards": dec.forwards}


def timed(run, *args, **kwargs):
    start = time.perf_counter()
    out = run(*args, **kwargs)
    return time.perf_counter() - start, out


def stats(values):
    """Median with its spread over repeats: min, max, the quartiles (inclusive method) and the count."""
    values = sorted(values)
    if len(values) > 1:
        q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    else:
        q1 = q3 = values[0]
    return {"median": statistics.median(values), "min": values[0], "max": values[-1], "q1": q1, "q3": q3,
            "n": len(values)}


def rotated(items, r):
    """items started at a different place each repeat r, and reversed on odd repeats: no item always goes first."""
    items = list(items)
    shift = r % len(items)
    out = items[shift:] + items[:shift]
    return out[::-1] if r % 2 else out


# the matrix products of a forward (the Linear layers' and attention's); every other ATen call is the per-call
# overhead this module counts: shape checks, views, copies, LayerNorm, GELU, softmax, the cache's bookkeeping
MATMUL_OPS = frozenset({"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::_scaled_dot_product_attention_math",
                        "aten::_scaled_dot_product_flash_attention_for_cpu"})


@torch.inference_mode()
def torch_overhead(model, context, new, calls):
    """What one cached one-position forward costs torch outside its matrix products, under torch.profiler: ATen
    calls per step (top-level and nested) and the share of the step's self CPU time not spent in MATMUL_OPS.
    The profiler adds its own time to every call, so the share is an upper bound of the overhead's, and the count
    is exact."""
    from torch.profiler import ProfilerActivity, profile
    cache = KVCache(model.cfg.n_layer)
    model(torch.tensor([context]), cache)
    x = torch.tensor([new[:1]])
    for _ in range(2):  # warm: the first calls allocate
        model(x, cache)
        cache.truncate(len(context))
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(calls):
            model(x, cache)
            cache.truncate(len(context))
    events = [e for e in prof.events() if e.name.startswith("aten::")]
    total = sum(e.self_cpu_time_total for e in events)
    matmul = sum(e.self_cpu_time_total for e in events if e.name in MATMUL_OPS)
    return {"aten_calls_per_step": len(events) / calls, "outside_matmul_share": 1 - matmul / total if total else 0.0,
            "matmul_ops": sorted({e.name for e in events if e.name in MATMUL_OPS}), "steps": calls}
