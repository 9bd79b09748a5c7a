"""Every build-time figure of the page, declared once: the name the templates call, the renderer that draws it
(a key of widgets/figures/index.mjs, which the live widgets share) and the data it is drawn from.

To add a figure: write its renderer in a module of widgets/figures/ and register it in that module's `FIGURES`;
declare it here with `@figure`; call it in docs/index.md. `python -m generator context` lists what is declared.

    @figure("svg_tv_curve", "tv_curve", "TV against the number of draws, E2's rerun drawn live from the same module")
    def tv_curve(ctx):
        return {"curve": ctx["tv_curve"], "id": "tv-curve", ...}

A declaration with `each` draws one figure per key it yields, and the template passes the key
(`svg_stacked(prefix, draft)`); one with `when` is drawn only when it holds (the templates check the same
condition before calling it). Every declared figure is drawn in one batch (generator/pages/figures.py).
"""
from dataclasses import dataclass
from typing import Callable

from markupsafe import Markup

from . import figures, pair_presets
from .measured import figure_args, table_caption


@dataclass(frozen=True)
class Figure:
    accessor: str  # what the templates call: svg_… for a picture, html_… for a table or text
    renderer: str  # its key in widgets/figures/index.mjs
    doc: str  # one line: what it shows
    data: Callable  # ctx (and a key of `each`) → the renderer's arguments
    each: Callable | None = None  # ctx → the keys to draw one figure for
    when: Callable | None = None  # ctx → whether to draw it at all
    frame: str = ""  # a class for the page's frame round it (templates.FigureTag)


FIGURES: list[Figure] = []


def figure(accessor, renderer, doc, each=None, when=None, frame=""):
    """Declare a build-time figure (see the module's docstring)."""
    def declare(data):
        if any(f.accessor == accessor for f in FIGURES):
            raise ValueError(f"figure {accessor} is declared twice")
        FIGURES.append(Figure(accessor, renderer, doc, data, each, when, frame))
        return data
    return declare


def _names(ctx):
    return {d: f"{d}（{ctx['roles'][d]}）" for d in ctx["drafts"]}


def _measured(ctx):
    m = ctx["measured"]
    return m is not None and m["usable"]


def stacked_id(ctx, prefix, draft):
    return f"e2-stack-{ctx['prefixes'].index(prefix)}-{ctx['drafts'].index(draft)}"


def _prefix_drafts(ctx):
    return [(prefix, draft) for prefix in ctx["prefixes"] for draft in ctx["drafts"]]


@figure("svg_request_path", "request_path", "E1: one decoding step of the anchor, where its time goes")
def _request_path(ctx):
    return {"anchor": ctx["anchor"], "id": "e1-path"}


@figure("svg_stacked", "stacked", "E2: p and q of a prefix split into overlap, residual and excess",
        each=_prefix_drafts)
def _stacked(ctx, prefix, draft):
    return {"columns": ctx["distributions"][prefix]["columns"][draft], "labels": ctx["labels"], "n": ctx["top_n"],
            "id": stacked_id(ctx, prefix, draft), "prefix": prefix, "draft": draft}


@figure("html_stacked_rows", "stacked_rows", "E2: the stacked picture's numbers as a table", each=_prefix_drafts)
def _stacked_rows(ctx, prefix, draft):
    return {"columns": ctx["distributions"][prefix]["columns"][draft], "labels": ctx["labels"], "n": ctx["top_n"]}


@figure("svg_tensor", "tensor", "E3: the verify forward's tensors, at the anchor's vocabulary and a small one",
        each=lambda ctx: ["real", "small"])
def _tensor(ctx, scale):
    vocab = ctx["anchor"]["vocab_size"] if scale == "real" else ctx["small_vocab"]
    return {"V": vocab, "k": ctx["anchor"]["positions_verified"] - 1, "replay": ctx["replay"], "id": f"e3-{scale}",
            "scale": scale}


@figure("svg_speedup", "speedup", "E5: the lesson's formula, speedup against k for each draft")
def _speedup(ctx):
    return {"accounting": ctx["accounting"], "drafts": ctx["drafts"], "names": _names(ctx), "id": "e5-plot"}


def _alpha_positions(ctx):
    positions = {key: ctx["data"]["alpha_positions"][key]
                 for key in ("prompts", "tokens", "positions_per_prompt", "drafts")}
    return {"alpha_positions": positions, "drafts": ctx["drafts"], "names": _names(ctx), "labels": ctx["labels"],
            "short": {d: ctx["roles"][d][0] for d in ctx["drafts"]}, "id": "alpha-positions"}


figure("svg_alpha_positions", "alpha_positions", "α position by position along the prompts, per draft",
       frame="c13-alpha-fig")(
    _alpha_positions)
figure("html_alpha_positions_table", "alpha_positions_table", "the same α by position, as a table")(_alpha_positions)


@figure("html_replay", "replay_table", "E4: the recorded run, round by round")
def _replay_table(ctx):
    return {"replay": ctx["replay"], "labels": ctx["labels"]}


@figure("html_replay_text", "replay_text", "E4: the recorded run's text, read as one")
def _replay_text(ctx):
    return {"replay": ctx["replay"], "labels": ctx["labels"]}


@figure("svg_tv_curve", "tv_curve", "TV against the number of draws for each scheme, with the noise band")
def _tv_curve(ctx):
    curve = ctx["tv_curve"]
    return {"curve": curve, "p": ctx["distributions"][curve["prefix"]]["p"], "id": "tv-curve"}


@figure("html_tv_curve_table", "tv_curve_table", "the TV curve's numbers, as a table")
def _tv_curve_table(ctx):
    return {"curve": ctx["tv_curve"]}


@figure("html_verify_steps", "verify_steps", "E4: the default round's verify motion, drawn whole (its first state live)")
def _verify_steps(ctx):
    return {"replay": ctx["replay"], "labels": ctx["labels"], "id": "e4-verify"}


@figure("svg_when_faster", "when_faster", "when speculation pays: the small draft's formula speedup against the cost v "
        "of the verifying forward, with the anchor's and the build machine's v")
def _when_faster(ctx):
    acc = ctx["acc_s"]
    k = acc["best_k"]
    machines = [{"label": "锚点（两个下界估出）", "v": ctx["v_anchor"]}]
    for label, timed in (("构建机 PyTorch（v 实测）", ctx["timings"]), ("构建机 WebAssembly（v 实测）", ctx["wasm_timed"])):
        if timed and k in timed["v"]:
            machines.append({"label": label, "v": timed["v"][k]["median"]})
    return {"id": "when-faster-plot", "alpha": acc["alpha"], "c": acc["c"], "k": k, "machines": machines}


@figure("svg_measured_costs", "measured_costs", "the build machine's measured speedups beside the formula's",
        when=_measured)
def _measured_costs(ctx):
    return {"id": "mc-speedup", **figure_args(ctx["measured"], _names(ctx))}


@figure("svg_measured_verify", "measured_verify", "the build machine's measured v(k) against k", when=_measured)
def _measured_verify(ctx):
    m = ctx["measured"]
    v = [{"k": k, **{key: m["v"][k][key] for key in ("median", "q1", "q3")}} for k in m["ks"]]
    return {"id": "mc-verify", "ks": m["ks"], "v": v}


@figure("html_measured_table", "measured_table", "the build machine's timings as a table (also E6's static version)",
        when=_measured)
def _measured_table(ctx):
    return {"caption": table_caption(ctx["measured"]), **figure_args(ctx["measured"], _names(ctx))}


@figure("svg_pair", "stacked", "the editable pair's default preset, split as E2's pictures are",
        each=lambda ctx: [p["id"] for p in ctx["pair_presets"] if p["default"]])
def _pair(ctx, preset):
    # only the default preset is drawn at build time (each picture weighs about 0.8 KB of the gzipped page); the
    # widget draws the others live with the same renderer
    items = ctx["pair_presets"]
    i = next(i for i, item in enumerate(items) if item["id"] == preset)
    return {"columns": items[i]["columns"], "labels": pair_presets.LABELS, "n": len(pair_presets.LABELS),
            "id": pair_presets.stacked_id(i), "title": items[i]["title"]}


def keys(declared, ctx):
    """The keys of one declaration's figures: a tuple of arguments each, () for a figure without `each`."""
    if declared.when is not None and not declared.when(ctx):
        return []
    if declared.each is None:
        return [()]
    return [key if isinstance(key, tuple) else (key,) for key in declared.each(ctx)]


def draw_all(ctx):
    """Every declared figure drawn in one batch: {accessor: function the templates call} (the page frames each with
    its caption by [% figure ACCESSOR(…) %]…[% endfigure %], templates.FigureTag). Calling a figure with a key it
    was not drawn for fails, naming both."""
    wanted = [(f, key) for f in FIGURES for key in keys(f, ctx)]
    requests = [figures.request(f.renderer, **f.data(ctx, *key)) for f, key in wanted]
    drawn = {(f.accessor, key): Markup(m) for (f, key), m in zip(wanted, figures.render(requests))}

    def accessor(name):
        def get(*key):
            if (name, key) not in drawn:
                raise KeyError(f"figure {name}{key if key else '()'} was not drawn for this page")
            return drawn[(name, key)]
        get.__doc__ = next(f.doc for f in FIGURES if f.accessor == name)
        return get

    return {f.accessor: accessor(f.accessor) for f in FIGURES}


def frame(svg, caption, cls=""):
    """The page's frame around a figure: the picture and its caption (the caption is the page's prose)."""
    return Markup('<figure class="c13-fig {}" data-search-exclude>{}<figcaption>{}</figcaption></figure>').format(
        cls, svg, caption)
