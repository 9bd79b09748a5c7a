"""The command line: python -m generator COMMAND. Bad input exits 2 with a message naming the file and field."""
import argparse
import sys
import time
from pathlib import Path

from . import contract
from .errors import InputError, SettingError
from .watch import DataWatcher

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"
PRECOMPUTED = ROOT / "precomputed"
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "sanguozhiyanyi.txt"


def announce_output(out):
    """Say, before the long run starts, where training writes and which files it will replace."""
    from .models.family import DRAFTS, TARGET
    out = Path(out)
    shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
    default = " (the default: the committed models, tracked by git)" if out.resolve() == MODELS.resolve() else ""
    print(f"writing to {shown}/{default} once all models have trained; a failed or refused run writes nothing")
    replaced = [name for name in ("tokenizer.json", TARGET, *DRAFTS, "card.json", "README.md") if (out / name).exists()]
    if replaced:
        print(f"  replaces: {', '.join(replaced)} (use --out DIR to keep them)")


def cmd_train(args):
    from .data.settings import PROMPTS
    from .models.train import Recipe, train_all
    from .models.output import check_out
    recipe = Recipe() if args.steps is None else Recipe(steps=args.steps)
    check_out(args.out)  # a file, a repository or a folder of other files: refused before it says where it writes
    announce_output(args.out)
    card = train_all(args.corpus, args.out, recipe, prompts=PROMPTS, force=args.force)
    for name, m in card["models"].items():
        print(f"{name:>12}: held-out loss {m['heldout_loss']:.4f}, train loss {m['train_loss']:.4f}")
    print(f"all three in {card['wall_seconds_total']:.0f} s; card written to {Path(args.out) / 'README.md'}")


def cmd_models(args):
    from .models.checkpoint import load_card, load_family
    tok, models = load_family(args.models)
    card = dict({"models": {}}, **load_card(args.models))
    print(f"tokenizer: {tok.get_vocab_size():,} tokens ({Path(args.models) / 'tokenizer.json'})")
    target = next(iter(models.values())).num_params()
    for name, model in models.items():
        n = model.num_params()
        held = card["models"].get(name, {}).get("heldout_loss")
        held = f"{held:.4f}" if isinstance(held, (int, float)) else "n/a"
        print(f"{name:>12}: width {model.cfg.n_embd:>3}, {n:>9,} parameters "
              f"(1/{target / n:.1f} of the target), held-out loss {held}")


def run_data_stage(models, precomputed, out, progress=True):
    """Stage 2, models → c13.json: compute every figure and write the sealed, validated file. Returns (data, s).
    The CPU kernels are pinned first (data/kernels.py: the same bytes on any machine); then its worker process
    starts, so that it imports torch and loads the models while this process does."""
    import os
    from .data import kernels
    kernels.pin()
    lesson = (Path(precomputed) / "lesson.toml").resolve()
    os.environ["C13_LESSON"] = str(lesson)  # the lesson's settings beside c13.json, for this process and its worker
    loaded = sys.modules.get("generator.data.settings")
    if loaded is not None and loaded.LESSON_FILE.resolve() != lesson:
        raise SettingError(f"this process already read the lesson's settings from {loaded.LESSON_FILE}; run the data "
                           f"stage for {precomputed} in a process of its own")
    from .data.jobs import SharedJobs
    pool = SharedJobs("generator.data.precompute:worker_state", (str(models),))
    try:
        from .data.precompute import generate
        return generate(models, precomputed, out, progress=progress, pool=pool)
    finally:
        pool.stop()


def cmd_data(args):
    out = Path(args.out) if args.out else Path(args.precomputed) / "c13.json"
    data, seconds = run_data_stage(args.models, args.precomputed, out, progress=not args.quiet)
    g = data["greedy"]
    print(f"greedy identity: {g['identical']}/{g['total']} runs equal the target's own greedy output")
    for draft, d in data["accounting"]["drafts"].items():
        row = next(r for r in d["rows"] if r["k"] == data["constants"]["lesson_k"])  # the lesson's k: any k.max
        print(f"{draft:>12}: c = {d['c']:.3f}; k = {row['k']}: {row['tokens_per_target_forward']:.2f} tokens "
              f"per target forward (formula {row['formula']:.2f}, α = {row['acceptance_rate']:.3f}); "
              f"best k = {d['best_k']} ({d['best_speedup']:.2f}×)")
    print(f"wrote {out} in {seconds:.1f} s")


def cmd_measure(args):
    """make measure: time the real models on this machine into measured.json (never read by `make site`)."""
    from .data.measure import measure, report
    out = Path(args.out) if args.out else PRECOMPUTED / "measured.json"
    data, seconds = measure(args.models, out, repeats=args.repeats, quick=args.quick, progress=not args.quiet)
    for line in report(data):
        print(line)
    print(f"wrote {out} in {seconds:.0f} s")


def what_is_stale(path, models, precomputed):
    """The reasons c13.json must be regenerated (empty when it is fresh). Torch-free."""
    from .data.provenance import stale_inputs
    if not path.is_file():
        return [f"{path.name} (missing)"]
    try:
        return stale_inputs(path, models, precomputed)
    except InputError as e:
        if e.field:  # a readable file with a bad field (a non-finite number, a malformed record): refused, named
            raise
        return [str(e)]  # unreadable JSON: regenerate it like a stale one


def warn_stale_measured(data_path, log=None, data=None):
    """A warning naming measured.json and `make measure` when the timings beside c13.json are of other models (or of
    other k): the page then shows them as stale. Returns the stale inputs (empty when it is fresh or absent). data:
    c13.json's content when the caller has loaded it already."""
    from .pages.data_file import DataError
    from .pages.measured import MEASURE_COMMAND, measured_file, read_measured, stale_inputs, stale_words
    log = log or (lambda line: print(line, file=sys.stderr))
    path = measured_file(data_path)
    try:
        measured = read_measured(path)
        data = None if measured is None else data or contract.load(data_path)
        stale = [] if measured is None else stale_inputs(measured, data)
    except (DataError, InputError):
        return []  # a corrupt file is the build's to refuse, named with its field; a warning has nothing to add
    if stale:
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        log(f"warning: {shown} {stale_words(measured, data, stale, Path(data_path).name)['en']}: "
            f"the page shows its timings as stale and combines none of them with the new figures; run "
            f"`{MEASURE_COMMAND}` (a few minutes) to time these models")
    return stale


def cmd_check(args):
    path = Path(args.precomputed) / "c13.json"
    changed = what_is_stale(path, args.models, args.precomputed)
    if changed:
        print(f"{path} is stale; changed since it was generated:", file=sys.stderr)
        for name in changed:
            print(f"  - {name}", file=sys.stderr)
        print("regenerate it with: make data (python -m generator data)", file=sys.stderr)
        return 1
    data = contract.load(path)
    print(f"{path} is fresh: every input matches its recorded sha256, and its content its digest")
    warn_stale_measured(path, data=data)
    return 0


def must_regenerate(path, models, precomputed):
    """What changed since c13.json was made (empty when it is fresh), for `make site` and the preview alike. A file
    edited by hand is refused with InputError, never overwritten: regenerating it is the author's explicit step."""
    from .data.provenance import EDITED_BY_HAND
    changed = what_is_stale(path, models, precomputed)
    if EDITED_BY_HAND in changed:
        raise InputError(path, contract.DIGEST, "does not match the content: the file was edited by hand after it "
                         "was generated; regenerate it with `make data` (this discards the edit), then build again")
    return changed


def fresh_data(models, precomputed, progress=True, log=print, regenerate=None):
    """The path of an up-to-date c13.json: checked, and regenerated when stale or missing (must_regenerate).
    regenerate: how, returning its seconds (the preview's DataWatcher.in_child); default this process."""
    path = Path(precomputed) / "c13.json"
    changed = must_regenerate(path, models, precomputed)
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    if not changed:
        log(f"{shown} is fresh")
        return path
    log(f"{shown} must be regenerated; changed since it was made:")
    for name in changed:
        log(f"  - {name}")
    if regenerate is not None:
        seconds = regenerate()
    else:
        _, seconds = run_data_stage(models, precomputed, path, progress=progress)
    log(f"regenerated {shown} in {seconds:.1f} s")
    return path


def cmd_build(args):
    """check freshness → regenerate when needed → build the pages; with --data, the pages from that file only."""
    from .pages.build import build, report
    if args.data:
        data = Path(args.data)
        print(f"using {data} as given (no freshness check)")
    else:
        data = fresh_data(args.models, args.precomputed, progress=not args.quiet)
    warn_stale_measured(data)
    report(build(data, args.out))


def cmd_preview(args):
    """make preview: fresh data first, then the live server, with c13.json regenerated whenever its inputs change."""
    import signal

    from .pages.preview import check_port, serve_preview
    check_port(args.port)  # a second preview on the same port: said now, before any regeneration
    watcher = DataWatcher(args.models, args.precomputed)

    def interrupted(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, interrupted)  # `kill` ends it as Ctrl-C does: the child regeneration with it
    try:
        data = fresh_data(args.models, args.precomputed, progress=not args.quiet,
                          regenerate=lambda: watcher.in_child(progress=not args.quiet))
        warn_stale_measured(data)
        watcher.start()
        print(f"preview: http://127.0.0.1:{args.port}/ — pages rebuild and reload as docs/, widgets/ or the data "
              "change; Ctrl-C stops it")
        serve_preview(data, port=args.port, docs=args.docs)
    except KeyboardInterrupt:
        print("preview: stopped", file=sys.stderr)
        return 130
    finally:
        watcher.stop()


def cmd_serve(args):
    from .pages.serve import serve
    serve(args.site, args.port, args.prefix)


def gen_c13_precomputed():
    """The console script named as the lesson cites it: the same as `python -m generator data`."""
    return main(["data", *sys.argv[1:]])


def cmd_context(args):
    """Every variable, helper, filter and figure the page templates can use, with where each comes from."""
    import json
    import os

    from .pages.context_info import describe, text
    from .pages.data_file import DataError, load_data
    path = Path(args.data).resolve()
    os.environ["C13_DATA"] = str(path)  # measured.json is read beside it, as the build does
    try:
        listing = describe(load_data(path))
    except DataError as e:  # the build's error (a MkDocs PluginError): here one line and exit 2, as any bad input
        raise e.for_command_line(path) from None
    try:
        print(json.dumps(listing, ensure_ascii=False, indent=1) if args.json else text(listing))
    except BrokenPipeError:  # piped into head: the reader has seen what it wanted
        sys.stdout = None
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m generator", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("train", help="train the tokenizer and the three models from a corpus (tens of minutes)")
    p.add_argument("--corpus", default=str(DEFAULT_CORPUS), help="UTF-8 text, hard-wrapped paragraphs")
    p.add_argument("--out", default=str(MODELS), help="where to write tokenizer, models and card")
    p.add_argument("--steps", type=int, default=None, help="training steps per model (default: the recipe's)")
    p.add_argument("--force", action="store_true", help="warn instead of refusing when the lesson's prompts are not "
                                                         "in the corpus or the models do no better than chance")
    p.set_defaults(run=cmd_train)
    p = sub.add_parser("models", help="load and validate the committed models, and report them")
    p.add_argument("--models", default=str(MODELS))
    p.set_defaults(run=cmd_models)
    p = sub.add_parser("data", help="gen_c13_precomputed: compute every figure of the lesson into c13.json")
    p.add_argument("--models", default=str(MODELS))
    p.add_argument("--precomputed", default=str(PRECOMPUTED), help="folder of the hand-written inputs")
    p.add_argument("--out", default=None, help="output path (default: PRECOMPUTED/c13.json)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=cmd_data)
    p = sub.add_parser("measure", help="time the real models on this machine (ms per forward, c, v(k), speedups) "
                                        "into precomputed/measured.json; `make site` never needs it")
    p.add_argument("--models", default=str(MODELS))
    p.add_argument("--repeats", type=int, default=None, help="passes over the prompts and seeds (default: 3; "
                                                               "--quick: 2)")
    p.add_argument("--quick", action="store_true", help="few repeats and few tokens (for tests)")
    p.add_argument("--out", default=None, help="output path (default: precomputed/measured.json)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=cmd_measure)
    p = sub.add_parser("check", help="exit 1 when c13.json no longer matches its inputs")
    p.add_argument("--models", default=str(MODELS))
    p.add_argument("--precomputed", default=str(PRECOMPUTED))
    p.set_defaults(run=cmd_check)
    p = sub.add_parser("build", help="build the lesson site (regenerating c13.json when stale) into site/")
    p.add_argument("--data", default=None, help="use this c13.json as it is (default: precomputed/c13.json, "
                                                 "checked for freshness and regenerated when stale)")
    p.add_argument("--out", default=str(ROOT / "site"), help="where the built site goes: a new or empty folder, "
                                                             "or a site a build made (replaced as a whole)")
    p.add_argument("--models", default=str(MODELS))
    p.add_argument("--precomputed", default=str(PRECOMPUTED))
    p.add_argument("--quiet", action="store_true", help="no progress bar when regenerating")
    p.set_defaults(run=cmd_build)
    p = sub.add_parser("preview", help="serve the lesson on 127.0.0.1 with live reload while docs/, widgets/ or the "
                                        "data's inputs change (regenerating c13.json when stale)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--docs", default=None, help="another folder of page templates (default: docs/)")
    p.add_argument("--models", default=str(MODELS))
    p.add_argument("--precomputed", default=str(PRECOMPUTED))
    p.add_argument("--quiet", action="store_true", help="no progress bar when regenerating")
    p.set_defaults(run=cmd_preview)
    p = sub.add_parser("context", help="list what the page templates can use (variables, helpers, filters, "
                                        "figures) and where each comes from")
    p.add_argument("--data", default=str(PRECOMPUTED / "c13.json"), help="the c13.json to read (as it is)")
    p.add_argument("--json", action="store_true", help="the listing as JSON")
    p.set_defaults(run=cmd_context)
    p = sub.add_parser("serve", help="serve the built site on 127.0.0.1 for offline reading")
    p.add_argument("--site", default=str(ROOT / "site"), help="the built folder")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--prefix", default="/", help="serve under this sub-path, e.g. /course/c13/")
    p.set_defaults(run=cmd_serve)
    args = parser.parse_args(argv)
    try:
        return args.run(args) or 0
    except (InputError, SettingError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
