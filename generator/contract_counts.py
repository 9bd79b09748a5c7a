"""The c13.json contract, part 3 of 4: the counts and rates of the runs against each other.

Used by generator/contract.py (validate); a file whose figures contradict each other was not written by this
generator, whatever its digest says.
"""
import math

from .errors import InputError
from .contract_values import REGENERATE

def _same(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def check_counts(data, path, drafts):
    """The counts and rates agree with each other as every run makes them: nothing accepted that was not tested,
    nothing tested that was not drafted, 1 to k + 1 tokens per target forward, every rate its counts' quotient,
    every total the sum of its parts. A file whose figures contradict each other was not written by this generator."""
    def need(holds, field, problem):
        if not holds:
            raise InputError(path, field, f"{problem}: the figures contradict each other; {REGENERATE}")

    vocab, top_n = data["tokenizer"]["vocab_size"], data["constants"]["top_n"]
    need(data["tokenizer"]["partial_tokens"] <= vocab, "tokenizer.partial_tokens", f"is more than the {vocab} tokens")
    for name, model in data["models"].items():
        need(model["vocab_size"] == vocab, f"models.{name}.vocab_size", f"is {model['vocab_size']}, but "
                                                                         f"tokenizer.vocab_size is {vocab}")
    g = data["greedy"]
    need(g["identical"] <= g["total"], "greedy.identical", f"is {g['identical']}, more than greedy.total "
                                                           f"({g['total']})")
    need(g["total"] == len(g["runs"]), "greedy.total", f"is {g['total']}, but greedy.runs lists {len(g['runs'])} runs")
    marked = sum(1 for run in g["runs"] if run["identical"])
    need(g["identical"] == marked, "greedy.identical", f"is {g['identical']}, but {marked} of greedy.runs are "
                                                       "marked identical")
    for prefix, entry in data["distributions"].items():
        for draft, columns in entry["columns"].items():
            need(columns["rest"]["count"] == vocab - top_n, f"distributions[{prefix}].columns.{draft}.rest.count",
                 f"is {columns['rest']['count']}; the rest of {vocab} tokens after the top {top_n} is {vocab - top_n}")
    for prefix, by_draft in data["offline"]["results"].items():
        for draft, by_scheme in by_draft.items():
            for scheme, result in by_scheme.items():
                need(result["n"] == data["offline"]["n"], f"offline.results[{prefix}].{draft}.{scheme}.n",
                     f"is {result['n']}, but offline.n is {data['offline']['n']}")
    check_replay_counts(data["replay"], need)
    for draft in drafts:
        check_accounting_counts(data["accounting"]["drafts"][draft], f"accounting.drafts.{draft}",
                                data["constants"]["ks"], need)
        entry, where = data["alpha_positions"]["drafts"][draft], f"alpha_positions.drafts.{draft}"
        need(entry["positions"] == len(entry["values"]), f"{where}.positions",
             f"is {entry['positions']}, but {where}.values holds {len(entry['values'])}")
        need(entry["min"] == min(entry["values"]) and entry["max"] == max(entry["values"]), where,
             "min and max are not the least and the greatest of values")
        need(entry["min"] <= entry["mean"] <= entry["max"], f"{where}.mean", "is not between min and max")
    error = data["browser"]["float16_error"]
    need(error["argmax_agree"] <= error["positions"], "browser.float16_error.argmax_agree",
         f"is {error['argmax_agree']}, more than the {error['positions']} positions compared")


def check_replay_counts(replay, need):
    """E4's recorded run: each round's tested positions, its yield and kind follow from what it accepted, and the
    rounds' tokens in order are the run's tokens."""
    k, produced = replay["k"], []
    need(replay["target_forwards"] == len(replay["rounds"]), "replay.target_forwards",
         f"is {replay['target_forwards']}, but replay.rounds lists {len(replay['rounds'])} rounds (one target "
         "forward each)")
    need(replay["draft_forwards"] <= k * replay["target_forwards"], "replay.draft_forwards",
         f"is {replay['draft_forwards']}, more than k × target_forwards ({k * replay['target_forwards']})")
    for i, rd in enumerate(replay["rounds"]):
        where, accepted = f"replay.rounds[{i}]", rd["accepted"]
        need(accepted <= len(rd["draft"]) <= k, f"{where}.accepted",
             f"is {accepted} of {len(rd['draft'])} drafted tokens (k = {k}): accepted ≤ drafted ≤ k does not hold")
        need(rd["yield"] == accepted + 1, f"{where}.yield", f"is {rd['yield']}, not accepted + 1 = {accepted + 1}")
        bonus = accepted == len(rd["draft"])
        need(rd["kind"] == ("bonus" if bonus else "resampled"), f"{where}.kind",
             f"is {rd['kind']!r}; a round that accepted {'every' if bonus else 'not every'} drafted token ends with "
             f"{'a bonus' if bonus else 'a resampled'} token")
        tested = accepted + (0 if bonus else 1)
        for key in ("p", "q", "accept_prob", "u"):
            need(len(rd[key]) == tested, f"{where}.{key}", f"has {len(rd[key])} entries, one per tested position "
                                                           f"({tested})")
        produced += rd["draft"][:accepted] + [rd["token"]]
    need(produced == replay["tokens"], "replay.tokens", "are not the rounds' accepted drafts and final tokens in order")
    need(len(replay["tokens"]) >= replay["n_new"], "replay.tokens", f"holds {len(replay['tokens'])} tokens, fewer "
                                                                     f"than replay.n_new ({replay['n_new']})")


def check_accounting_counts(entry, where, ks, need):
    """One draft's accounting: per k the run's counts and the rates made of them, and the pooled α of all k."""
    for j, row in enumerate(entry["rows"]):
        at, k = f"{where}.rows[{j}]", row["k"]
        forwards = row["target_forwards"]
        need(forwards >= 1, f"{at}.target_forwards", "must be at least 1: every run calls the target")
        need(row["accepted"] <= row["positions_tested"], f"{at}.accepted",
             f"is {row['accepted']}, more than the {row['positions_tested']} positions tested")
        need(row["positions_tested"] >= 1, f"{at}.positions_tested", "must be at least 1: α is accepted ÷ tested")
        need(row["positions_tested"] <= row["draft_forwards"] <= k * forwards, f"{at}.draft_forwards",
             f"is {row['draft_forwards']}: positions_tested ({row['positions_tested']}) ≤ draft_forwards ≤ "
             f"k × target_forwards ({k * forwards}) does not hold")
        need(forwards <= row["tokens"] <= (k + 1) * forwards, f"{at}.tokens",
             f"is {row['tokens']}: each of the {forwards} target forwards yields 1 to k + 1 = {k + 1} tokens")
        need(_same(row["acceptance_rate"], row["accepted"] / row["positions_tested"]), f"{at}.acceptance_rate",
             f"is {row['acceptance_rate']}, not accepted ÷ positions_tested")
        need(_same(row["tokens_per_target_forward"], row["tokens"] / forwards), f"{at}.tokens_per_target_forward",
             f"is {row['tokens_per_target_forward']}, not tokens ÷ target_forwards")
        need(row["alpha_low"] <= row["acceptance_rate"] <= row["alpha_high"], f"{at}.acceptance_rate",
             "is outside its interval [alpha_low, alpha_high]")
    rows = entry["rows"]
    for key in ("accepted", "positions_tested"):
        total = sum(row[key] for row in rows)
        need(entry[key] == total, f"{where}.{key}", f"is {entry[key]}, but its rows sum to {total}")
    need(entry["positions_tested"] >= 1 and _same(entry["alpha"], entry["accepted"] / entry["positions_tested"]),
         f"{where}.alpha", f"is {entry['alpha']}, not accepted ÷ positions_tested")
    need(entry["alpha_low"] <= entry["alpha"] <= entry["alpha_high"], f"{where}.alpha",
         "is outside its interval [alpha_low, alpha_high]")
    rates = [row["acceptance_rate"] for row in rows]
    need(entry["alpha_k_min"] == min(rates) and entry["alpha_k_max"] == max(rates), f"{where}.alpha_k_min",
         "alpha_k_min and alpha_k_max are not the least and the greatest of the rows' acceptance rates")
    for key in ("best_k", "measured_best_k"):
        need(entry[key] in ks, f"{where}.{key}", f"is {entry[key]}, not one of constants.ks {ks}")
