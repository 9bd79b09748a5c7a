"""The real-model runs of gen_c13_precomputed: greedy identity, the replay, the accounting table, α per position.

Torch runs the models; every decision is widgets/sampler.py's (through speculative.py and batched.py). The
accounting runs are independent: those of one prompt (every draft, k and seed) advance together as one batch
(batched.py), each round worked out one drafted position at a time (ROUND_CHUNK), so that what follows a
rejection is never computed. The greedy identity's runs are batched the same way. precompute.py runs these
stages as jobs in two processes (jobs.py).
"""
import random

from ..errors import InputError
from ..models.checkpoint import DRAFTS, TARGET
from .batched import mixed_runs
from .settings import ACCOUNTING, ALPHA_POSITIONS, GREEDY, LESSON_FILE, PROMPTS, REPLAY, rounded
from ..shared_sampler import sampler
from ..speedup import best_k, expected_yield, speedup
from .speculative import Decoder, distributions, greedy_decode, speculative_run

# Drafted positions worked out at a time in the batched runs (batched.py): the counts and tokens are the same for
# any value; 1 was the fastest of 1, 2, 3, 4 and k on the build machine (2.3× faster than whole rounds).
ROUND_CHUNK = 1


def greedy_identity(models, prompts, progress=None):
    """At T = 0 speculative decoding must give exactly the target's own greedy text, for every draft and k.
    progress(fraction), if given, hears how far the speculative runs are (the references take a fifth of it)."""
    reference = {text: greedy_decode(models[TARGET], ids, GREEDY["n_new"]) for text, ids in prompts.items()}
    jobs = [(text, draft, k) for text in prompts for draft in DRAFTS for k in GREEDY["ks"]]
    results = mixed_runs(models[TARGET], {draft: models[draft] for draft in DRAFTS},
                         [(draft, k, prompts[text], None) for text, draft, k in jobs], GREEDY["n_new"], greedy=True,
                         chunk=ROUND_CHUNK, progress=progress and (lambda done: progress(0.2 + 0.8 * done)))
    runs = []
    for (text, draft, k), res in zip(jobs, results):
        out = res["tokens"][:GREEDY["n_new"]]
        runs.append({"prompt": text, "draft": draft, "k": k, "identical": out == reference[text],
                     "tokens": out, "rounds": len(res["rounds"]),
                     "target_forwards": res["target_forwards"], "draft_forwards": res["draft_forwards"]})
    return {"n_new": GREEDY["n_new"], "ks": list(GREEDY["ks"]), "runs": runs, "reference": reference,
            "identical": sum(r["identical"] for r in runs), "total": len(runs)}


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
        raise InputError(LESSON_FILE, "replay.max_tries", f"is {REPLAY['max_tries']}: no seed in "
                         f"{REPLAY['seed']}…{seed} gives a replay with both a 1-token and a {k + 1}-token round "
                         f"(k.lesson = {k}); raise it, or lower k.lesson, or give the replay more new tokens "
                         "(replay.new_tokens)")
    return dict(REPLAY, seed=seed, first_seed_tried=REPLAY["seed"], prompt=text, prompt_tokens=prompts[text],
                temperature=1, rounds=[compact_round(r) for r in res["rounds"]], tokens=res["tokens"],
                target_forwards=res["target_forwards"], draft_forwards=res["draft_forwards"])


def draft_cost(models, draft):
    """c = weights a draft forward reads / weights a target forward reads (both read all of theirs)."""
    return models[draft].num_params() / models[TARGET].num_params()


COUNTS = ("tokens", "target_forwards", "draft_forwards", "accepted", "tested")


def accounting_counts(models, prompts, texts, setting=ACCOUNTING, progress=None):
    """The runs after the given prompts, one per draft, k and seed, all advanced together (mixed_runs), as
    summable counts: {(draft, k, prompt text): counts}. progress: mixed_runs'."""
    jobs = [(draft, k, text, seed) for text in texts for draft in DRAFTS for k in setting["ks"]
            for seed in setting["seeds"]]
    results = mixed_runs(models[TARGET], {draft: models[draft] for draft in DRAFTS},
                         [(draft, k, prompts[text], seed) for draft, k, text, seed in jobs], setting["n_new"],
                         chunk=ROUND_CHUNK, progress=progress)
    out = {job[:3]: dict.fromkeys(COUNTS, 0) for job in jobs}
    for job, res in zip(jobs, results):
        counts = out[job[:3]]
        counts["tokens"] += len(res["tokens"])
        counts["target_forwards"] += res["target_forwards"]
        counts["draft_forwards"] += res["draft_forwards"]
        counts["accepted"] += sum(r["accepted"] for r in res["rounds"])
        counts["tested"] += sum(len(r["u"]) for r in res["rounds"])
    return out


Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


def wilson(successes, n, z=Z95):
    """The Wilson score interval of a binomial proportion (each tested position taken as independent)."""
    share = successes / n
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * (share * (1 - share) / n + z * z / (4 * n * n)) ** 0.5 / (1 + z * z / n)
    return centre - half, centre + half


def accounting_row(models, draft, k, counts):
    """One row of the table from the summed counts of its 12 real runs (4 prompts × 3 seeds): what was measured
    at this k, with the acceptance rate of this k alone and its 95% interval. accounting() adds the formula."""
    c = draft_cost(models, draft)
    total = {key: sum(part[key] for part in counts) for key in COUNTS}
    a = total["accepted"] / total["tested"]  # per tested position: a draft token after a rejection is never tested
    low, high = wilson(total["accepted"], total["tested"])
    measured = total["tokens"] / total["target_forwards"]
    return {"k": k, "tokens": total["tokens"], "target_forwards": total["target_forwards"],
            "draft_forwards": total["draft_forwards"], "tokens_per_target_forward": measured,
            "acceptance_rate": a, "alpha_low": low, "alpha_high": high, "accepted": total["accepted"],
            "positions_tested": total["tested"], "measured_speedup": measured / (c * k + 1)}


def draft_accounting(models, draft, table):
    """One draft's ledger: one α for the formula, pooled over every k (all accepted ÷ all tested positions), with
    its interval and the range of the per-k rates; each row's formula and speedup with that α; the best k by it."""
    c = draft_cost(models, draft)
    accepted = sum(r["accepted"] for r in table)
    tested = sum(r["positions_tested"] for r in table)
    alpha = accepted / tested
    low, high = wilson(accepted, tested)
    rows = [dict(r, formula=expected_yield(alpha, r["k"]), speedup=speedup(alpha, c, r["k"])) for r in table]
    best = next(r for r in rows if r["k"] == best_k(alpha, c, [r["k"] for r in rows]))
    measured_best = max(rows, key=lambda r: r["measured_speedup"])
    return {"c": c, "alpha": alpha, "alpha_low": low, "alpha_high": high, "accepted": accepted,
            "positions_tested": tested, "alpha_k_min": min(r["acceptance_rate"] for r in rows),
            "alpha_k_max": max(r["acceptance_rate"] for r in rows), "rows": rows,
            "best_k": best["k"], "best_speedup": best["speedup"],
            "measured_best_k": measured_best["k"], "measured_best_speedup": measured_best["measured_speedup"]}


def accounting(models, prompts, counts):
    """The accounting table from the finished runs' counts ({(draft, k, prompt): counts}, accounting_counts'):
    per draft, c, the rows by k and the best k."""
    out = {"prompts": list(PROMPTS), "seeds": list(ACCOUNTING["seeds"]), "n_new": ACCOUNTING["n_new"],
           "c_definition": "weights read per draft forward ÷ weights read per target forward "
                           "(parameter counts; at batch 1 every forward reads all of its model's weights)",
           "alpha_definition": "one α per draft for the formula: accepted ÷ tested draft positions, pooled over "
                               "every k; each row keeps its own k's rate as a measurement",
           "interval": "95% Wilson score interval, each tested position taken as independent", "drafts": {}}
    for draft in DRAFTS:
        table = [accounting_row(models, draft, k, [counts[(draft, k, text)] for text in prompts])
                 for k in ACCOUNTING["ks"]]
        out["drafts"][draft] = draft_accounting(models, draft, table)
    return out


def sample_target(model, ids, n_new, rng):
    """The target's own text at T = 1, one cached forward per token; each token drawn by sampler.draw."""
    decoder, tokens = Decoder(model), list(ids)
    for _ in range(n_new):
        tokens.append(sampler.draw(decoder.probs(tokens, 1)[0].tolist(), rng.random()))
    return tokens


def alpha_positions(models, prompts):
    """α = Σ min(p, q) (sampler.alpha) at every position of text the target samples itself after each prompt."""
    rng = random.Random(ALPHA_POSITIONS["seed"])
    texts = [(ids, sample_target(models[TARGET], ids, ALPHA_POSITIONS["n_new"], rng)) for ids in prompts.values()]
    p_rows = [distributions(models[TARGET], seq[:-1])[len(ids) - 1:].tolist() for ids, seq in texts]
    # position j of prompt i is the token the target drew there: prompts[i], then tokens[i * n_new + j]
    out = {"positions_per_prompt": ALPHA_POSITIONS["n_new"], "seed": ALPHA_POSITIONS["seed"],
           "prompts": list(prompts), "tokens": [t for ids, seq in texts for t in seq[len(ids):]], "drafts": {}}
    for draft in DRAFTS:
        values = []
        for (ids, seq), p_text in zip(texts, p_rows):
            q_text = distributions(models[draft], seq[:-1])[len(ids) - 1:].tolist()
            values += [rounded(sampler.alpha(p, q)) for p, q in zip(p_text, q_text)]
        out["drafts"][draft] = {"values": values, "min": min(values), "max": max(values),
                                "mean": sum(values) / len(values), "positions": len(values)}
    return out
