"""E6's bridge to sampler.py (widgets/e6/sampler_bridge.mjs, run by tests/widgets/node/e6_bridge.mjs in real Pyodide
under Node): JavaScript writes each row into Python-owned buffers and calls Python with slot numbers, and every decision
is still sampler.py's, with the same stream in the same order.

- the same rows give the very same decisions through the bridge as through today's glue (a JsProxy per row, verify's
  record in JSON; kept in the driver), and with its running sums formed in JavaScript (widgets/e6/row_sums.mjs) as
  with sampler.py forming them (pythonSums()): every token, uniform, accept probability, kind and record, T = 1 and
  T = 0, k = 1, 2, 4, 8, several seeds, speculate.mjs's own loops; on softmax rows and on rows with zeros (the last
  ones too), p == q in places, tiny weights the sums absorb, and totals so small that u * total rounds up to the
  total (the zero-weight tail found from the end), under fixed uniforms;
- and the same as CPython's sampler.py on those rows with random.Random(seed) in speculative_run's order;
- after Pyodide's memory grows (the views detach) the bridge takes its views again and decides the same;
- a row the sampler refuses gives the same Python error through both;
- sampler.py reads float64 rows (E6's, now in Python's own arrays) as it reads lists: the same answer for any rows and
  any u, NaN, infinities, -0.0 and subnormals included.

Needs `node` and node_modules/pyodide (`npm ci`).
"""
import json
import math
import random
import struct
from array import array
from itertools import accumulate

import pytest

from generator.shared_sampler import PATH as SAMPLER_PATH
from generator.shared_sampler import sampler
from tests.conftest import ROOT
from tests.sitelib import node_job

SCRIPT = ROOT / "tests" / "widgets" / "node" / "e6_bridge.mjs"
TIMEOUT_S = 300


def softmax_rows(rng, n, size, spread):
    """n pairs (p, q) of rows over size tokens: Zipf-like p in a shuffled token order, q a noisy flatter p
    (spread 0: q is p, every draft kept)."""
    order = list(range(size))
    rng.shuffle(order)
    pairs = []
    for _ in range(n):
        w = [0.0] * size
        for rank, token in enumerate(order):
            w[token] = math.exp(-1.1 * math.log(rank + 1) + rng.gauss(0.0, 0.3))
        total = sum(w)
        p = [v / total for v in w]
        if spread == 0:
            pairs.append((p, list(p)))
            continue
        w = [v ** 0.8 * math.exp(rng.gauss(0.0, spread)) for v in p]
        total = sum(w)
        pairs.append((p, [v / total for v in w]))
    return pairs


def edge_rows(rng, size, kind):
    """A (p, q) pair of rows over size tokens with what a softmax row rarely shows: "zeros" (exact zeros, the last
    ones too, p == q at a third of the tokens) or "absorbed" (weights 1e-18 of the row and less beside large ones, a
    last weight of 1e-300)."""
    p = [rng.random() ** 3 for _ in range(size)]
    if kind == "zeros":
        p = [0.0 if rng.random() < 0.4 or i >= size - 5 else v for i, v in enumerate(p)]
        q = [v if rng.random() < 0.33 else 0.0 if rng.random() < 0.3 else rng.random() ** 3 for v in p]
        q[-3:] = [0.0, 0.0, 0.0]
        return p, q
    tiny = [rng.choice([1e-18, 1e-25, 5e-324, 0.0]) for _ in range(size)]
    p = [t if rng.random() < 0.5 else v for v, t in zip(p, tiny)]
    q = [t if rng.random() < 0.5 else rng.random() ** 3 for t in tiny]
    p[-1], q[-1] = 1e-300, 0.0
    return p, q


def tail_rows(rng, size, k, pool):
    """Rows whose totals are subnormal, so that u * total rounds up to the total for u >= 0.75: every other draft row
    has two weights of 5e-324 (at 3 and 7), the others are plain rows zero from token 10 on; the target's row is plain
    after a subnormal draft (the draft is kept) and after a plain one is two weights of 5e-324 (at 12 and 14) where
    the draft has none (the draft is rejected, and the residual is those two)."""
    plain = lambda end: [rng.random() if i < end else 0.0 for i in range(size)]  # noqa: E731
    tiny = lambda at: [5e-324 if i in at else 0.0 for i in range(size)]  # noqa: E731
    draft = [tiny((3, 7)) if j % 2 else plain(10) for j in range(pool * k)]
    target = [[plain(size) if i == k or (r * k + i) % 2 else tiny((12, 14)) for i in range(k + 1)] for r in range(pool)]
    return draft, target


def make_edge_case(kind, k, seed, size=32, n_new=24, pool=4):
    """An edge case under fixed uniforms: each of them often, and many near 0 and 1."""
    rng = random.Random(f"{kind}/{k}/{seed}")
    if kind == "tail":
        draft, target = tail_rows(rng, size, k, pool)
    else:
        pairs = [edge_rows(rng, size, kind) for _ in range(pool * (k + 1))]
        draft = [q for _, q in pairs[:pool * k]]
        target = [[p for p, _ in pairs[r * (k + 1):(r + 1) * (k + 1)]] for r in range(pool)]
    uniforms = [rng.choice([0.0, 0.2, 0.3, 0.9, 1 - 2 ** -53, rng.random()]) for _ in range(n_new * (2 * k + 2))]
    return dict(name=kind, k=k, greedy=False, seed=seed, nNew=n_new, draftRows=draft, targetRows=target,
                uniforms=uniforms)


def make_case(name, k, greedy, seed, size=2048, spread=0.5, n_new=7, pool=3):
    rng = random.Random(f"{name}/{k}/{seed}")
    pairs = softmax_rows(rng, pool * (k + 1), size, spread)
    draft = [q for _, q in pairs[:pool * k]]
    target = [[p for p, _ in pairs[r * (k + 1):(r + 1) * (k + 1)]] for r in range(pool)]
    return dict(name=name, k=k, greedy=greedy, seed=seed, nNew=n_new, draftRows=draft, targetRows=target)


def cases():
    out = []
    for k in (1, 2, 4, 8):
        for greedy in (False, True):
            out.append(make_case(f"k{k}-T{0 if greedy else 1}", k, greedy, seed=3 + k))
    for seed in (0, 1, 2):
        out.append(make_case("small", 3, False, seed, size=40, spread=1.0, n_new=12, pool=4))
    out.append(make_case("same", 4, False, 9, size=64, spread=0, n_new=10))  # p == q: every draft kept
    out += [make_edge_case(kind, k, seed) for kind in ("zeros", "absorbed", "tail") for k, seed in ((1, 1), (3, 2))]
    refused = make_case("refused", 2, False, 5, size=16, n_new=3)
    refused["draftRows"][1] = [0.0] * 16  # the second draft row has nothing to draw
    out.append(refused)
    return out


@pytest.fixture(scope="module")
def answer(tmp_path_factory):
    job = {"sampler": str(SAMPLER_PATH), "cases": cases()}
    job = json.loads(json.dumps(job))  # both sides start from the very floats of the file
    out = node_job(SCRIPT, job, tmp_path_factory.mktemp("e6_bridge"), TIMEOUT_S,
                   needs=(ROOT / "node_modules" / "pyodide" / "pyodide.asm.wasm",))
    return {c["name"] + str(c["seed"]): (c, got) for c, got in zip(job["cases"], out["cases"])}


def cpython_speculative(c):
    """speculate.mjs's loop redone by CPython's sampler.py on the case's rows (generator/data/speculative.py's order:
    one random() per drafted token, then verify's own)."""
    rng = stream_of(c)
    k, tokens, rounds = c["k"], [], []
    while len(tokens) < c["nNew"]:
        r = len(rounds)
        q_rows = [c["draftRows"][(r * k + i) % len(c["draftRows"])] for i in range(k)]
        p_rows = c["targetRows"][r % len(c["targetRows"])]
        drafted, draw_u = [], []
        for q in q_rows:
            u = None if rng is None else rng.random()
            drafted.append(sampler.greedy_pick(q) if rng is None else sampler.draw(q, u))
            draw_u.append(u)
        rec = sampler.verify(p_rows, q_rows, drafted, rng)
        tokens += drafted[:rec["accepted"]] + [rec["token"]]
        rounds.append(dict(index=r, **rec, draft=drafted, draw_u=draw_u, **{"yield": rec["accepted"] + 1}))
    return {"tokens": tokens, "rounds": rounds}


def stream_of(c):
    """The case's stream: None at T = 0, its fixed uniforms when it has them, else random.Random(seed)."""
    return None if c["greedy"] else sampler.FixedStream(c["uniforms"]) if "uniforms" in c else random.Random(c["seed"])


def cpython_target(c):
    rng = stream_of(c)
    rows = c["draftRows"]
    draws = [sampler.greedy_pick(rows[j % len(rows)]) if rng is None else sampler.draw(rows[j % len(rows)], rng.random())
             for j in range(c["nNew"])]
    return {"tokens": draws, "draws": draws}


def as_js(value):
    """value as JavaScript holds it: one kind of number (1.0 is 1)."""
    if isinstance(value, dict):
        return {key: as_js(v) for key, v in value.items()}
    if isinstance(value, list):
        return [as_js(v) for v in value]
    return int(value) if isinstance(value, float) and value.is_integer() else value


def same(a, b):
    """Equal as JSON text: the same keys, the same numbers to the last bit, null where None."""
    return json.dumps(as_js(a), sort_keys=True) == json.dumps(as_js(b), sort_keys=True)


def test_the_bridge_decides_as_todays_glue_and_as_cpython(answer):
    kinds = set()
    for name, (c, got) in answer.items():
        if c["name"] == "refused":
            continue
        want = {"speculative": cpython_speculative(c), "target": cpython_target(c)}
        for run in ("speculative", "target"):
            assert "error" not in got["today"][run] and "error" not in got["bridge"][run], (name, run, got["bridge"])
            assert same(got["bridge"][run], got["today"][run]), f"{name} {run}: the bridge differs from today's glue"
            assert same(got["pySums"][run], got["today"][run]), f"{name} {run}: differs with sampler.py's own sums"
            assert same(got["grown"][run], got["today"][run]), f"{name} {run}: differs after Pyodide's memory grew"
            assert same(got["today"][run], want[run]), f"{name} {run}: Pyodide differs from CPython's sampler.py"
        kinds |= {(c["greedy"], r["kind"]) for r in got["bridge"]["speculative"]["rounds"]}
    # both final draws, at both temperatures, were exercised
    assert kinds == {(g, kind) for g in (False, True) for kind in ("bonus", "resampled")}
    # the tail cases drew past every running sum (u * total rounded up to a subnormal total), in a draft's draw and
    # in a residual's: the last positive weight was found from the end
    past = {"draft": 0, "residual": 0}
    for seed in (1, 2):
        c, got = answer[f"tail{seed}"]
        for r in got["bridge"]["speculative"]["rounds"]:
            q_rows = [c["draftRows"][(r["index"] * c["k"] + i) % len(c["draftRows"])] for i in range(c["k"])]
            past["draft"] += sum(past_every_sum(q, u) for q, u in zip(q_rows, r["draw_u"]))
            if r["kind"] == "resampled":
                i = r["accepted"]
                rest = sampler.residual(c["targetRows"][r["index"] % len(c["targetRows"])][i], q_rows[i])
                past["residual"] += past_every_sum(rest, r["final_u"])
    assert past["draft"] and past["residual"], past


def past_every_sum(weights, u):
    """Whether u * total is at or past the last running sum: the draw's token is then the last positive weight."""
    total = list(accumulate(weights))[-1]
    return not u * total < total


def test_the_rows_live_in_pythons_buffers(answer):
    """The bridge writes each row into a buffer Python owns: after the target-only run the draw slot holds, bit for
    bit, the row of its last draw, and at T = 1 the sums row its running sums as accumulate forms them; and the views
    were taken again after the memory grew."""
    for name, (c, got) in answer.items():
        if c["name"] == "refused":
            continue
        last = c["draftRows"][(c["nNew"] - 1) % len(c["draftRows"])]
        assert got["buffers"] == struct.pack(f"<{len(last)}d", *last).hex(), name
        if not c["greedy"]:
            assert got["sums"] == struct.pack(f"<{len(last)}d", *accumulate(last)).hex(), name
    first = next(iter(answer.values()))[1]
    assert first["detached"] is True, "the probe's view was not detached: Pyodide's memory did not grow"


def test_a_refused_row_is_the_same_python_error_through_both(answer):
    c, got = answer["refused5"]
    for glue in ("today", "bridge", "grown"):
        err = got[glue]["speculative"]
        assert err["python"] is True, (glue, err)
        assert err["error"] == "sampler.SamplerError: the weights have no positive entry: there is nothing to draw"
    assert got["bridge"]["target"]["error"] == got["today"]["target"]["error"]
    with pytest.raises(sampler.SamplerError, match="no positive entry"):
        cpython_speculative(c)


# ---------------------------------------------------------------------------------- sampler.py on float64 rows

SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, 1e-310, 1e308, 2.0 ** 1009, -1.0, 3.0]


def float64_row(rng, n):
    """A float64 array as E6 hands them to sampler.py: mostly probabilities, some zeros, now and then any double."""
    odd = rng.random() < 0.3
    values = []
    for _ in range(n):
        r = rng.random()
        values.append(rng.choice(SPECIAL) if odd and r < 0.05 else 0.0 if r < 0.3 else rng.random() ** rng.choice([1, 4]))
    return array("d", values)


def uniforms(rng, row):
    """u in [0, 1), its edges, values outside it, and u that land exactly on (and beside) running sums of row."""
    out = [0.0, -0.0, 1 - 2 ** -53, rng.random(), -0.25, 1.0, 2.5, math.inf, math.nan, 0, 1, True]
    cum = list(accumulate(row))
    if cum and cum[-1] > 0 and math.isfinite(cum[-1]):
        for c in rng.sample(cum, min(4, len(cum))):
            out += [c / cum[-1], math.nextafter(c / cum[-1], 2), math.nextafter(c / cum[-1], -1)]
    return out


def outcome(f, *args):
    try:
        return ("token", f(*args))
    except Exception as err:  # the same exception, with the same message
        return (type(err).__name__, str(err))


@pytest.mark.parametrize("seed", range(4))
def test_float64_rows_draw_as_lists_do(seed):
    """sampler.draw / draw_residual / verify on float64 arrays (E6's rows): for any such rows and any u they answer
    exactly as the same rows given as lists (or raise the same error)."""
    rng = random.Random(seed)
    for _ in range(300):
        n = rng.choice([0, 1, 2, 63, 64, 65, 129, 2048])
        p, q = float64_row(rng, n), float64_row(rng, n)
        if rng.random() < 0.2:
            q = array("d", p)  # p == q: the residual is empty
        for u in uniforms(rng, p):
            assert outcome(sampler.draw, p, u) == outcome(sampler.draw, list(p), u), (list(p)[:8], u)
            assert outcome(sampler.draw_residual, p, q, u) == outcome(sampler.draw_residual, list(p), list(q), u), u
        if n:
            k = rng.choice([1, 2, 4])
            rows = [float64_row(rng, n) for _ in range(2 * k + 1)]
            drafted, s = [rng.randrange(n) for _ in range(k)], rng.randrange(10 ** 6)
            got = outcome(sampler.verify, rows[:k + 1], rows[k + 1:], drafted, random.Random(s))
            want = outcome(sampler.verify, [list(r) for r in rows[:k + 1]], [list(r) for r in rows[k + 1:]], drafted,
                           random.Random(s))
            assert repr(got) == repr(want)
