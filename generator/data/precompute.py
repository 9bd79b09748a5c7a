"""gen_c13_precomputed: every figure of the lesson, computed from the real models, into c13.json.

Inputs: models/ (tokenizer + three checkpoints + card), precomputed/anchor-model.json,
precomputed/papers.json and widgets/sampler.py. Output: precomputed/c13.json — deterministic (the same
inputs give the same bytes; no dates, no timings), written atomically, with the sha256 of every input.
Models run in float64 so that the figures do not depend on which CPU kernels are picked.
"""
import multiprocessing
import os
import random
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import torch
from tqdm import tqdm

from .. import atomic
from ..models.checkpoint import DRAFTS, TARGET, load_family
from ..errors import InputError, SettingError
from ..jsonio import read_json
from .provenance import GENERATOR_NAME, GENERATOR_VERSION, SCHEMA_VERSION, input_hashes
from .roofline import load_anchor, roofline
from .shared_sampler import sampler
from .speculative import check_fits, distributions, draw, greedy_decode, speculative_run
from ..models.tokenizer import token_bytes, token_labels

PROMPTS = ("孔明曰：「", "卻說曹操", "玄德曰：「", "次日，")   # short openings found in the corpus
PREFIXES = PROMPTS[:2]                                          # where E2 shows the full p and q
GREEDY = {"n_new": 48, "ks": (2, 4)}
OFFLINE = {"n": 200_000, "seed": 20221130}                      # seeds are seed + index, recorded
REPLAY = {"draft": DRAFTS[0], "k": 4, "n_new": 32, "seed": 7, "max_tries": 100}
ACCOUNTING = {"seeds": (1, 2, 3), "n_new": 96, "ks": tuple(range(1, 9))}
SPREAD = {"n_new": 32, "seed": 11}                              # α along the target's own samples
DIGITS = 4                                                      # significant digits of stored probabilities
# How the page shows the data; the browser needs them too, so they live here, in the data, once.
DISPLAY = {"top_n": 12,       # tokens shown one by one in E2's pictures; the rest fold into one column
           "small_vocab": 8}  # E3's small scale, small enough to count the cells


def rounded(x, digits=DIGITS):
    return float(f"{x:.{digits}g}")


def stored_dist(probs):
    """A distribution as c13.json stores it; every consumer (offline checks, browser) uses these values."""
    return [rounded(v) for v in probs.tolist()]


def encode(tok, text):
    ids = tok.encode(text).ids
    if not ids:
        raise SettingError(f"prompt {text!r} encodes to no tokens")
    return ids


def model_facts(models, card, hashes):
    target_n = models[TARGET].num_params()
    out = {}
    for name, m in models.items():
        n = m.num_params()
        stats = card.get("models", {}).get(name, {})
        out[name] = {
            "role": "target" if name == TARGET else "draft",
            "width": m.cfg.n_embd, "layers": m.cfg.n_layer, "heads": m.cfg.n_head,
            "context": m.cfg.block_size, "vocab_size": m.cfg.vocab_size,
            "parameters": n, "bytes_float32": 4 * n,
            "ratio_to_target": n / target_n, "target_over_this": target_n / n,
            "train_loss": stats.get("train_loss"), "heldout_loss": stats.get("heldout_loss"),
            "train_wall_seconds": stats.get("wall_seconds"),
            "sha256": hashes[f"models/{name}/model.safetensors"],
        }
    return out


def greedy_identity(models, prompts, bar):
    runs, reference = [], {}
    for text, ids in prompts.items():
        reference[text] = greedy_decode(models[TARGET], ids, GREEDY["n_new"])
        for draft in DRAFTS:
            for k in GREEDY["ks"]:
                res = speculative_run(models[TARGET], models[draft], ids, GREEDY["n_new"], k, greedy=True)
                out = res["tokens"][:GREEDY["n_new"]]
                runs.append({"prompt": text, "draft": draft, "k": k, "identical": out == reference[text],
                             "tokens": out, "rounds": len(res["rounds"]),
                             "target_forwards": res["target_forwards"], "draft_forwards": res["draft_forwards"]})
                bar.update()
    return {"n_new": GREEDY["n_new"], "ks": list(GREEDY["ks"]), "runs": runs, "reference": reference,
            "identical": sum(r["identical"] for r in runs), "total": len(runs)}


def prefix_distributions(models, prompts):
    out = {}
    for text in PREFIXES:
        p = stored_dist(distributions(models[TARGET], prompts[text])[-1])
        entry = {"p": p, "q": {}, "alpha": {}, "sum_pq": {}, "tv_resample_p_closed_form": {}, "resample_p_deficit": {}}
        for draft in DRAFTS:
            q = stored_dist(distributions(models[draft], prompts[text])[-1])
            pair = sampler.Pair(p, q)
            entry["q"][draft] = q
            entry["alpha"][draft] = pair.alpha
            entry["sum_pq"][draft] = pair.sum_pq
            entry["tv_resample_p_closed_form"][draft] = sampler.resample_p_tv(pair.p, pair.q)
            entry["resample_p_deficit"][draft] = resample_p_deficit(pair)
        out[text] = entry
    return out


def resample_p_deficit(pair):
    """The token that "resample from p" under-produces most, from the sampler's own output distribution."""
    wrong = sampler.output_distribution(pair, "resample_p")
    i = max(range(len(wrong)), key=lambda j: (pair.p[j] - wrong[j], -j))
    return {"token": i, "p": pair.p[i], "q": pair.q[i], "output": wrong[i]}


def offline_checks(dists, bar):
    """200,000 draws per scheme through widgets/sampler.py, on the stored p and q, with recorded seeds."""
    out, index = {}, 0
    for text, entry in dists.items():
        out[text] = {}
        for draft in DRAFTS:
            pair = sampler.Pair(entry["p"], entry["q"][draft])
            out[text][draft] = {}
            for scheme in ("correct", "resample_p", "direct"):
                seed = OFFLINE["seed"] + index
                index += 1
                s = sampler.summary(sampler.run(pair, OFFLINE["n"], seed, scheme), pair)
                out[text][draft][scheme] = {"seed": seed, "n": s["n"], "tv": s["tv"],
                                            "acceptance_rate": s["acceptance_rate"]}
                bar.update()
    return out


def compact_round(rec):
    return {key: rec[key] for key in ("draft", "p", "q", "accept_prob", "u", "draw_u", "accepted",
                                      "kind", "token", "final_u", "yield")}


def replay(models, prompts):
    """The recorded run of E4. Its seed is the first from REPLAY["seed"] on whose run shows both ends of
    a round's range: a round rejected at its first token (1 token) and one with all k kept (k + 1)."""
    text, k = PROMPTS[0], REPLAY["k"]
    for seed in range(REPLAY["seed"], REPLAY["seed"] + REPLAY["max_tries"]):
        res = speculative_run(models[TARGET], models[REPLAY["draft"]], prompts[text], REPLAY["n_new"], k, seed=seed)
        yields = {r["yield"] for r in res["rounds"]}
        if 1 in yields and k + 1 in yields:
            break
    else:
        raise SettingError(f"no seed in {REPLAY['seed']}…{seed} gives a replay with both a 1-token and a "
                           f"{k + 1}-token round; raise REPLAY['max_tries']")
    return dict(REPLAY, seed=seed, first_seed_tried=REPLAY["seed"], prompt=text, prompt_tokens=prompts[text],
                temperature=1, rounds=[compact_round(r) for r in res["rounds"]], tokens=res["tokens"],
                target_forwards=res["target_forwards"], draft_forwards=res["draft_forwards"])


def draft_cost(models, draft):
    """c = weights a draft forward reads / weights a target forward reads (both read all of theirs)."""
    return models[draft].num_params() / models[TARGET].num_params()


def accounting_row(models, prompts, draft, k):
    """12 real runs (4 prompts × 3 seeds) of one draft at one k, summed into one row of the table."""
    c = draft_cost(models, draft)
    tokens = forwards = drafts_run = accepted = tested = 0
    for text in PROMPTS:
        for seed in ACCOUNTING["seeds"]:
            res = speculative_run(models[TARGET], models[draft], prompts[text], ACCOUNTING["n_new"], k, seed=seed)
            tokens += len(res["tokens"])
            forwards += res["target_forwards"]
            drafts_run += res["draft_forwards"]
            accepted += sum(r["accepted"] for r in res["rounds"])
            tested += sum(len(r["u"]) for r in res["rounds"])
    a = accepted / tested  # per tested position: a draft token after a rejection is never tested
    formula = (1 - a ** (k + 1)) / (1 - a)
    measured = tokens / forwards
    return {"k": k, "tokens": tokens, "target_forwards": forwards, "draft_forwards": drafts_run,
            "tokens_per_target_forward": measured, "acceptance_rate": a, "positions_tested": tested,
            "formula": formula, "speedup": formula / (c * k + 1), "measured_speedup": measured / (c * k + 1)}


_WORKER = {}


def _start_worker(models_dir, prompts):
    torch.set_num_threads(1)
    _, models = load_family(models_dir)
    _WORKER.update(models={name: m.double() for name, m in models.items()}, prompts=prompts)


def _worker_row(draft, k):
    return accounting_row(_WORKER["models"], _WORKER["prompts"], draft, k)


def accounting(models_dir, models, prompts, bar):
    """Every (draft, k) row; the rows are independent, so they run in one process per CPU core."""
    jobs = [(draft, k) for draft in DRAFTS for k in ACCOUNTING["ks"]]
    per_job = len(PROMPTS) * len(ACCOUNTING["seeds"])
    workers = min(2, os.cpu_count() or 1)
    rows = {}
    if workers > 1:
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_start_worker,
                                 initargs=(str(models_dir), prompts)) as pool:
            futures = {pool.submit(_worker_row, *job): job for job in jobs}
            for done in as_completed(futures):
                rows[futures[done]] = done.result()
                bar.update(per_job)
    else:
        for job in jobs:
            rows[job] = accounting_row(models, prompts, *job)
            bar.update(per_job)
    out = {"prompts": list(PROMPTS), "seeds": list(ACCOUNTING["seeds"]), "n_new": ACCOUNTING["n_new"],
           "c_definition": "weights read per draft forward ÷ weights read per target forward "
                           "(parameter counts; at batch 1 every forward reads all of its model's weights)",
           "drafts": {}}
    for draft in DRAFTS:
        table = [rows[(draft, k)] for k in ACCOUNTING["ks"]]
        best = max(table, key=lambda r: r["speedup"])
        out["drafts"][draft] = {"c": draft_cost(models, draft), "rows": table,
                                "best_k": best["k"], "best_speedup": best["speedup"]}
    return out


@torch.no_grad()
def sample_target(model, ids, n_new, rng):
    tokens = list(ids)
    for _ in range(n_new):
        tokens.append(draw(distributions(model, tokens)[-1], rng.random()))
    return tokens


def alpha_spread(models, prompts):
    """α = Σ min(p, q) at every position of text the target samples itself (T = 1) after each prompt."""
    rng = random.Random(SPREAD["seed"])
    texts = [(ids, sample_target(models[TARGET], ids, SPREAD["n_new"], rng)) for ids in prompts.values()]
    out = {"positions_per_prompt": SPREAD["n_new"], "seed": SPREAD["seed"], "drafts": {}}
    for draft in DRAFTS:
        values = []
        for ids, seq in texts:
            p = distributions(models[TARGET], seq[:-1])[len(ids) - 1:]
            q = distributions(models[draft], seq[:-1])[len(ids) - 1:]
            values += torch.minimum(p, q).sum(-1).tolist()
        values = [rounded(v) for v in values]
        out["drafts"][draft] = {"values": values, "min": min(values), "max": max(values),
                                "mean": sum(values) / len(values), "positions": len(values)}
    return out


def load_papers(path):
    data = read_json(path, "the papers' figures")
    entries = data.get("entries")
    if not isinstance(entries, list) or not entries:
        raise InputError(path, "entries", "must be a non-empty list")
    for i, e in enumerate(entries):
        for field in ("id", "work", "setting", "figures"):
            if field not in e:
                raise InputError(path, f"entries[{i}].{field}", "field is missing")
        for j, f in enumerate(e["figures"]):
            if not f.get("where"):
                raise InputError(path, f"entries[{i}].figures[{j}].where", "every figure needs its source")
    return data


def generate(models_dir, precomputed_dir, out_path=None, progress=True):
    """Compute everything and write c13.json atomically. Returns (data, seconds)."""
    started = time.perf_counter()
    models_dir, precomputed_dir = Path(models_dir), Path(precomputed_dir)
    out_path = Path(out_path) if out_path else precomputed_dir / "c13.json"
    # Read and check every input before computing anything: bad input leaves the old JSON untouched.
    hashes = input_hashes(models_dir, precomputed_dir)
    anchor = load_anchor(precomputed_dir / "anchor-model.json")
    papers = load_papers(precomputed_dir / "papers.json")
    tok, models = load_family(models_dir)
    card_path = models_dir / "card.json"
    card = read_json(card_path, "the model card") if card_path.exists() else {}
    torch.set_num_threads(1)
    models = {name: m.double() for name, m in models.items()}
    prompts = {text: encode(tok, text) for text in PROMPTS}
    for ids in prompts.values():  # the longest runs must fit the context, else stop now
        check_fits(models[TARGET], ids, ACCOUNTING["n_new"], max(ACCOUNTING["ks"]))

    total = (len(PROMPTS) * len(DRAFTS) * len(GREEDY["ks"]) + len(PREFIXES) * len(DRAFTS) * 3
             + len(DRAFTS) * len(ACCOUNTING["ks"]) * len(PROMPTS) * len(ACCOUNTING["seeds"]))
    bar = tqdm(total=total, desc=GENERATOR_NAME, unit="run", disable=not progress, dynamic_ncols=True)

    def stage(name):
        bar.set_description(f"{GENERATOR_NAME}: {name}")

    stage("greedy identity")
    greedy = greedy_identity(models, prompts, bar)
    stage("p and q at the prefixes")
    dists = prefix_distributions(models, prompts)
    stage("offline sampler checks")
    offline = offline_checks(dists, bar)
    stage("replay")
    rep = replay(models, prompts)
    stage("accounting")
    acc = accounting(models_dir, models, prompts, bar)
    stage("α per position")
    spread = alpha_spread(models, prompts)
    bar.close()

    raw = token_bytes(tok)
    data = {
        "schema_version": SCHEMA_VERSION,
        "provenance": {"generator": GENERATOR_NAME, "generator_version": GENERATOR_VERSION,
                       "command": "gen_c13_precomputed (= python -m generator data)", "inputs": hashes,
                       "torch_version": torch.__version__, "probability_digits": DIGITS},
        "models": model_facts(models, card, hashes),
        "card": {key: card[key] for key in ("recipe", "corpus", "tokens_seen_per_model", "wall_seconds_total")
                 if key in card},
        "tokenizer": {"vocab_size": tok.get_vocab_size(), "sha256": hashes["models/tokenizer.json"],
                      "labels": token_labels(tok),
                      "partial_tokens": sum(1 for b in raw if not _whole_utf8(b))},
        "prompts": [{"text": t, "tokens": ids} for t, ids in prompts.items()],
        "constants": dict(DISPLAY, target=TARGET, drafts=list(DRAFTS), ks=list(ACCOUNTING["ks"]),
                          greedy_ks=list(GREEDY["ks"]), schemes=list(sampler.RUNNABLE)),
        "greedy": greedy,
        "distributions": dists,
        "offline": dict(OFFLINE, results=offline),
        "replay": rep,
        "accounting": acc,
        "alpha_spread": spread,
        "anchor": roofline(anchor),
        "papers": papers["entries"],
    }
    atomic.write_json(out_path, data)
    return data, time.perf_counter() - started


def _whole_utf8(raw):
    try:
        raw.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False
