"""The page templates' context: the raw data plus a few things derived from it (never typed in).

The constants that the page and the browser share (the k range, top-N, the small scale of E3, the schemes,
the draft roles) come from c13.json's `constants`; the role labels are defined here once and handed to the
widgets through generator/pages/widget_payload.py. Every build-time figure is drawn by the widgets' figure
modules (generator/pages/figures.py renders them all in one batch when the context is built).
"""
import math

from markupsafe import Markup

from .. import speedup
from . import blanks, claims, figure_table, lesson_values, pair_presets
from .data_file import data_path
from .experiments import EXPERIMENT_COUNT, SERVE_COMMAND
from .measured import MEASURE_COMMAND, measured_context
from .qa import QA_RECORD, read_qa
from .templates import Live, md_text, section_of
from .widget_payload import script_json

ROLE_LABELS = {"target": "目标", "drafts": ["小草稿", "大草稿"]}  # the drafts by size, smallest first

def drafts_by_size(data):
    """The drafts from the smallest to the largest by their parameter counts (c13.json → models), whatever the
    order of constants.drafts."""
    return sorted(data["constants"]["drafts"], key=lambda name: data["models"][name]["parameters"])


def role_names(data):
    """Each model's role label: the target's, then the drafts' by size (小草稿 the one with fewer parameters)."""
    names = {data["constants"]["target"]: ROLE_LABELS["target"]}
    names.update(zip(drafts_by_size(data), ROLE_LABELS["drafts"]))
    return names


def replay_summary(replay):
    """Totals of the recorded run and the first round of each kind, for the prose around E4."""
    rounds, k = replay["rounds"], replay["k"]
    first_reject = next((i + 1 for i, r in enumerate(rounds) if r["accepted"] == 0), None)
    first_full = next((i + 1 for i, r in enumerate(rounds) if r["accepted"] == k), None)
    summary = {"rounds": len(rounds), "tokens": sum(r["yield"] for r in rounds),
               "bonus": sum(1 for r in rounds if r["kind"] == "bonus"),
               "resampled": sum(1 for r in rounds if r["kind"] == "resampled"),
               "first_reject": first_reject, "first_full": first_full,
               "first_reject_token": rounds[first_reject - 1]["token"] if first_reject else None,
               "first_full_token": rounds[first_full - 1]["token"] if first_full else None}
    summary["per_forward"] = summary["tokens"] / summary["rounds"] if summary["rounds"] else 0.0
    return summary


def e5_best(alpha, c, ks):
    """E5's formula for the prose: the best k for α and c over ks (the first of equals), its speedup and yield,
    from generator/speedup.py (the twin of widgets/figures/speedup.mjs)."""
    best = speedup.best_k(alpha, c, ks)
    return {"k": best, "speedup": speedup.speedup(alpha, c, best), "yield": speedup.expected_yield(alpha, best)}


def tv_means(curve):
    """Per scheme, the geometric mean over the seeds of the TV at each n of the curve (the line the figure draws
    through the points, widgets/figures/tv_curve.mjs geoMean)."""
    return {scheme: [math.exp(sum(math.log(seed[i]) for seed in runs) / len(runs)) for i in range(len(curve["ns"]))]
            for scheme, runs in curve["tv"].items()}


def _prefixes(data):
    main = data["replay"]["prompt"]
    order = [p["text"] for p in data["prompts"]]
    others = sorted((p for p in data["distributions"] if p != main),
                    key=lambda p: order.index(p) if p in order else len(order))
    return [main] + others


def lookups(data):
    """The templates' functions over the data: tok, row, paper, paper_figure and e5_best."""
    labels = data["tokenizer"]["labels"]
    accounting = data["accounting"]["drafts"]
    papers = {p["id"]: p for p in data["papers"]}

    def tok(token):
        """A token (its id, or a label) in its box, as the page shows tokens."""
        label = labels[token] if isinstance(token, int) and not isinstance(token, bool) else str(token)
        return Markup(f'<span class="c13-tok">{md_text(label)}</span>')

    def row(draft, k):
        """The accounting's row of a draft at k (c13.json → accounting → drafts → DRAFT → rows)."""
        for entry in accounting[draft]["rows"]:
            if entry["k"] == k:
                return entry
        raise KeyError(f"accounting.drafts.{draft}.rows has no k = {k}")

    def best_k(alpha, c):
        """E5's best k for α and c over the lesson's ks, its speedup and yield (e5_best)."""
        return e5_best(alpha, c, data["constants"]["ks"])

    def paper(paper_id):
        """A paper of c13.json → papers by its id."""
        if paper_id not in papers:
            raise KeyError(f"papers has no entry with id {paper_id!r}")
        return papers[paper_id]

    def paper_figure(paper_id, what):
        """One reported figure of a paper, by what it measures."""
        for fig in paper(paper_id)["figures"]:
            if fig["what"] == what:
                return fig
        raise KeyError(f"papers[{paper_id}] has no figure {what!r}")

    return {"tok": tok, "row": row, "paper": paper, "paper_figure": paper_figure, "e5_best": best_k}


def build_context(data, origins=None):
    """The templates' context from c13.json's data. origins, when given, receives for each key where it comes from
    (`python -m generator context` lists them, generator/pages/context_info.py)."""
    origins = {} if origins is None else origins
    constants = data["constants"]
    target = constants["target"]
    small_draft, large_draft = drafts_by_size(data)
    labels = data["tokenizer"]["labels"]
    accounting = data["accounting"]["drafts"]
    prefixes = _prefixes(data)
    replay = data["replay"]
    ctx = {
        "data": data, "constants": constants, "target": target, "small_draft": small_draft,
        "large_draft": large_draft, "drafts": [small_draft, large_draft], "models": data["models"],
        "labels": labels, "roles": role_names(data),
        "main_prefix": prefixes[0], "other_prefix": prefixes[1], "prefixes": prefixes,
        "distributions": data["distributions"], "offline": data["offline"]["results"], "accounting": accounting,
        "anchor": data["anchor"], "replay": replay, "replay_stats": replay_summary(replay),
        "alpha_positions": data["alpha_positions"]["drafts"], "greedy": data["greedy"],
        "provenance": data["provenance"],
        "card": data["card"], "section_of": section_of, "serve_command": SERVE_COMMAND,
        "experiment_count": Markup(EXPERIMENT_COUNT),
        "top_n": constants["top_n"], "small_vocab": constants["small_vocab"],
        "run": Live(),  # E6's figures of the reader's run, filled in the browser (templates.Live)
        **lookups(data),
    }

    def mark(where):
        for key in ctx:
            origins.setdefault(key, where)

    mark("generator/pages/context.py build_context")
    ctx["qa"] = read_qa(QA_RECORD)
    mark("generator/pages/qa.py read_qa: docs/qa/C13-L3.md")
    # TV against the number of draws (generator/data/tv_curve.py): the offline points, also for the live rerun
    ctx["tv_curve"] = data["tv_curve"]
    ctx["tv_json"] = Markup(script_json(data["tv_curve"]))
    ctx["tv_means"] = tv_means(data["tv_curve"])
    mark("generator/pages/context.py build_context: c13.json → tv_curve")
    # the editable pair's presets (made-up six-token pairs, not model figures) with sampler.py's α and TV
    ctx["pair_presets"] = pair_presets.presets()
    ctx["pair_default"] = next(p for p in ctx["pair_presets"] if p["default"])
    ctx["pair_json"] = pair_presets.widget_json(ctx["pair_presets"])
    ctx["pair_run_size"] = pair_presets.RUN_SIZE
    mark("generator/pages/pair_presets.py: made-up pairs, their figures from widgets/sampler.py")
    # the build machine's timings, optional (generator/pages/measured.py): next to the c13.json being built
    ctx["measured"], ctx["measure_command"] = measured_context(data, data_path()), MEASURE_COMMAND
    mark("generator/pages/measured.py measured_context: precomputed/measured.json")
    claims.register(ctx, data)  # the page's comparisons and conclusions, decided from the data (claims.py)
    mark("generator/pages/claims.py register")
    named = lesson_values.values(ctx)  # the named values the page reads (replay_k, row_s, timings, ...)
    ctx.update(named)
    origins.update({key: f"generator/pages/lesson_values.py: {lesson_values.ABOUT[key]}" for key in named})
    ctx.update(figure_table.draw_all(ctx))  # every build-time figure, declared in figure_table.py
    mark("generator/pages/figure_table.py")
    named = blanks.values(ctx)  # the page's blanks under short names (read_ms, naive_small, ...)
    clash = sorted(set(named) & set(ctx))
    if clash:
        raise KeyError(f"generator/pages/blanks.py: {', '.join(clash)} already name(s) in the context")
    ctx.update(named)
    origins.update({key: f"generator/pages/blanks.py: {about} (= {expr})"
                    for key, (expr, about) in blanks.BLANKS.items()})
    if ctx["measured"] and ctx["measured"]["usable"]:
        ctx["measured_table"] = ctx["html_measured_table"]  # also E6's static version (defined only when drawn)
    mark("generator/pages/context.py build_context")
    return ctx


