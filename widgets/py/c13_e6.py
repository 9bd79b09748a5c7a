"""E6's Python (widgets/e6/sampler_bridge.mjs): every draw, greedy pick and verify of E6's two loops, each a call into
sampler.py. Loaded with sampler.py by widgets/py/load.mjs; standard library only.

Python owns the rows: float64 arrays, n_p for the target's rows and n_q for the draft's (a draw's row goes into the
slot of its position in the round) and one for running sums; one int32 array for the call's numbers and the drafted
tokens; one float64 array for the answers. JavaScript writes them through views of these buffers, then calls without
arguments (after a model's forward a call costs ~10-20 µs of cold caches, and each argument adds to it): the numbers say
which slot, how many rows, and whether JavaScript forms the running sums the draws search (widgets/e6/row_sums.mjs,
equal bit for bit to what sampler.py would form: tests/widgets/test_row_sums.py). A draw's row comes with its sums;
verify asks for its final draw's when it knows which they are (e6_summer's fill: only the first rejection, which
sampler.py finds, says whose). The comparisons, the searches and the zero-weight tails stay in sampler.py.
"""
import math
import random
from array import array

import sampler

# the int32 array: K drafted tokens, the SLOT of a draw or greedy pick, N_P and N_Q rows, SUMMED, then the tokens
K, SLOT, N_P, N_Q, SUMMED, DRAFTED = range(6)
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
    _e6_out = array("d", bytes(8 * (4 + 4 * n_q)))
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
    """sampler.verify over the first N_P target rows, N_Q draft rows and the K drafted tokens (T = 0 when the stream is
    None). The answers: accepted, token, final_u, the count n of tested positions, then p, q, u and accept_prob, n each
    (None written as NaN); the kind is returned. With SUMMED (T = 1) the final draw's sums come from e6_summer's fill
    (else sampler.py forms them)."""
    sums = _e6_sums if _e6_ints[SUMMED] and _e6_stream is not None else None
    drafted = _e6_ints[DRAFTED:DRAFTED + _e6_ints[K]]
    rec = sampler.verify(_e6_p[:_e6_ints[N_P]], _e6_q[:_e6_ints[N_Q]], drafted, _e6_stream, sums)
    numbers = [rec["accepted"], rec["token"], rec["final_u"], len(rec["u"]), *rec["p"], *rec["q"], *rec["u"],
               *rec["accept_prob"]]
    answers = array("d", [math.nan if v is None else v for v in numbers])
    if sum(map(math.isnan, answers)) != numbers.count(None):
        raise sampler.SamplerError("verify's record holds NaN: the rows are not probabilities")
    _e6_out[:len(answers)] = answers
    return rec["kind"]
