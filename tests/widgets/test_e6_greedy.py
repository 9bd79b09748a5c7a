"""
E6's worker side in Node (tests/widgets/node/e6_greedy.mjs): engine.mjs, speculate.mjs, model.mjs on the float16 browser
files and tokenizer.mjs, with every decision made by the real widgets/sampler.py in real Pyodide.

- T = 0: greedy speculative decoding reproduces c13.json's greedy.reference for every prompt × draft × k of
  c13.json["greedy"]["runs"], and so does the target-only run of each;
- T = 1: the same seed gives the same tokens twice; the browser's first decisions of a run are exactly what CPython's
  sampler.py decides on the same rows with the same random stream (so the tokens come from the sampler's rule);
- a prompt that does not fit the context is refused with the Chinese message; a cancel stops after the round.

Needs `node` and node_modules/pyodide (`npm ci`), and precomputed/browser/ (the data stage).
"""
import json
import random

import pytest

from generator.shared_sampler import PATH as SAMPLER_PATH
from generator.shared_sampler import sampler
from generator.models.family import DRAFTS, TARGET
from tests.conftest import ROOT
from tests.sitelib import node_job

SCRIPT = ROOT / "tests" / "widgets" / "node" / "e6_greedy.mjs"
BROWSER = ROOT / "precomputed" / "browser"
TIMEOUT_S = 900
T1 = {"draft": DRAFTS[1], "k": 3, "temperature": 1, "nNew": 24, "seed": 7}


@pytest.fixture(scope="module")
def data():
    return json.loads((ROOT / "precomputed" / "c13.json").read_text())


def long_prompt(data):
    return data["prompts"][0]["text"] * 40


@pytest.fixture(scope="module")
def answer(data, tmp_path_factory):
    greedy = data["greedy"]
    runs = [{"prompt": r["prompt"], "draft": r["draft"], "k": r["k"], "temperature": 0, "nNew": greedy["n_new"],
             "seed": 0} for r in greedy["runs"]]
    prompt = data["prompts"][1]["text"]
    runs += [dict(T1, prompt=prompt), dict(T1, prompt=prompt)]
    runs.append({"prompt": long_prompt(data), "draft": DRAFTS[0], "k": 8, "temperature": 0, "nNew": 48, "seed": 0})
    job = {"sampler": str(SAMPLER_PATH), "browser": str(BROWSER), "runs": runs,
           "cancel": dict(T1, prompt=prompt, nNew=48),
           "replay": {"prompt_ids": data["prompts"][0]["tokens"], "draft": DRAFTS[0], "k": 4, "seed": 5, "nNew": 8}}
    out = node_job(SCRIPT, job, tmp_path_factory.mktemp("e6"), TIMEOUT_S,
                   needs=(ROOT / "node_modules" / "pyodide" / "pyodide.asm.wasm", BROWSER / f"{TARGET}.safetensors"))
    out["job"] = job
    return out


def greedy_results(data, answer):
    n = len(data["greedy"]["runs"])
    for run in answer["runs"][:n]:
        assert "result" in run, f"a T = 0 run failed: {run.get('error')}"
    return [r["result"] for r in answer["runs"][:n]]


@pytest.mark.slow("the three models run in Node")
def test_greedy_speculative_reproduces_the_reference(data, answer):
    greedy = data["greedy"]
    prompts = {p["text"]: p["tokens"] for p in data["prompts"]}
    same = 0
    for spec, res in zip(greedy["runs"], greedy_results(data, answer)):
        want = greedy["reference"][spec["prompt"]]
        where = f"{spec['prompt']} / {spec['draft']} / k = {spec['k']}"
        assert res["promptIds"] == prompts[spec["prompt"]], f"{where}: the browser encodes the prompt differently"
        assert res["speculative"]["tokens"] == want, f"{where}: speculative T = 0 differs from greedy.reference"
        assert res["target"]["tokens"] == want, f"{where}: the target-only T = 0 run differs from greedy.reference"
        assert res["identical"] is True
        assert res["speculative"]["rounds"] == res["speculative"]["targetForwards"]
        same += 1
    assert same == greedy["total"] == len(greedy["runs"])


@pytest.mark.slow("the three models run in Node")
def test_events_follow_the_protocol(data, answer):
    run = answer["runs"][0]
    res = run["result"]
    assert run["events"]["e6-token"] == len(res["target"]["tokens"])
    assert run["events"]["e6-round"] == res["speculative"]["rounds"]
    assert run["events"]["e6-prompt"] == 1 and run["events"]["e6-phase"] == 7  # … target, speculative, repeat, measure, roof
    assert run["events"]["e6-sample"] == res["measured"]["n"] == 3  # the measuring phase's rounds (3 in this driver)
    assert run["events"]["e6-bytes"] >= 3  # three files, each reported at least once when complete
    # the files were fetched once: later runs reuse the parsed models
    assert all(count == 1 for count in answer["fetches"].values()), answer["fetches"]
    assert set(answer["fetches"]) == {"tokenizer.json", *(f"{name}.safetensors" for name in (TARGET, *DRAFTS))}
    m = res["measured"]
    assert m["tested"] >= m["accepted"] >= 0 and 0 <= m["alpha"] <= 1
    assert m["tokensPerTargetForward"] == res["speculative"]["generated"] / res["speculative"]["targetForwards"]
    for key in ("targetMs", "draftMs", "verifyMs", "c", "v", "speedupModel", "speedupEndToEnd"):
        assert m[key] > 0, key
    assert all(b["ms"] >= res["timing"]["minBlockMs"] >= 5 for b in res["timing"]["blocks"])


@pytest.mark.slow("the three models run in Node")
def test_t1_same_seed_same_tokens(data, answer):
    n = len(data["greedy"]["runs"])
    first, second = (r["result"] for r in answer["runs"][n:n + 2])
    assert first["temperature"] == 1 and first["seed"] == T1["seed"]
    assert first["target"]["tokens"] == second["target"]["tokens"]
    assert first["speculative"]["tokens"] == second["speculative"]["tokens"]
    assert len(first["speculative"]["tokens"]) == T1["nNew"]


@pytest.mark.slow("the three models run in Node")
def test_t1_decisions_are_the_samplers(answer):
    """The browser's first target-only draw and first speculative round, redone by CPython's sampler.py on the
    very rows the browser used, with random.Random(seed) in speculative_run's order."""
    job, rep = answer["job"]["replay"], answer["replay"]
    alone = rep["target"]
    assert alone["tokens"][0] == sampler.draw(alone["firstRow"], random.Random(job["seed"]).random())
    spec = rep["speculative"]
    rng = random.Random(job["seed"])
    for q_row, u, x in zip(spec["qRows"], spec["drawU"], spec["drafted"]):
        assert u == rng.random()
        assert x == sampler.draw(q_row, u)
    rec = sampler.verify(spec["pRows"], spec["qRows"], spec["drafted"], rng)
    for key in ("accepted", "kind", "token", "u", "final_u", "accept_prob", "p", "q"):
        assert spec["rec"][key] == rec[key], key
    # both runs' first token is drawn from the same distribution: the target's after the prompt
    assert max(abs(a - b) for a, b in zip(spec["pRows"][0], alone["firstRow"])) < 1e-9


@pytest.mark.slow("the three models run in Node")
def test_context_overflow_is_refused_in_chinese(data, answer):
    run = answer["runs"][len(data["greedy"]["runs"]) + 2]
    assert "error" in run and not run.get("cancelled")
    ids = run["events"]
    assert ids.get("e6-prompt") is None and ids.get("e6-token") is None  # refused before anything ran
    from tokenizers import Tokenizer
    n = len(Tokenizer.from_file(str(BROWSER / "tokenizer.json")).encode(long_prompt(data)).ids)
    context = data["models"][TARGET]["context"]
    assert f"提示 {n} 个 token + 新 48 个 + k = 8，共 {n + 56} 个位置，超过了模型的上下文 {context}" in run["error"]


@pytest.mark.slow("the three models run in Node")
def test_cancel_stops_after_the_round(answer):
    assert answer["cancel"]["cancelled"] is True
    assert answer["cancel"]["error"] == "已取消"
    assert answer["cancel"]["rounds"] == 1


@pytest.mark.slow("the three models run in Node")
def test_report_timings(data, answer, capsys):
    """Not a speed test: prints the measured split (ms per round: target, draft, sampler) for the record."""
    rows = []
    for run in answer["runs"]:
        res = run.get("result")
        if not res:
            continue
        s, t, m = res["speculative"], res["target"], res["measured"]
        rows.append(f"T={res['temperature']} {res['draft']:9s} k={res['k']}  target-only ms/token "
                    f"model {t['ms']['target'] / len(t['tokens']):.2f} sampler {t['ms']['sampler'] / len(t['tokens']):.2f}"
                    f" | per round: target {s['ms']['target'] / s['rounds']:.2f} draft {s['ms']['draft'] / s['rounds']:.2f}"
                    f" sampler {s['ms']['sampler'] / s['rounds']:.2f} | c {m['c']:.3f} v {m['v']:.2f} "
                    f"α {m['alpha']:.2f} speedup model {m['speedupModel']:.2f} e2e {m['speedupEndToEnd']:.2f}")
    with capsys.disabled():
        print("\nE6 in Node (Pyodide load %.0f ms):\n  " % answer["load_ms"] + "\n  ".join(rows))
    assert rows
