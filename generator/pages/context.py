"""The page templates' context: the raw data plus a few things derived from it (never typed in)."""
from markupsafe import Markup, escape

from . import figures
from .experiments import EXPERIMENT_COUNT, SERVE_COMMAND
from .qa import QA_RECORD, read_qa
from .templates import section_of

TOP_N = 12  # tokens shown one by one in E2's stacked picture; the rest are folded into one column

MD_SPECIAL = set("\\`*_{}[]()#+-.!|<>&$~:^=\"'%")


def md_text(s):
    """Text that neither HTML nor Markdown (nor the math renderer) can read as markup."""
    return "".join(f"&#{ord(ch)};" if ch in MD_SPECIAL else ch for ch in str(s))


def build_context(data):
    models = data["models"]
    T = next(n for n, m in models.items() if m["role"] == "target")
    drafts = sorted((n for n, m in models.items() if m["role"] == "draft"), key=lambda n: models[n]["parameters"])
    S, L = drafts
    labels = data["tokenizer"]["labels"]
    dist = data["distributions"]
    main = data["replay"]["prompt"]
    order = [p["text"] for p in data["prompts"]]
    prefixes = [main] + sorted((p for p in dist if p != main), key=lambda p: order.index(p) if p in order else 99)
    acc = data["accounting"]["drafts"]

    def tok(t):
        label = labels[t] if isinstance(t, int) and not isinstance(t, bool) else str(t)
        return Markup(f'<span class="c13-tok">{md_text(label)}</span>')

    def row(draft, k):
        for r in acc[draft]["rows"]:
            if r["k"] == k:
                return r
        raise KeyError(f"accounting.drafts.{draft}.rows has no k = {k}")

    papers = {p["id"]: p for p in data["papers"]}

    def paper(pid):
        if pid not in papers:
            raise KeyError(f"papers has no entry with id {pid!r}")
        return papers[pid]

    def pfig(pid, what):
        for fig in paper(pid)["figures"]:
            if fig["what"] == what:
                return fig
        raise KeyError(f"papers[{pid}] has no figure {what!r}")

    def deficit(prefix, draft):
        """The token that 'resample from p' under-produces most: p(x) − [min(p, q)(x) + (1 − α)·p(x)]."""
        p, q = dist[prefix]["p"], dist[prefix]["q"][draft]
        a = dist[prefix]["alpha"][draft]
        i = max(range(len(p)), key=lambda j: (a * p[j] - min(p[j], q[j]), -j))
        wrong = min(p[i], q[i]) + (1 - a) * p[i]
        return {"id": i, "p": p[i], "q": q[i], "wrong": wrong, "ratio": wrong / p[i] if p[i] else 0.0}

    rounds = data["replay"]["rounds"]
    k = data["replay"]["k"]
    first_reject = next((i + 1 for i, r in enumerate(rounds) if r["accepted"] == 0), None)
    first_full = next((i + 1 for i, r in enumerate(rounds) if r["accepted"] == k), None)
    rep = {"rounds": len(rounds), "tokens": sum(r["yield"] for r in rounds),
           "bonus": sum(1 for r in rounds if r["kind"] == "bonus"),
           "resampled": sum(1 for r in rounds if r["kind"] == "resampled"),
           "first_reject": first_reject, "first_full": first_full,
           "first_reject_token": rounds[first_reject - 1]["token"] if first_reject else None,
           "first_full_token": rounds[first_full - 1]["token"] if first_full else None}
    rep["per_forward"] = rep["tokens"] / rep["rounds"] if rep["rounds"] else 0.0
    # a round with a rejection after some acceptances, for the mask in E3 (else the first round)
    mask_round = next((r for r in rounds if 0 < r["accepted"] < k), rounds[0] if rounds else None)
    mask = ([True] * mask_round["accepted"] + ([False] if mask_round["accepted"] < k else [])) if mask_round else []
    mask += [None] * (k - len(mask))

    ctx = {
        "data": data, "target": T, "small_draft": S, "large_draft": L, "drafts": drafts, "models": models,
        "labels": labels, "names": {T: "目标", S: "小草稿", L: "大草稿"},
        "main_prefix": prefixes[0], "other_prefix": prefixes[1], "prefixes": prefixes, "distributions": dist,
        "offline": data["offline"]["results"], "accounting": acc, "anchor": data["anchor"], "replay": data["replay"],
        "replay_stats": rep, "mask": mask, "spread": data["alpha_spread"]["drafts"],
        "greedy": data["greedy"], "provenance": data["provenance"], "card": data["card"],
        "tok": tok, "row": row, "section_of": section_of, "paper": paper, "paper_figure": pfig, "deficit": deficit,
        "serve_command": SERVE_COMMAND, "experiment_count": Markup(EXPERIMENT_COUNT),
        "top_n": TOP_N,
    }
    ctx["qa"] = read_qa(QA_RECORD)
    ctx.update(_pictures(ctx))
    return ctx


def _pictures(ctx):
    """Build-time pictures and tables (generator/pages/figures.py), returned as markup for the templates."""
    names = {n: f"{n}（{ctx['names'][n]}）" for n in ctx["drafts"]}

    n_top = ctx["top_n"]

    def stacked(prefix, draft, n=n_top):
        e = ctx["distributions"][prefix]
        uid = f"e2-stack-{ctx['prefixes'].index(prefix)}-{ctx['drafts'].index(draft)}"
        title = f"前缀「{prefix}」处目标 p 与 {draft} 的 q 叠放：前 {n} 个 token 加其余折叠"
        return Markup(figures.stacked(e["p"], e["q"][draft], ctx["labels"], uid, title, n=n))

    def stacked_rows(prefix, draft, n=n_top):
        e = ctx["distributions"][prefix]
        return figures.stacked_rows(e["p"], e["q"][draft], ctx["labels"], n=n)

    def tensor(V, uid, title):
        k = ctx["anchor"]["positions_verified"] - 1
        mask = (ctx["mask"] + [None] * k)[:k]
        return Markup(figures.tensor_shapes(V, k, mask, uid, title))

    return {
        "svg_request_path": lambda: Markup(figures.request_path(ctx["anchor"])),
        "svg_stacked": stacked, "stacked_rows": stacked_rows, "svg_tensor": tensor,
        "svg_speedup": lambda: Markup(figures.speedup_plot({"drafts": ctx["accounting"]}, ctx["drafts"], names)),
        "html_replay": lambda: Markup(figures.replay_table(ctx["replay"], ctx["labels"], ctx["tok"])),
        "html_replay_text": lambda: Markup(figures.replay_text(ctx["replay"], ctx["tok"], ctx["labels"])),
        "figure": lambda svg, caption, cls="": Markup(figures.figure(svg, escape(caption), cls)),
    }
