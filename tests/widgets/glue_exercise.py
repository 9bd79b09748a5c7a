"""What the glue check asks of widgets/py/c13_worker.py and widgets/py/c13_e6.py, written once:
tests/widgets/test_python_glue.py runs it in CPython and tests/widgets/node/pyodide_glue.mjs loads this very file into
Pyodide beside the glue, so that the two sides answer the same calls. Standard library only; the modules are passed in.
"""
import json
import math
from array import array
from itertools import accumulate

P = [0.5, 0.25, 0.125, 0.0625, 0.0625]
Q = [0.125, 0.5, 0.25, 0.0, 0.125]


def worker_calls(worker, sampler):
    """E2's rounds (in order, skipped ahead, replayed), two runs taking turns, the pair's figures, the warm-up."""
    p, q = json.dumps(P), json.dumps(Q)
    out = {"rounds": {}, "runs": {}}
    for scheme in sampler.SCHEMES:
        order = [0, 1, 2, 5, 3, 4, 4, 0]
        out["rounds"][scheme] = [[i, json.loads(worker.c13_round("pair", p, q, scheme, 11, i))] for i in order]
    worker.c13_start(1, "pair", p, q, "correct", 5, 2_500, 1_000)
    worker.c13_start(2, "pair", p, q, "resample_p", 6, 2_000, 500)
    steps = {1: [], 2: []}
    for rid in (1, 2, 1, 2, 1, 2, 2, 2, 1):
        step = worker.c13_step(rid)
        steps[rid].append(list(step) if step is not None else None)
    out["runs"] = {rid: {"steps": steps[rid], "result": json.loads(worker.c13_finish(rid))} for rid in (1, 2)}
    worker.c13_start(3, "pair", p, q, "naive", 7, 100, 10)
    worker.c13_drop(3)
    out["dropped"] = 3 not in worker._runs
    out["pair_stats"] = json.loads(worker.c13_pair_stats(p, q))
    before = worker.c13_round("pair", p, q, "correct", 11, 1)
    worker.c13_warm_start("pair", p, q, 3_000, 1_000)
    pieces = 0
    while worker.c13_warm_step():
        pieces += 1
    out["warm_pieces"] = pieces
    # the warm-up touched no stream: round 2 follows round 1 as if nothing ran between
    out["after_warm"] = [json.loads(before), json.loads(worker.c13_round("pair", p, q, "correct", 11, 2))]
    try:
        worker.c13_round("bad", "[1]", "[0]", "no-such-scheme", 1, 0)
        out["error"] = None
    except Exception as e:  # noqa: BLE001 - the type and text are the result
        out["error"] = [type(e).__name__, str(e)]
    return out


def _fill(buffer, values):
    for i, v in enumerate(values):
        buffer[i] = v


# (k, drafted, seeded): T = 1 rejecting at 1 and at 0, T = 1 keeping all (the bonus), T = 0
E6_VERIFY_CALLS = ((2, [1, 0], True), (2, [2, 4], True), (1, [0], True), (1, [0], False), (2, [1, 1], False))


def e6_calls(e6, sampler):
    """E6's draw, greedy pick and verify through the glue's buffers, as sampler_bridge.mjs writes them: each call with
    the running sums written (here by accumulate, there by widgets/e6/row_sums.mjs) and without."""
    buffers = e6.e6_buffers(3, 2, len(P))  # 3 p rows, 2 q rows, the sums row, the numbers and tokens, the answers
    p_rows, q_rows, sums, ints = buffers[:3], buffers[3:5], buffers[5], buffers[6]
    out = {"sizes": [len(b) for b in buffers], "draws": [], "verify": [], "filled": []}
    _fill(q_rows[1], Q)
    _fill(sums, accumulate(Q))
    ints[e6.SLOT] = 1
    e6.e6_use(e6.e6_stream(9))
    for i in range(6):
        ints[e6.SUMMED] = i % 2 == 0
        out["draws"].append([e6.e6_draw(), e6._e6_out[0]])
    out["greedy"] = e6.e6_greedy_pick()
    for rows, values in ((p_rows, (P, Q, P)), (q_rows, (Q, P))):
        for row, v in zip(rows, values):
            _fill(row, v)

    def fill(i):  # the residual's sums at a drafted position, p_k's for the bonus
        k = ints[e6.K]
        _fill(sums, accumulate(p_rows[i] if i == k else map(sampler.residual_weight, p_rows[i], q_rows[i])))
        out["filled"].append(i)
    e6.e6_summer(fill)
    for k, drafted, seeded in E6_VERIFY_CALLS:
        ints[e6.K] = k
        _fill(memoryview(ints)[e6.DRAFTED:], drafted)
        for summed in (True, False):
            ints[e6.SUMMED] = summed
            e6.e6_use(e6.e6_stream(k * 100 + drafted[0]) if seeded else None)
            kind = e6.e6_verify()
            n = int(e6._e6_out[3])
            numbers = [None if math.isnan(v) else v for v in e6._e6_out[:4 + (2 * n if seeded else 0)]]
            out["verify"].append({"kind": kind, "numbers": numbers})
    _fill(p_rows[0], [math.nan] * len(P))
    ints[e6.K], ints[e6.SUMMED] = 1, 0
    e6.e6_use(e6.e6_stream(1))
    try:
        e6.e6_verify()
        out["nan"] = None
    except sampler.SamplerError as e:
        out["nan"] = str(e)
    out["ints_typecode"] = e6._e6_ints.typecode
    out["row_type"] = type(e6._e6_q[0]) is array
    return out


def exercise(worker, e6, sampler):
    return {"worker": worker_calls(worker, sampler), "e6": e6_calls(e6, sampler)}
