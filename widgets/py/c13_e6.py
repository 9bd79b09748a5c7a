"""E6's Python (widgets/e6/sampler_bridge.mjs): every draw, greedy pick and verify of E6's two loops, each a call into
sampler.py. Loaded with sampler.py by widgets/py/load.mjs; standard library only.

Python owns the rows: float64 arrays, n_p for the target's rows and n_q for the draft's (the first of them also takes
the row of every draw and greedy pick), one int32 array for the drafted tokens and one float64 array for the answers.
JavaScript writes the rows through views of these buffers and calls with counts and slot numbers.
"""
import math
import random
from array import array

import sampler

_e6_p, _e6_q, _e6_drafted, _e6_out = [], [], array("i"), array("d")


def e6_buffers(n_p, n_q, size):
    """Fresh buffers: n_p target rows and n_q draft rows of size doubles, n_q drafted tokens, the answers."""
    global _e6_p, _e6_q, _e6_drafted, _e6_out
    _e6_p = [array("d", bytes(8 * size)) for _ in range(n_p)]
    _e6_q = [array("d", bytes(8 * size)) for _ in range(n_q)]
    _e6_drafted = array("i", bytes(4 * n_q))
    _e6_out = array("d", bytes(8 * (4 + 4 * n_q)))
    return [*_e6_p, *_e6_q, _e6_drafted, _e6_out]


def e6_stream(seed):
    return random.Random(seed)


def e6_draw(stream, slot):
    """A token drawn from draft row `slot` with the stream's next uniform (written to the answers' first place)."""
    u = stream.random()
    _e6_out[0] = u
    return sampler.draw(_e6_q[slot], u)


def e6_greedy_pick(slot):
    return sampler.greedy_pick(_e6_q[slot])


def _e6_number(value):
    if value is None:
        return math.nan
    if value != value:
        raise sampler.SamplerError("verify's record holds NaN: the rows are not probabilities")
    return value


def e6_verify(stream, n_p, n_q, k):
    """sampler.verify over the first n_p target rows, n_q draft rows and k drafted tokens (stream None: T = 0). The
    answers: accepted, token, final_u, the count n of tested positions, then p, q, u and accept_prob, n each (None
    written as NaN); the kind is returned."""
    rec = sampler.verify(_e6_p[:n_p], _e6_q[:n_q], _e6_drafted[:k].tolist(), stream)
    numbers = [rec["accepted"], rec["token"], rec["final_u"], len(rec["u"])]
    for key in ("p", "q", "u", "accept_prob"):
        numbers += rec[key]
    for i, value in enumerate(numbers):
        _e6_out[i] = _e6_number(value)
    return rec["kind"]
