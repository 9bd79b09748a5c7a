"""The papers' table of the lesson page (## 论文与报告里的数字): one Markdown row per reported figure, from c13.json
→ papers (precomputed/papers.json). A paper's name and setting are written on its first row only (〃 below); a
paper with no figure to cite gets one row pointing at what the page uses it for."""
from markupsafe import Markup, escape

from .formats import as_written, pct, reported_speed
from .templates import section_of


def figure_cell(paper, fig):
    """What a figure says: a range (a rate in percent, or a speedup range), an α with its speedup, or a speedup;
    every speed marked as the authors' own report."""
    work = paper["work"]
    parts = [escape(fig["what_zh"]), "："]
    if "low" in fig and "high" in fig:
        if fig["unit"] == "rate":
            parts.append(f"{pct(fig['low'], 0)}～{pct(fig['high'], 0)}")
        else:
            parts.append(reported_speed({"low": fig["low"], "high": fig["high"]}, work))
    if "alpha" in fig:
        parts.append(f"α = {as_written(fig['alpha'])}，加速 ")
    if "speedup" in fig:
        parts.append(reported_speed(fig, work))
    return Markup("").join(parts)


def papers_rows(papers):
    """The table's body rows, one per line."""
    rows = []
    for paper in papers:
        for i, fig in enumerate(paper["figures"]):
            first = i == 0
            rows.append(Markup("| {} | {} | {} | {} |").format(
                paper["work"] if first else "〃", figure_cell(paper, fig),
                paper["setting_zh"] if first else "〃", fig["where_zh"]))
        if not paper["figures"]:
            setting = Markup("{}；{}").format(paper["setting_zh"], paper["also_zh"]) if "also" in paper \
                else escape(paper["setting_zh"])
            rows.append(Markup("| {} | （没有可引用的数字） | {} | {} |").format(
                paper["work"], setting, section_of(paper["also"]) if "also" in paper else "—"))
    return Markup("\n").join(rows)
