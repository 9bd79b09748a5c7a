"""The Pyodide worker's Python (widgets/pyodide-worker.mjs): E2's rounds and runs, the editable pair's figures and
the warm-up, each a call into sampler.py. Loaded with sampler.py by widgets/py/load.mjs; standard library only.

p and q arrive as JSON texts (Python's json reads the very doubles JavaScript wrote); a key names one pair, whose
sampler.Pair is built once and kept. Answers are JSON texts or plain values.
"""
import json
import random
import sys

import sampler

_pairs = {}
_stream = {"key": None, "index": -1, "rng": None}
_runs = {}  # request id → {"gen", "pair", "last"}: runs of several experiments may take turns
_warm = {"gen": None}


def _floats(text):
    return [float(v) for v in json.loads(text)]


def c13_pair(key, p_json, q_json):
    if key not in _pairs:
        _pairs[key] = sampler.Pair(_floats(p_json), _floats(q_json))
    return _pairs[key]


def c13_round(key, p_json, q_json, scheme, seed, index):
    """Round number `index` of the stream random.Random(seed) on the pair `key`: the next round of the stream when
    the previous call was round index − 1, else the stream replayed from its start."""
    pair = c13_pair(key, p_json, q_json)
    ident = (key, scheme, seed)
    if _stream["key"] != ident or _stream["index"] != index - 1:
        rng = random.Random(seed)
        for _ in range(index):
            sampler.one_round(pair, rng, scheme)
        _stream.update(key=ident, rng=rng)
    record = sampler.one_round(pair, _stream["rng"], scheme)
    _stream["index"] = index
    return json.dumps(record)


def c13_start(rid, key, p_json, q_json, scheme, seed, n, chunk):
    pair = c13_pair(key, p_json, q_json)
    _runs[rid] = {"gen": sampler.run_chunks(pair, n, seed, scheme, chunk), "pair": pair, "last": None}


def c13_step(rid):
    """The next chunk of run `rid`: (rounds done, accepted so far), None when the run is complete."""
    run = _runs[rid]
    result = next(run["gen"], None)
    if result is None:
        return None
    run["last"] = result
    return (result["n"], result["accepted"])


def c13_drop(rid):
    _runs.pop(rid, None)


def c13_pair_stats(p_json, q_json):
    pair = sampler.Pair(_floats(p_json), _floats(q_json))
    return json.dumps(dict(alpha=pair.alpha, sum_pq=pair.sum_pq, tv_resample_p=sampler.resample_p_tv(pair.p, pair.q)))


def c13_finish(rid):
    run = _runs.pop(rid)
    result, pair = run["last"], run["pair"]
    s = sampler.summary(result, pair)
    out = dict(counts=result["counts"], accepted=result["accepted"], n=s["n"], seed=s["seed"],
               scheme=s["scheme"], tv=s["tv"], acceptance_rate=s["acceptance_rate"],
               alpha=pair.alpha, sum_pq=pair.sum_pq)
    if s["scheme"] == "resample_p":  # where the biased output goes with infinitely many rounds (any pair, edited too)
        out["tv_resample_p"] = sampler.resample_p_tv(pair.p, pair.q)
    return json.dumps(out)


def c13_warm_start(key, p_json, q_json, n, chunk):
    # the warm-up: the calls of a reader's run (its own generator and random.Random, so no stream is touched)
    _warm["gen"] = sampler.run_chunks(c13_pair(key, p_json, q_json), n, 0, "correct", chunk)


def c13_warm_step():
    return next(_warm["gen"], None) is not None


def c13_stdlib_members():
    """The members of the standard library's archive behind every module imported now, one a line, sorted (the
    worker's self.c13StdlibMembers, for tests/browser/test_stdlib_trim_live.py)."""
    archive = "/lib/python%d%d.zip/" % sys.version_info[:2]
    return "\n".join(sorted(m.__file__[len(archive):] for m in list(sys.modules.values())
                            if (getattr(m, "__file__", None) or "").startswith(archive)
                            and getattr(getattr(m, "__spec__", None), "origin", None) != "frozen"))
