"""E6's Python (widgets/e6/sampler_bridge.mjs): every draw, greedy pick and verify of E6's two loops, each a call into
sampler.py. Loaded with sampler.py by widgets/py/load.mjs; standard library only.

Python owns the rows: float64 arrays, n_p for the target's rows and n_q for the draft's (a draw's row goes into the
slot of its position in the round) and one row of running sums; one int32 array for the call's numbers and the drafted
tokens; one float64 array for the answers. JavaScript writes them through views of these buffers, then calls without
arguments: the numbers say how many drafts, which slot, and whether JavaScript formed the running sums the draws search
(widgets/e6/row_sums.mjs, equal bit for bit to what sampler.py would form: tests/widgets/test_row_sums.py). A draw's
row comes with its sums; verify asks for its final draw's when it knows which they are (e6_summer's fill: only the first
rejection, which sampler.py finds, says whose). The comparisons, the searches and the zero-weight tails stay in
sampler.py.

Each call follows a model's forward, which leaves the interpreter's caches cold: a bytecode costs several times what
it costs warm, so the calls do little besides sampler.py's own work (benchmarks/bench_e6.mjs prints what a call that
does nothing costs there).
"""
import math
import random
from array import array

import sampler

# the int32 array: K drafted tokens, the SLOT of a draw or greedy pick, SUMMED, then the drafted tokens
K, SLOT, SUMMED, DRAFTED = range(4)
_e6_p, _e6_q, _e6_s, _e6_ints, _e6_out = [], [], array("d"), array("i"), array("d")
_e6_stream = None  # the stream the calls draw from (None: T = 0), set by e6_use
_e6_fill = None    # JavaScript's fill(i): the running sums of verify's final draw at position i into _e6_s


def e6_buffers(n_p, n_q, size):
    """Fresh buffers: n_p target rows, n_q draft rows and one row of running sums, each of size doubles; the numbers
    and n_q drafted tokens; the answers."""
    global _e6_p, _e6_q, _e6_s, _e6_ints, _e6_out
    _e6_p = [array("d", bytes(8 * size)) for _ in range(n_p)]
    _e6_q = [array("d", bytes(8 * size)) for _ in range(n_q)]
    _e6_s = array("d", bytes(8 * size))
    _e6_ints = array("i", bytes(4 * (DRAFTED + n_q)))
    _e6_out = array("d", bytes(8 * (4 + 2 * n_q)))
    return [*_e6_p, *_e6_q, _e6_s, _e6_ints, _e6_out]


def e6_summer(fill):
    """fill(i) writes into the sums row the running sums of verify's final draw at position i: residual(p_i, q_i)'s
    for i < K, p_K's (the bonus) for i = K."""
    global _e6_fill
    _e6_fill = fill


def _e6_sums(i):
    _e6_fill(i)
    return _e6_s


def e6_stream(seed):
    return random.Random(seed)


def e6_use(stream):
    """The stream the next calls draw from, until another is given (None: T = 0)."""
    global _e6_stream
    _e6_stream = stream


def e6_draw():
    """A token drawn from draft row SLOT with the stream's next uniform (written to the answers' first place); with
    SUMMED, the sums row holds the row's running sums (else sampler.py forms them)."""
    u = _e6_out[0] = _e6_stream.random()
    return sampler.draw(_e6_q[_e6_ints[SLOT]], u, _e6_s if _e6_ints[SUMMED] else None)


def e6_greedy_pick():
    return sampler.greedy_pick(_e6_q[_e6_ints[SLOT]])


def e6_verify():
    """sampler.verify over the first K + 1 target rows, the first K draft rows and the K drafted tokens (T = 0 when the
    stream is None). The answers: accepted, token, final_u, the count n of tested positions, then the n uniforms and
    the n accept probabilities (T = 1 only; p(x) and q(x) JavaScript reads from its own rows); the kind is returned.
    With SUMMED (T = 1) the final draw's sums come from e6_summer's fill (else sampler.py forms them). Written one
    number at a time: in a cold interpreter a loop costs less than building arrays to copy."""
    ints, out, stream = _e6_ints, _e6_out, _e6_stream
    k = ints[K]
    rec = sampler.verify(_e6_p, _e6_q, ints[DRAFTED:DRAFTED + k], stream,
                         _e6_sums if ints[SUMMED] and stream is not None else None)
    us = rec["u"]
    out[0], out[1], out[3] = rec["accepted"], rec["token"], len(us)
    if stream is None:
        out[2] = math.nan
        check = math.fsum(rec["p"]) + math.fsum(rec["q"])
    else:
        out[2] = rec["final_u"]
        for at, v in enumerate(us, 4):
            out[at] = v
        for at, v in enumerate(rec["accept_prob"], 4 + len(us)):
            out[at] = v
        check = math.fsum(rec["accept_prob"])
    if check != check:  # NaN: p(x) or q(x) was NaN (sampler.accept_probability then gives NaN too)
        raise sampler.SamplerError("verify's record holds NaN: the rows are not probabilities")
    return rec["kind"]
