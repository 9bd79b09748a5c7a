"""`make measure`: what our models cost on this machine — ms per forward, c, v(k), and the wall-clock speedup of real
speculative sampling over target-only sampling — into precomputed/measured.json.

Torch, the committed float32 models, batch 1, KV caches, the data stage's thread count. Timings are not
reproducible, so they live in their own file: c13.json (byte-identical across rebuilds) never holds them, `make site`
never reads or writes measured.json, and this module is left out of c13.json's code hash (provenance.py). Method:
warm-up runs first (not timed); then `repeats` passes over the accounting's prompts × seeds, within which the
models, the configurations (draft × k) and target-only against speculative sampling alternate; medians with their
spread (min–max and quartiles) over the samples, whose number is recorded. Every accept/reject, residual and bonus
draw is widgets/sampler.py's (speculative.py); timing.py holds the timed pieces.
"""
import contextlib
import ctypes
import datetime
import fcntl
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import torch
from tqdm import tqdm

from .. import atomic
from ..contract import MEASURED_KIND, MEASURED_VERSION, validate_measured
from ..errors import InputError
from ..models.checkpoint import CONFIG, DRAFTS, TARGET, WEIGHTS, load_family
from .browser_files import browser_file_bytes
from .provenance import sha256
from .settings import ACCOUNTING, PROMPTS
from .speculative import check_fits, speculative_run
from .timing import forward_seconds, rotated, stats, target_only_run, timed, torch_overhead

THREADS = 1  # the data stage's: gen_c13_precomputed runs each of its processes on one thread (precompute.generate)
# n_new: tokens per run, fewer than the accounting's 96 so that the repeats fit in a few minutes on 2 cores;
# context: the cached positions before a timed forward (the middle of an accounting run: a prompt + 48);
# calls: forwards per timing sample; baseline_every: a target-only run before every this many speculative runs
# seeds: the accounting's (--quick: its first only)
FULL = {"repeats": 3, "n_new": 32, "context": 48, "calls": 10, "baseline_every": 4, "seeds": ACCOUNTING["seeds"]}
QUICK = {"repeats": 2, "n_new": 4, "context": 16, "calls": 2, "baseline_every": 4, "seeds": ACCOUNTING["seeds"][:1]}
COMMAND = "make measure (python -m generator measure)"
BROWSER_SCRIPT = Path(__file__).with_name("measure_browser.mjs")
OVERHEAD_STEPS = 20  # profiled cached steps per model (torch_overhead)


def machine():
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu or platform.processor() or platform.machine() or "unknown", "cores": os.cpu_count() or 1,
            "threads": torch.get_num_threads(), "torch_version": torch.__version__,
            "python_version": platform.python_version(), "os": platform.platform(),
            "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}


def model_files(models_dir, models):
    """Each model with the sha256 of the files measured, so that a page can tell a measurement of other models."""
    out = {}
    for name, m in models.items():
        if any(p.dtype != torch.float32 for p in m.parameters()):
            raise InputError(Path(models_dir) / name / WEIGHTS, None, "the measurement runs float32 weights")
        out[name] = {"role": "target" if name == TARGET else "draft", "parameters": m.num_params(),
                     "sha256": sha256(Path(models_dir) / name / WEIGHTS),
                     "config_sha256": sha256(Path(models_dir) / name / CONFIG)}
    return out


def forward_block(models, context, new, calls, index, samples):
    """One timing sample of every model's one-token forward (models in turn, a different one first each time) and
    of the target's forward over k + 1 positions for every k, relative to its one-token forward of this block."""
    one = {}
    for name in rotated(models, index):
        one[name] = forward_seconds(models[name], context, new[:1], calls)
        samples["ms"][name].append(one[name] * 1e3)
    for draft in DRAFTS:
        samples["c"][draft].append(one[draft] / one[TARGET])
    for k in rotated(ACCOUNTING["ks"], index):
        samples["v"][k].append(forward_seconds(models[TARGET], context, new[:k + 1], calls) / one[TARGET])


def speculative_pass(models, ids, seed, setting, configs, spent):
    """One prompt and seed: a speculative run of every configuration, in the given order, with a target-only run
    before every setting["baseline_every"] of them. Adds seconds and tokens to spent[way]."""
    for i, (draft, k) in enumerate(configs):
        if i % setting["baseline_every"] == 0:
            seconds, res = timed(target_only_run, models[TARGET], ids, setting["n_new"], seed)
            spent["target_only"][0] += seconds
            spent["target_only"][1] += len(res["tokens"])
        seconds, res = timed(speculative_run, models[TARGET], models[draft], ids, setting["n_new"], k, seed=seed)
        cell = spent[(draft, k)]
        cell[0] += seconds
        cell[1] += len(res["tokens"])
        for key in ("target_forwards", "draft_forwards"):
            cell[2][key] = cell[2].get(key, 0) + res[key]


def collect(models, jobs, setting, context, new, bar):
    """Every sample: per repeat, each job (prompt, seed) in turn — a forward block, then every configuration."""
    configs = [(draft, k) for k in ACCOUNTING["ks"] for draft in DRAFTS]  # the drafts alternate
    samples = {"ms": defaultdict(list), "c": defaultdict(list), "v": defaultdict(list),
               "speedup": defaultdict(list), "target_ms": defaultdict(list), "spec_ms": defaultdict(list)}
    counts = {}
    for r in range(setting["repeats"]):
        spent = defaultdict(lambda: [0.0, 0, {}])
        for j, (ids, seed) in enumerate(rotated(jobs, r)):
            index = r * len(jobs) + j
            forward_block(models, context, new, setting["calls"], index, samples)
            speculative_pass(models, ids, seed, setting, rotated(configs, index), spent)
            bar.update()
        base_seconds, base_tokens, _ = spent.pop("target_only")
        for config, (seconds, tokens, forwards) in spent.items():
            per_token = seconds / tokens
            samples["speedup"][config].append(base_seconds / base_tokens / per_token)
            samples["target_ms"][config].append(base_seconds / base_tokens * 1e3)
            samples["spec_ms"][config].append(per_token * 1e3)
            counts.setdefault(config, dict(forwards, tokens=tokens))
    return samples, counts


def warm_up(models, prompt, setting):
    """Untimed runs of every piece (the first calls of a process are slow); returns the context and the new tokens
    the forwards are timed on: the target's own text after the prompt."""
    text = target_only_run(models[TARGET], prompt, setting["context"] + max(ACCOUNTING["ks"]), seed=0)["tokens"]
    sequence = (list(prompt) + text)
    context, new = sequence[:setting["context"]], sequence[setting["context"]:]
    for draft in DRAFTS:
        speculative_run(models[TARGET], models[draft], prompt, setting["n_new"], max(ACCOUNTING["ks"]), seed=0)
        forward_seconds(models[draft], context, new[:1], setting["calls"])
    for k in (0, *ACCOUNTING["ks"]):
        forward_seconds(models[TARGET], context, new[:k + 1], setting["calls"])
    return context, new


# Node reads the float16 files (about 10 MB) from a folder of the system's temporary one, `c13-measure-*`, that holds
# this file, locked while the run lives; a run that was killed (kill -9) cannot remove its folder, so the next
# `make measure` removes every such folder that no running measurement holds locked.
SCRATCH_MARKER = ".c13-measure"


def remove_leftovers(parent=None):
    """Remove the temporary folders that killed measurements left (`c13-measure-*` holding SCRATCH_MARKER, which no
    running measurement holds locked); nothing else."""
    atomic.remove_unheld(Path(parent or tempfile.gettempdir()).glob("c13-measure-*"), SCRATCH_MARKER)


@contextlib.contextmanager
def scratch_folder():
    """A new temporary folder, marked and locked while this measurement runs (the lock goes with the process), and
    removed at the end; left by a killed run, it is removed by the next one (remove_leftovers)."""
    tmp = Path(tempfile.mkdtemp(prefix="c13-measure-"))
    try:
        with open(tmp / SCRATCH_MARKER, "w", encoding="utf-8") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            lock.write("A temporary folder of `make measure`; the next `make measure` removes it once no run holds "
                       "this file locked.\n")
            lock.flush()
            yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


PR_SET_PDEATHSIG = 1
try:
    LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
except OSError:
    LIBC = None


def die_with_parent():
    """For a child process, before it runs its program: be killed the moment this process dies, however it dies
    (Linux: prctl PR_SET_PDEATHSIG), so that a measurement killed with -9 leaves no Node running for nobody."""
    parent = os.getpid()

    def preexec():
        if LIBC is not None and LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0 and os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)  # the parent died before the signal was asked for
    return preexec


def browser_forwards(models_dir, context, new, quick):
    """E6's forwards (WebAssembly SIMD and plain JavaScript, widgets/e6/forwards.mjs) timed in Node on this machine
    (measure_browser.mjs), on the float16 files the site serves, made here as the data stage makes them, at the
    positions torch is timed on. Returns what the script printed, with the sha256 of each file it ran. Node runs in
    a process group of its own and dies with this process; its folder is removed at the end, or by the next run."""
    node = shutil.which("node")
    if node is None:
        raise InputError("node", None, "make measure times E6's forwards in Node as well: install Node 20")
    with scratch_folder() as tmp:
        files = {}
        for name, blob in browser_file_bytes(models_dir).items():
            (Path(tmp) / name).write_bytes(blob)
            files[name] = sha256(Path(tmp) / name)
        job = {"target": TARGET, "drafts": list(DRAFTS), "ks": list(ACCOUNTING["ks"]), "context": list(context),
               "new": list(new)}
        (Path(tmp) / "job.json").write_text(json.dumps(job), encoding="utf-8")
        run = subprocess.run([node, str(BROWSER_SCRIPT), str(tmp), str(Path(tmp) / "job.json"),
                              *(["--quick"] if quick else [])], capture_output=True, text=True,
                             process_group=0, preexec_fn=die_with_parent())
    if run.returncode != 0:
        raise InputError(BROWSER_SCRIPT, None, f"timing E6's forwards in Node failed: {run.stderr.strip()[-800:]}")
    out = json.loads(run.stdout)
    out["files"] = files
    out["method"] = ("E6's measuring phase (widgets/e6/timing.mjs) in Node, per draft and k: blocks of repeated "
                     "calls of the target's one-position forward, the draft's and the target's k + 1-position verify, "
                     "each block at least 5 ms, in rotated order; ms per call include the float64 softmax of each row")
    return out


def assemble(setting, quick, files, tok_sha, samples, counts, jobs_meta):
    ks = list(ACCOUNTING["ks"])
    for name, entry in files.items():
        entry["ms_per_forward"] = stats(samples["ms"][name])
    forward_samples = len(samples["ms"][TARGET])
    speedup = {draft: [dict(counts[(draft, k)], k=k, speedup=stats(samples["speedup"][(draft, k)]),
                            target_only_ms_per_token=stats(samples["target_ms"][(draft, k)]),
                            speculative_ms_per_token=stats(samples["spec_ms"][(draft, k)])) for k in ks]
               for draft in DRAFTS}
    return {
        "kind": MEASURED_KIND, "version": MEASURED_VERSION, "command": COMMAND, "machine": machine(),
        "target": TARGET, "drafts": list(DRAFTS), "ks": ks, "models": files, "tokenizer_sha256": tok_sha,
        "method": {"quick": quick, "repeats": setting["repeats"], "forward_samples": forward_samples,
                   "context": setting["context"], "calls_per_sample": setting["calls"], "n_new": setting["n_new"],
                   "baseline_every": setting["baseline_every"], "dtype": "float32", "batch": 1,
                   "warm_up": "every model, forward size and draft run once, untimed, before any sample",
                   "interleaving": "per repeat, per prompt and seed: the models' forwards in turn, then every "
                                   "draft × k (the drafts alternate) with a target-only run before every "
                                   f"{setting['baseline_every']} speculative runs; each order rotated every time",
                   "spread": "median, min–max and quartiles (inclusive) over the samples; n = number of samples",
                   "forward": "ms of one model call with a KV cache, batch 1, one new position after `context` "
                              "cached ones; v(k) = a target call over k + 1 new positions ÷ its one-position call (which "
                              "takes the model's lean one-token path, as decoding does)",
                   "speedup": "target-only ms per token ÷ speculative ms per token, wall clock, one sample per "
                              "repeat over every prompt and seed (the target-only runs of a repeat are pooled into "
                              "one baseline shared by its draft × k); both sample at T = 1 through widgets/sampler.py"},
        "forward": {"c": {d: stats(samples["c"][d]) for d in DRAFTS},
                    "v": [dict(stats(samples["v"][k]), k=k) for k in ks]},
        "speedup": dict(jobs_meta, drafts=speedup),
    }


def measure(models_dir, out_path, repeats=None, quick=False, progress=True):
    """Measure and write measured.json atomically (validated first). Returns (data, seconds)."""
    started = time.perf_counter()
    remove_leftovers()  # the temporary folders of killed measurements
    models_dir = Path(models_dir)
    setting = dict(QUICK if quick else FULL)
    if repeats is not None:
        if repeats < 1:
            raise InputError("--repeats", None, f"must be at least 1, got {repeats}")
        setting["repeats"] = repeats
    tok, models = load_family(models_dir)  # a missing or corrupt model stops here, naming its file
    files = model_files(models_dir, models)
    tok_sha = sha256(models_dir / "tokenizer.json")
    torch.set_num_threads(THREADS)
    prompts = {text: tok.encode(text).ids for text in PROMPTS}
    for ids in prompts.values():
        check_fits(models[TARGET], ids, setting["n_new"], max(ACCOUNTING["ks"]))
    jobs = [(ids, seed) for ids in prompts.values() for seed in setting["seeds"]]
    context, new = warm_up(models, prompts[PROMPTS[0]], setting)
    bar = tqdm(total=setting["repeats"] * len(jobs), desc="measure", unit="pass", disable=not progress,
               dynamic_ncols=True)
    with torch.inference_mode():
        samples, counts = collect(models, jobs, setting, context, new, bar)
        overhead = {name: torch_overhead(m, context, new, OVERHEAD_STEPS) for name, m in models.items()}
    bar.close()
    meta = {"prompts": list(PROMPTS), "seeds": list(setting["seeds"]), "n_new": setting["n_new"]}
    data = assemble(setting, quick, files, tok_sha, samples, counts, meta)
    data["torch_overhead"] = overhead
    data["browser_forwards"] = browser_forwards(models_dir, context, new, quick)
    data = validate_measured(data, out_path)
    atomic.write_json(out_path, data)
    return data, time.perf_counter() - started


def report(data):
    """The measured table as lines of text."""
    m, lines = data["machine"], []
    lines.append(f"{m['cpu']}, {m['cores']} cores, {m['threads']} thread(s); torch {m['torch_version']}, "
                 f"Python {m['python_version']}, {m['os']}; {m['date_utc']}")
    lines.append(f"repeats {data['method']['repeats']}, forward samples {data['method']['forward_samples']} "
                 f"(median [min–max])")
    fmt = "{median:.3g} [{min:.3g}–{max:.3g}]".format
    for name, entry in data["models"].items():
        c = f", c = {fmt(**data['forward']['c'][name])}" if name in data["forward"]["c"] else ""
        lines.append(f"{name:>12}: {fmt(**entry['ms_per_forward'])} ms per forward{c}")
    lines.append("v(k): " + "; ".join(f"{v['k']}: {fmt(**v)}" for v in data["forward"]["v"]))
    for draft, rows in data["speedup"]["drafts"].items():
        lines.append(f"{draft:>12} speedup by k: " + "; ".join(f"{r['k']}: {fmt(**r['speedup'])}" for r in rows))
    for name, entry in data.get("torch_overhead", {}).items():
        lines.append(f"{name:>12}: torch makes {entry['aten_calls_per_step']:.0f} ATen calls per cached step, "
                     f"{entry['outside_matmul_share']:.0%} of its time outside the matrix products (under the profiler)")
    browser = data.get("browser_forwards")
    for kernel, entry in (browser or {}).get("engines", {}).items():
        ms = "; ".join(f"{name} {fmt(**stat)} ms" for name, stat in entry["ms_per_forward"].items())
        c = "; ".join(f"{name} {fmt(**stat)}" for name, stat in entry["c"].items())
        lines.append(f"E6's {kernel} forward in Node {browser['node']}: {ms}; c: {c}")
        lines.append(f"{'':>12}  v(k): " + "; ".join(f"{v['k']}: {fmt(**v)}" for v in entry["v"]))
    return lines
