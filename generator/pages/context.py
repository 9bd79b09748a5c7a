"""The page templates' context: the raw data plus a few things derived from it (never typed in).

The constants that the page and the browser share (the k range, top-N, the small scale of E3, the schemes,
the draft roles) come from c13.json's `constants`; the role labels are defined here once and handed to the
widgets through generator/pages/widget_payload.py. Every build-time figure is drawn by the widgets' figure
modules (generator/pages/figures.py renders them all in one batch when the context is built).
"""
import math

from markupsafe import Markup

from . import figures, pair_presets
from .data_file import data_path
from .experiments import EXPERIMENT_COUNT, SERVE_COMMAND
from .measured import MEASURE_COMMAND, measured_context, measured_requests
from .qa import QA_RECORD, read_qa
from .templates import section_of
from .widget_payload import script_json

ROLE_LABELS = {"target": "目标", "drafts": ["小草稿", "大草稿"]}  # the drafts in the order of constants.drafts

MD_SPECIAL = set("\\`*_{}[]()#+-.!|<>&$~:^=\"'%")


def md_text(text):
    """Text that neither HTML nor Markdown (nor the math renderer) can read as markup."""
    return "".join(f"&#{ord(ch)};" if ch in MD_SPECIAL else ch for ch in str(text))


def role_names(constants):
    """Each model's role label: the target's, then the drafts' in the order of constants.drafts."""
    names = {constants["target"]: ROLE_LABELS["target"]}
    names.update(zip(constants["drafts"], ROLE_LABELS["drafts"]))
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
    """E5's formula for the prose: the best k for α and c over ks, its speedup (1 − α^(k+1)) / ((1 − α)(c·k + 1))
    and the yield; the first of equals, as widgets/figures/speedup.mjs bestK."""
    def speedup(k):
        return sum(alpha ** i for i in range(k + 1)) / (c * k + 1)
    best = max(ks, key=lambda k: (speedup(k), -k))
    return {"k": best, "speedup": speedup(best), "yield": sum(alpha ** i for i in range(best + 1))}


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


def build_context(data):
    constants = data["constants"]
    target = constants["target"]
    small_draft, large_draft = constants["drafts"]
    labels = data["tokenizer"]["labels"]
    accounting = data["accounting"]["drafts"]
    prefixes = _prefixes(data)

    def tok(token):
        label = labels[token] if isinstance(token, int) and not isinstance(token, bool) else str(token)
        return Markup(f'<span class="c13-tok">{md_text(label)}</span>')

    def row(draft, k):
        for entry in accounting[draft]["rows"]:
            if entry["k"] == k:
                return entry
        raise KeyError(f"accounting.drafts.{draft}.rows has no k = {k}")

    papers = {p["id"]: p for p in data["papers"]}

    def paper(paper_id):
        if paper_id not in papers:
            raise KeyError(f"papers has no entry with id {paper_id!r}")
        return papers[paper_id]

    def paper_figure(paper_id, what):
        for fig in paper(paper_id)["figures"]:
            if fig["what"] == what:
                return fig
        raise KeyError(f"papers[{paper_id}] has no figure {what!r}")

    replay = data["replay"]
    ctx = {
        "data": data, "constants": constants, "target": target, "small_draft": small_draft,
        "large_draft": large_draft, "drafts": [small_draft, large_draft], "models": data["models"],
        "labels": labels, "names": role_names(constants),
        "main_prefix": prefixes[0], "other_prefix": prefixes[1], "prefixes": prefixes,
        "distributions": data["distributions"], "offline": data["offline"]["results"], "accounting": accounting,
        "anchor": data["anchor"], "replay": replay, "replay_stats": replay_summary(replay),
        "spread": data["alpha_spread"]["drafts"], "greedy": data["greedy"], "provenance": data["provenance"],
        "card": data["card"], "tok": tok, "row": row, "section_of": section_of, "paper": paper,
        "paper_figure": paper_figure, "serve_command": SERVE_COMMAND,
        "experiment_count": Markup(EXPERIMENT_COUNT),
        "top_n": constants["top_n"], "small_vocab": constants["small_vocab"],
        "e5_best": lambda alpha, c: e5_best(alpha, c, constants["ks"]),
    }
    ctx["qa"] = read_qa(QA_RECORD)
    # TV against the number of draws (generator/data/tv_curve.py): the offline points, also for the live rerun
    ctx["tv_curve"] = data["tv_curve"]
    ctx["tv_json"] = Markup(script_json(data["tv_curve"]))
    ctx["tv_means"] = tv_means(data["tv_curve"])
    # the editable pair's presets (made-up six-token pairs, not model figures) with sampler.py's α and TV
    ctx["pair_presets"] = pair_presets.presets()
    ctx["pair_default"] = next(p for p in ctx["pair_presets"] if p["id"] == pair_presets.DEFAULT)
    ctx["pair_json"] = pair_presets.widget_json(ctx["pair_presets"])
    # the build machine's timings, optional (generator/pages/measured.py): next to the c13.json being built
    ctx["measured"], ctx["measure_command"] = measured_context(data, data_path()), MEASURE_COMMAND
    ctx.update(_pictures(ctx))
    if ctx["measured"] and ctx["measured"]["usable"]:
        ctx["measured_table"] = ctx["html_measured_table"]  # also E6's static version (defined only when drawn)
    return ctx


def stacked_id(ctx, prefix, draft):
    return f"e2-stack-{ctx['prefixes'].index(prefix)}-{ctx['drafts'].index(draft)}"


def figure_requests(ctx):
    """Every figure the templates can ask for, by a key: (key, request for widgets/figures)."""
    labels, n = ctx["labels"], ctx["top_n"]
    k = ctx["anchor"]["positions_verified"] - 1
    out = [("request_path", figures.request("request_path", anchor=ctx["anchor"], id="e1-path"))]
    for prefix in ctx["prefixes"]:
        entry = ctx["distributions"][prefix]
        for draft in ctx["drafts"]:
            columns = entry["columns"][draft]
            out.append((("stacked", prefix, draft), figures.request(
                "stacked", columns=columns, labels=labels, n=n, id=stacked_id(ctx, prefix, draft),
                prefix=prefix, draft=draft)))
            out.append((("stacked_rows", prefix, draft), figures.request(
                "stacked_rows", columns=columns, labels=labels, n=n)))
    for scale, vocab in (("real", ctx["anchor"]["vocab_size"]), ("small", ctx["small_vocab"])):
        out.append((("tensor", scale), figures.request("tensor", V=vocab, k=k, replay=ctx["replay"],
                                                       id=f"e3-{scale}", scale=scale)))
    names = {d: f"{d}（{ctx['names'][d]}）" for d in ctx["drafts"]}
    out.append(("speedup", figures.request("speedup", accounting=ctx["accounting"], drafts=ctx["drafts"],
                                           names=names, id="e5-plot")))
    spread = {key: ctx["data"]["alpha_spread"][key] for key in ("prompts", "tokens", "positions_per_prompt", "drafts")}
    for name in ("alpha_positions", "alpha_positions_table"):
        out.append((name, figures.request(name, spread=spread, drafts=ctx["drafts"], names=names, labels=labels,
                                          short={d: ctx["names"][d][0] for d in ctx["drafts"]}, id="alpha-positions")))
    out.append(("replay_table", figures.request("replay_table", replay=ctx["replay"], labels=labels)))
    out.append(("replay_text", figures.request("replay_text", replay=ctx["replay"], labels=labels)))
    curve = ctx["tv_curve"]
    out.append(("tv_curve", figures.request("tv_curve", curve=curve, p=ctx["distributions"][curve["prefix"]]["p"],
                                            id="tv-curve")))
    out.append(("tv_curve_table", figures.request("tv_curve_table", curve=curve)))
    # E4's verify step in motion: the build draws its whole default round, the live widget's first state
    out.append(("verify_steps", figures.request("verify_steps", replay=ctx["replay"], labels=labels, id="e4-verify")))
    out.extend(measured_requests(ctx["measured"], names))
    out.extend(pair_presets.figure_requests(figures, ctx["pair_presets"]))
    return out


def _pictures(ctx):
    """The build-time figures as markup for the templates, drawn in one batch."""
    wanted = figure_requests(ctx)
    drawn = dict(zip((key for key, _ in wanted), (Markup(m) for m in figures.render([r for _, r in wanted]))))

    def figure(svg, caption, cls=""):
        """The page's frame around a figure: the picture and its caption (the caption is template text)."""
        return Markup('<figure class="c13-fig {}" data-search-exclude>{}<figcaption>{}</figcaption></figure>').format(
            cls, svg, caption)

    return {
        "svg_request_path": lambda: drawn["request_path"],
        "svg_stacked": lambda prefix, draft: drawn[("stacked", prefix, draft)],
        "html_stacked_rows": lambda prefix, draft: drawn[("stacked_rows", prefix, draft)],
        "svg_tensor": lambda scale: drawn[("tensor", scale)],
        "svg_speedup": lambda: drawn["speedup"],
        "svg_alpha_positions": lambda: drawn["alpha_positions"],
        "html_alpha_positions_table": lambda: drawn["alpha_positions_table"],
        "html_replay": lambda: drawn["replay_table"],
        "html_replay_text": lambda: drawn["replay_text"],
        "svg_tv_curve": lambda: drawn["tv_curve"],
        "html_tv_curve_table": lambda: drawn["tv_curve_table"],
        "html_verify_steps": lambda: drawn["verify_steps"],
        # the measured costs (only when ctx["measured"] is usable; the templates check it first)
        "svg_measured_costs": lambda: drawn["measured_costs"],
        "svg_measured_verify": lambda: drawn["measured_verify"],
        "html_measured_table": lambda: drawn["measured_table"],
        "svg_pair": lambda preset: drawn[("pair", preset)],
        "figure": figure,
    }
