"""The c13.json contract, part 2 of 4: the kind of every value the pages read (VALUES), checked with its field named.

Used by generator/contract.py, which every reader imports; not imported on its own elsewhere.
"""
import json
import math
import re

from .errors import InputError

REGENERATE = "regenerate it with `make data` (python -m generator data)"

# What each value the pages read must be, by dotted pattern: `*` every key of an object (`[*]` shown in brackets),
# `[]` every item of a list, `{a,b}` each of the names. Checked in this order (tokenizer.vocab_size first: the token
# ids are checked against it), so a string, a boolean or an out-of-range number is refused here with its field,
# not deep in a figure's renderer. Non-finite numbers never get this far: generator/jsonio.py refuses them.
VALUES = {
    "tokenizer.vocab_size": "size", "tokenizer.partial_tokens": "count", "tokenizer.labels[]": "text",
    "tokenizer.sha256": "text",
    "provenance.{generator,generator_version,command,torch_version}": "text",
    "models.*.{parameters,width,layers,heads,context,vocab_size,bytes_float32}": "size",
    "models.*.{ratio_to_target,target_over_this}": "positive",
    "models.*.{heldout_loss,train_loss,train_wall_seconds}": "card_figure",
    "models.*.{role,sha256}": "text", "card.recipe.steps": "size",
    "prompts[].text": "text", "prompts[].tokens[]": "token",
    "constants.target": "text", "constants.drafts[]": "text", "constants.schemes[]": "text",
    "constants.{top_n,small_vocab,lesson_k}": "size", "constants.ks[]": "size", "constants.greedy_ks[]": "size",
    "constants.e2_live_sizes[]": "size", "constants.e6_new_tokens[]": "size",
    "greedy.{identical,total}": "count", "greedy.n_new": "size", "greedy.ks[]": "size",
    "greedy.runs[].identical": "flag",
    "distributions[*].p[]": "probability", "distributions[*].q.*[]": "probability",
    "distributions[*].{alpha,sum_pq,tv_resample_p_closed_form}.*": "probability",
    "distributions[*].resample_p_deficit.*.token": "token",
    "distributions[*].resample_p_deficit.*.{p,q,output}": "probability",
    "distributions[*].columns.*.tokens[]": "token",
    "distributions[*].columns.*.{p,q,overlap,residual,excess}[]": "probability",
    "distributions[*].columns.*.rest.count": "count",
    "distributions[*].columns.*.rest.{p,q,overlap,residual,excess}": "probability",
    "offline.n": "size", "offline.results[*].*.*.{tv,acceptance_rate}": "probability",
    "offline.results[*].*.*.seed": "seed", "offline.results[*].*.*.n": "size",
    "replay.{draft,prompt}": "text", "replay.{k,n_new}": "size", "replay.{target_forwards,draft_forwards}": "count",
    "replay.prompt_tokens[]": "token", "replay.tokens[]": "token",
    "replay.rounds[].draft[]": "token", "replay.rounds[].{p,q,accept_prob,u,draw_u}[]": "probability",
    "replay.rounds[].final_u": "probability",
    "replay.rounds[].accepted": "count", "replay.rounds[].token": "token", "replay.rounds[].yield": "size",
    "replay.rounds[].kind": "text", "replay.seed": "seed", "replay.temperature": "non_negative",
    "accounting.{alpha_definition,interval}": "text",
    "accounting.n_new": "size", "accounting.prompts[]": "text", "accounting.seeds[]": "seed",
    "accounting.drafts.*.c": "positive",
    "accounting.drafts.*.{alpha,alpha_low,alpha_high,alpha_k_min,alpha_k_max}": "probability",
    "accounting.drafts.*.{accepted,positions_tested}": "count",
    "accounting.drafts.*.{best_k,measured_best_k}": "size",
    "accounting.drafts.*.{best_speedup,measured_best_speedup}": "positive",
    "accounting.drafts.*.rows[].k": "size",
    "accounting.drafts.*.rows[].{acceptance_rate,alpha_low,alpha_high}": "probability",
    "accounting.drafts.*.rows[].{tokens_per_target_forward,formula,speedup,measured_speedup}": "positive",
    "accounting.drafts.*.rows[].{tokens,target_forwards,draft_forwards,accepted,positions_tested}": "count",
    "alpha_positions.positions_per_prompt": "size", "alpha_positions.prompts[]": "text",
    "alpha_positions.tokens[]": "token", "alpha_positions.drafts.*.{min,max,mean}": "probability",
    "alpha_positions.drafts.*.positions": "count", "alpha_positions.drafts.*.values[]": "probability",
    "anchor.{model,hardware}": "text", "anchor.{vocab_size,positions_verified}": "size",
    "anchor.{compute_ms_per_token,weight_read_ms_per_token,compute_ms_for_positions,bytes_read_per_token,"
    "params_read_per_token,flops_per_position,linear_attention_state_mib,linear_attention_state_mb,"
    "read_over_compute}": "positive",
    "browser.float16_error.max_abs_dp": "probability", "browser.float16_error.{positions,argmax_agree}": "count",
    "tv_curve.{prefix,draft}": "text", "tv_curve.schemes[]": "text", "tv_curve.ns[]": "size", "tv_curve.seed": "seed", "tv_curve.seeds.*[]": "seed",
    "tv_curve.closed_form_tv": "probability", "tv_curve.tv.*[][]": "probability",
}


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and (
        isinstance(value, int) or math.isfinite(value))


def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool)


# each kind of VALUES: its test (vocab: tokenizer.vocab_size) and what the message says it must be
KINDS = {
    "probability": (lambda v, vocab: _number(v) and 0 <= v <= 1, "a probability (a finite number in [0, 1])"),
    "positive": (lambda v, vocab: _number(v) and v > 0, "a positive finite number"),
    "card_figure": (lambda v, vocab: v is None or (_number(v) and v >= 0),
                    "a finite number ≥ 0, or null when the model card has none"),
    "non_negative": (lambda v, vocab: _number(v) and v >= 0, "a finite number ≥ 0"),
    "count": (lambda v, vocab: _whole(v) and v >= 0, "a count (a whole number ≥ 0)"),
    "size": (lambda v, vocab: _whole(v) and v >= 1, "a whole number ≥ 1"),
    "seed": (lambda v, vocab: _whole(v), "a seed (a whole number)"),
    "token": (lambda v, vocab: _whole(v) and 0 <= v < vocab, "a token id (a whole number below tokenizer.vocab_size)"),
    "text": (lambda v, vocab: isinstance(v, str) and bool(v), "a non-empty string"),
    "flag": (lambda v, vocab: isinstance(v, bool), "true or false"),
}
STEP = re.compile(r"\[\*\]|\[\]|\.?([^.\[]+)")


def got(value):
    """A value as a message shows it: its JSON type, and the value itself when it is short."""
    kind = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number")
    text = json.dumps(value, ensure_ascii=False)
    return f"{kind} {text}" if len(text) <= 40 and not isinstance(value, (dict, list)) else kind


def expand(pattern):
    """A pattern of VALUES with its `{a,b}` alternatives spelt out, one pattern per name."""
    head, brace, rest = pattern.partition("{")
    if not brace:
        return [pattern]
    names, _, tail = rest.partition("}")
    return [out for name in names.split(",") for out in expand(head + name + tail)]


def values_at(data, pattern, path):
    """(field, value) for every value one pattern (without alternatives) names; a part that is missing or not the
    object or list the pattern walks through is refused, named."""
    found = [("", data)]
    for match in STEP.finditer(pattern):
        step, key = match.group(0), match.group(1)
        nxt = []
        for field, node in found:
            if step == "[]":
                if not isinstance(node, list):
                    raise InputError(path, field, f"must be a list, got {got(node)}; {REGENERATE}")
                nxt += [(f"{field}[{i}]", value) for i, value in enumerate(node)]
                continue
            if not isinstance(node, dict):
                raise InputError(path, field, f"must be an object, got {got(node)}; {REGENERATE}")
            if step == "[*]":
                nxt += [(f"{field}[{name}]", value) for name, value in node.items()]
            elif key == "*":
                nxt += [(f"{field}.{name}" if field else name, value) for name, value in node.items()]
            elif key in node:
                nxt.append((f"{field}.{key}" if field else key, node[key]))
            else:
                raise InputError(path, f"{field}.{key}" if field else key, f"missing; {REGENERATE}")
        found = nxt
    return found


def check_values(data, path):
    """Every value of VALUES is of its kind: probabilities in [0, 1], counts whole and not negative, token ids
    within the vocabulary, names non-empty strings."""
    for pattern, kind in VALUES.items():
        test, wanted = KINDS[kind]
        for one in expand(pattern):
            for field, value in values_at(data, one, path):
                if not test(value, data["tokenizer"]["vocab_size"]):
                    raise InputError(path, field, f"must be {wanted}, got {got(value)}; {REGENERATE}")


def require(mapping, keys, path, where):
    if not isinstance(mapping, dict):
        raise InputError(path, where, "missing or not an object")
    for key in keys:
        if key not in mapping:
            raise InputError(path, f"{where}.{key}", "missing")

