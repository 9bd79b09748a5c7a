"""gen_c13_precomputed: every figure of the lesson, computed from the real models, into c13.json.

Inputs: models/ (tokenizer + three checkpoints + card), precomputed/lesson.toml (the settings), anchor-model.json,
precomputed/papers.json and widgets/sampler.py. Output: precomputed/c13.json — deterministic (the same
inputs give the same bytes; no dates, no timings), written atomically, with the sha256 of every input.
Models run in float64, on pinned CPU kernels (kernels.py), so that the bytes do not depend on the machine.
Its jobs (JOBS) do not depend on each other: they run shared by this process and one worker process
(jobs.py). Every input is checked before the work starts; c13.json and the browser files it records are written
together at the end (atomic.write_together), or none of them when anything fails.
"""
import math
import time
from pathlib import Path

import torch
from tqdm import tqdm

from .. import atomic, contract
from ..models.checkpoint import DRAFTS, TARGET, load_card, load_family
from ..errors import InputError, SettingError
from . import kernels
from .provenance import BROWSER_DIR, GENERATOR_NAME, GENERATOR_VERSION, SCHEMA_VERSION, input_hashes
from .jobs import SharedJobs
from .roofline import roofline
from .runs import accounting, accounting_counts, alpha_positions, greedy_identity, replay
from .settings import (ACCOUNTING, ALPHA_POSITIONS, DIGITS, DISPLAY, GREEDY, LESSON_FILE, LESSON_K,  # noqa: F401
                       LESSON_NAME, LESSON_SHA256, OFFLINE, PREFIXES, PROMPTS, REPLAY, WIDGETS, rounded, stored_dist)
from .browser_files import browser_file_bytes, describe, float16_error
from ..shared_sampler import sampler
from .speculative import check_fits, distributions
from .tv_curve import TV_CURVE, tv_curve, tv_points
from ..models.tokenizer import token_bytes, token_labels
from ..models.checks import prompt_problems


def encode(tok, text):
    ids = tok.encode(text).ids
    if not ids:
        raise SettingError(f"prompt {text!r} encodes to no tokens")
    return ids


def check_prompts(tok, block_size):
    """The prompts of lesson.toml as training checks them (generator/models/checks.py: no control character, mostly
    tokens the tokenizer learnt, not raw bytes; the corpus is training's to check), and each short enough that the
    longest run after it fits the models' context. Refused naming lesson.toml, `prompts` and the prompt.
    Returns {text: token ids}."""
    problems = prompt_problems(tok, PROMPTS, "the models'")
    if problems:
        raise InputError(LESSON_FILE, "prompts", "; ".join(problems) + ": change it to an opening of the text the "
                                                  "models learnt from (or retrain them on a text that has it)")
    runs = {"accounting.new_tokens": ACCOUNTING["n_new"] + max(ACCOUNTING["ks"]),  # new and drafted tokens of each
            "greedy.new_tokens": GREEDY["n_new"] + max(GREEDY["ks"]),
            "replay.new_tokens": REPLAY["n_new"] + REPLAY["k"],
            "alpha_positions.new_tokens": ALPHA_POSITIONS["n_new"]}
    key, room = max(runs.items(), key=lambda item: item[1])
    if room >= block_size:  # no prompt fits: the runs are too long, not the prompts
        raise SettingError(f"{LESSON_FILE}: {key}: its runs need {room} positions for their new and drafted tokens, "
                           f"more than the context of {block_size} leaves after a prompt: make them shorter")
    prompts = {text: encode(tok, text) for text in PROMPTS}
    for text, ids in prompts.items():
        if len(ids) + room > block_size:
            raise InputError(LESSON_FILE, "prompts", f"the prompt {text!r} is {len(ids)} tokens, and the longest run "
                                                     f"after it adds {room} new and drafted tokens: {len(ids) + room} "
                                                     f"positions, more than the models' context of {block_size}; "
                                                     f"shorten it to at most {block_size - room} tokens (or make the "
                                                     f"runs shorter: {key})")
    return prompts


def check_e6_choices(block_size):
    """E6 offers the choices of e6.new_tokens that fit the models' context with the largest k and a prompt of at least
    one token (n + k.max < context: the rule of generator/pages/widget_payload.py e6_payload); at least one must."""
    k = max(ACCOUNTING["ks"])
    if not any(n + k < block_size for n in WIDGETS["e6_new_tokens"]):
        raise InputError(LESSON_FILE, "e6.new_tokens", f"is {WIDGETS['e6_new_tokens']}: with k.max = {k} none fits the "
                                                       f"models' context of {block_size} beside a prompt; add a choice "
                                                       f"of at most {block_size - k - 1} new tokens")


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


def prefix_distributions(models, prompts):
    out = {}
    for text in PREFIXES:
        p_full = distributions(models[TARGET], prompts[text])[-1]
        p = stored_dist(p_full)
        entry = {"p": p, "q": {}, "alpha": {}, "sum_pq": {}, "tv_resample_p_closed_form": {}, "resample_p_deficit": {},
                 "columns": {}}
        for draft in DRAFTS:
            q_full = distributions(models[draft], prompts[text])[-1]
            q = stored_dist(q_full)
            pair = sampler.Pair(p, q)
            entry["q"][draft] = q
            entry["alpha"][draft] = pair.alpha
            entry["sum_pq"][draft] = pair.sum_pq
            entry["tv_resample_p_closed_form"][draft] = sampler.resample_p_tv(pair.p, pair.q)
            entry["resample_p_deficit"][draft] = resample_p_deficit(pair)
            # the picture's parts from the models' own float64 values, stored unrounded: a part shown on the page is
            # rounded once, there, and never lands on a boundary that two stored roundings made (p − q of 4-digit
            # values); its columns' p and q are those values too, so that each part is its p and q's split
            entry["columns"][draft] = stacked_columns(p_full.tolist(), q_full.tolist(), DISPLAY["top_n"])
        out[text] = entry
    return out


def resample_p_deficit(pair):
    """The token that "resample from p" under-produces most, from the sampler's own output distribution."""
    wrong = sampler.output_distribution(pair, "resample_p")
    i = max(range(len(wrong)), key=lambda j: (pair.p[j] - wrong[j], -j))
    return {"token": i, "p": pair.p[i], "q": pair.q[i], "output": wrong[i]}


def stacked_columns(p, q, top_n):
    """E2's stacked picture by token, split by the sampler: the top_n tokens by max(p, q) (ties by id), each with
    p, q, the overlap min(p, q) that is kept, the residual (p − q)⁺ and the excess (q − p)⁺; the rest summed."""
    parts = {"p": p, "q": q, "overlap": sampler.overlap(p, q), "residual": sampler.residual(p, q),
             "excess": sampler.residual(q, p)}
    order = sorted(range(len(p)), key=lambda i: (-max(p[i], q[i]), i))
    shown, rest = order[:top_n], order[top_n:]
    columns = {name: [values[i] for i in shown] for name, values in parts.items()}
    columns["rest"] = {name: math.fsum(values[i] for i in rest) for name, values in parts.items()}
    return dict(columns, tokens=shown, rest=dict(columns["rest"], count=len(rest)))


def offline_checks(dists):
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
    return out


# The jobs of the data stage, for this process and one worker (jobs.py), with their CPU seconds on the
# build machine: the order of the jobs (longest first) and the progress bar's weights depend on these, never a
# figure. Each is called with the models, the prompts' ids, E2's stored p and q, and progress(fraction).
JOBS = {
    "greedy identity": (2.2, lambda models, prompts, dists, progress: greedy_identity(models, prompts, progress)),
    "replay": (0.3, lambda models, prompts, dists, progress: replay(models, prompts)),
    "α per position": (0.8, lambda models, prompts, dists, progress: alpha_positions(models, prompts)),
    "offline sampler checks": (1.3, lambda models, prompts, dists, progress: offline_checks(dists)),
}
TV_SECONDS = {"correct": 2.0, "direct": 1.2, "resample_p": 1.9}  # a scheme missing here is an error at import
JOBS.update({f"TV against n: {scheme}": (TV_SECONDS[scheme], lambda models, prompts, dists, progress, s=scheme:
                                           tv_points(dists, s, progress=progress))
               for scheme in TV_CURVE["schemes"]})
# the accounting's runs after two prompts (every draft, k and seed) in one batch: 13% less work than one prompt
# at a time (a forward costs less per run), and with more in one batch no less
GROUPS = [PROMPTS[i:i + 2] for i in range(0, len(PROMPTS), 2)]
JOBS.update({"accounting: " + " ".join(group): (6.0 * len(group), lambda models, prompts, dists, progress, g=group:
                                                   accounting_counts(models, prompts, list(g), progress=progress))
               for group in GROUPS})


def run_job(state, progress, name):
    """Run one job: state is (models, prompts, dists), the float64 models, the prompts' ids, E2's stored p, q;
    progress(fraction) hears how far it is."""
    return JOBS[name][1](*state, progress)


class JobsBar:
    """The progress bar of the jobs running in both processes: each weighs its estimated seconds (JOBS) and
    moves as it reports; the jobs finished so far are counted after it."""

    def __init__(self, names, enabled):
        self.weights, self.shares = {n: JOBS[n][0] for n in names}, dict.fromkeys(names, 0.0)
        self.bar = tqdm(total=sum(self.weights.values()), desc=GENERATOR_NAME, disable=not enabled,
                        dynamic_ncols=True, bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}"
                                                       "{postfix}")
        self.finished = 0

    def moved(self, name, share):
        self.shares[name] = max(self.shares[name], share)
        self.bar.update(sum(w * self.shares[n] for n, w in self.weights.items()) - self.bar.n)

    def done(self, name):
        self.finished += 1
        self.bar.set_postfix_str(f"{self.finished}/{len(self.weights)} jobs, last: {name}", refresh=False)
        self.moved(name, 1.0)

    def close(self):
        self.bar.close()


def worker_state(models_dir):
    """The worker's state for run_job: it loads the models and encodes the prompts itself, and computes the
    stored p and q again (the same numbers: the same models, the same code). It inherits the pinned kernels'
    environment from this process, and refuses to work on others."""
    kernels.check("the data stage's worker process")
    torch.set_num_threads(1)
    tok, models = load_family(models_dir)
    models = {name: m.double() for name, m in models.items()}
    prompts = {text: encode(tok, text) for text in PROMPTS}
    return models, prompts, prefix_distributions(models, prompts)


def generate(models_dir, precomputed_dir, out_path=None, progress=True, workers=None, pool=None):
    """Compute everything and write c13.json and its browser files together. Returns (data, seconds). pool: the
    worker, if the caller started it already, as SharedJobs("generator.data.precompute:worker_state",
    (models_dir,)); else it starts now, to load the models while this process checks the inputs. Both processes
    then take the jobs (jobs.py). Any error stops the worker and writes nothing."""
    started = time.perf_counter()
    models_dir, precomputed_dir = Path(models_dir), Path(precomputed_dir)
    out_path = Path(out_path) if out_path else precomputed_dir / "c13.json"
    kernels.pin()  # for the worker started here; the command line pinned this process before torch loaded
    pool = pool or SharedJobs(f"{__name__}:worker_state", (str(models_dir),), workers=workers)
    try:
        # Read and check every input before computing anything: bad input leaves the old files untouched.
        hashes = input_hashes(models_dir, precomputed_dir)
        if LESSON_FILE.resolve() != (precomputed_dir / LESSON_NAME).resolve():
            raise SettingError(f"the settings were read from {LESSON_FILE}, not from {precomputed_dir / LESSON_NAME}: "
                               "run the data stage through `python -m generator data --precomputed …`")
        anchor_path = precomputed_dir / "anchor-model.json"
        anchor = anchor_figures(contract.load_anchor(anchor_path), anchor_path)
        papers = contract.load_papers(precomputed_dir / "papers.json")
        card = load_card(models_dir)
        tok, models = load_family(models_dir)
        torch.set_num_threads(1)
        models = {name: m.double() for name, m in models.items()}
        prompts = check_prompts(tok, models[TARGET].cfg.block_size)
        check_e6_choices(models[TARGET].cfg.block_size)
        for ids in prompts.values():  # the longest runs must fit the context, else stop now
            check_fits(models[TARGET], ids, ACCOUNTING["n_new"], max(ACCOUNTING["ks"]))
        dists = prefix_distributions(models, prompts)
        names = sorted(JOBS, key=lambda name: -JOBS[name][0])
        bar = JobsBar(names, progress)
        done = pool.run((models, prompts, dists), [(name, run_job, (name,)) for name in names],
                        on_done=bar.done, on_progress=bar.moved)
        bar.close()
    finally:
        pool.stop()
    kernels.check("the data stage")  # the figures above must not have come from unpinned kernels
    greedy, rep, positions, offline = (done[name] for name in ("greedy identity", "replay", "α per position",
                                                               "offline sampler checks"))
    curve = tv_curve(dists, points={scheme: done[f"TV against n: {scheme}"] for scheme in TV_CURVE["schemes"]})
    counts = {key: value for name in JOBS if name.startswith("accounting: ") for key, value in done[name].items()}
    acc = accounting(models, prompts, counts)
    files = browser_file_bytes(models_dir)
    browser = browser_record(files, models, prompts, greedy)

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
        "constants": dict(DISPLAY, **WIDGETS, target=TARGET, drafts=list(DRAFTS), ks=list(ACCOUNTING["ks"]),
                          greedy_ks=list(GREEDY["ks"]), lesson_k=LESSON_K, schemes=list(sampler.RUNNABLE)),
        "greedy": greedy,
        "distributions": dists,
        "offline": dict(OFFLINE, results=offline),
        "tv_curve": curve,
        "replay": rep,
        "accounting": acc,
        "alpha_positions": positions,
        "anchor": anchor,
        "papers": papers["entries"],
        "browser": browser,
    }
    data = contract.validate(contract.seal(data), out_path)  # the contract holds before anything is written
    unchanged_since(hashes, models_dir, precomputed_dir)
    folder = out_path.parent / BROWSER_DIR
    atomic.write_together({**{folder / name: content for name, content in files.items()},
                           out_path: atomic.dumps_json(data).encode("utf-8")})  # c13.json last: it records them
    return data, time.perf_counter() - started


def unchanged_since(hashes, models_dir, precomputed_dir):
    """Refuse to write figures against inputs they were not made from: every input as it was hashed when the work
    started, and lesson.toml as this process read it (an author saving a file while `make preview` regenerates)."""
    now = input_hashes(models_dir, precomputed_dir)
    changed = [name for name, sha in hashes.items() if now.get(name) != sha]
    lesson = f"precomputed/{LESSON_NAME}"
    if hashes[lesson] != LESSON_SHA256 and lesson not in changed:
        changed.append(lesson)
    if changed:
        raise SettingError(f"{', '.join(changed)} changed while the data stage ran; nothing was written: run it again "
                           "(make data), or let the preview regenerate when the files are saved")


def anchor_figures(anchor, path):
    """The roofline of the checked anchor file, worked out before any model runs: figures that are each valid
    but together give a zero or infinite time are refused here, naming the file, not after the work."""
    try:
        figures = roofline(anchor, LESSON_K + 1)
    except (ArithmeticError, ValueError) as e:
        raise InputError(path, None, f"its figures give no finite roofline ({type(e).__name__}: {e}); check the "
                                     "hardware's peak and bandwidth and the model's sizes") from None
    for key, value in figures.items():
        if isinstance(value, float) and not (math.isfinite(value) and value > 0):
            raise InputError(path, None, f"its figures give {key} = {value!r}, not a positive finite number; "
                                         "check the hardware's peak and bandwidth and the model's sizes")
    return figures


def browser_record(files, models, prompts, greedy):
    """What c13.json says of E6's files (written beside it, in browser/): their sha256 and sizes, and what the
    float16 rounding costs, measured on the prompts followed by their greedy reference text."""
    sequences = [ids + greedy["reference"][text] for text, ids in prompts.items()]
    return dict(describe(files), dir=BROWSER_DIR, float16_error=float16_error(models, sequences))


def _whole_utf8(raw):
    try:
        raw.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False
