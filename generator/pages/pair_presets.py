"""The editable pair's presets (the experiment after E2): six tokens A–F, a target p and a draft q each, and what
widgets/sampler.py says of them — α, Σ p·q, the closed-form TV of resample-from-p and the stacked picture's split.

These pairs are made up to show a case (q = p, nearly disjoint, …), not figures of our models, so they live here
with the page and not in c13.json. The build draws the default preset's picture with the widgets' own renderer
(widgets/figures/stacked.mjs), prints every preset's numbers, and embeds the presets in the page for the live
widget (widgets/pair/), which starts from the default. The numbers come from widgets/sampler.py itself, through
generator/shared_sampler.py, the one loader both stages use: the sampler is the browser's own file, run here in
CPython exactly as Pyodide runs it in the page.
"""
import json

from markupsafe import Markup

from ..shared_sampler import sampler

LABELS = ["A", "B", "C", "D", "E", "F"]
UNIT = 1000  # a pair is stored in thousandths (0.1 % steps): p and q each sum to UNIT
DEFAULT = "sharp"  # the preset the live widget starts from (without a pair in the address)

# (id, the button's name, a sentence on what it shows, p, q) in thousandths
PRESETS = [
    ("same", "q = p", "草稿和目标一模一样：全是绿色，α = 1，每个草稿都被接受，两种“被拒后”的抽法都用不上。",
     [300, 250, 180, 120, 90, 60], [300, 250, 180, 120, 90, 60]),
    ("disjoint", "几乎不相交", "草稿把概率放在目标不要的 token 上：绿色很少，α 很小，几乎每个草稿都被拒。",
     [450, 350, 150, 30, 10, 10], [10, 10, 30, 150, 350, 450]),
    ("flat", "q 平坦",
     "草稿对六个 token 一视同仁：目标偏爱的 A、B、C 上多出蓝色，冷门的 D、E、F 上草稿给多了，是红色。",
     [300, 250, 180, 120, 90, 60], [167, 167, 167, 167, 166, 166]),
    ("sharp", "q 比 p 更尖", "草稿太自信，把 A 给得比目标还多：A 上有红色，其余 token 上都是蓝色。",
     [300, 250, 180, 120, 90, 60], [620, 220, 90, 40, 20, 10]),
    ("q-zero", "q 漏掉 D", "草稿给 D 的概率是 0，目标却不是：D 永远不会被提出，只能靠被拒后从残差里抽出来。",
     [300, 250, 180, 120, 90, 60], [340, 280, 200, 0, 110, 70]),
    ("p-zero", "p 不要 D", "目标给 D 的概率是 0，草稿却常常提出 D：D 被提出时接受概率 min(1, 0/q) = 0，一定被拒。",
     [320, 270, 200, 0, 130, 80], [280, 230, 160, 150, 100, 80]),
]


def columns(sampler, p, q):
    """The stacked picture's split of a six-token pair, every token drawn (no folded rest)."""
    return {"tokens": list(range(len(p))), "p": p, "q": q, "overlap": sampler.overlap(p, q),
            "residual": sampler.residual(p, q), "excess": sampler.residual(q, p), "rest": None}


def presets():
    """Every preset with its sampler.py figures: α, Σ p·q and TV of resample-from-p (the pair as the widget sends
    it to the sampler: thousandths divided by UNIT)."""
    out = []
    for key, name, note, p_units, q_units in PRESETS:
        assert sum(p_units) == UNIT and sum(q_units) == UNIT, key
        p = [v / UNIT for v in p_units]
        q = [v / UNIT for v in q_units]
        pair = sampler.Pair(p, q)
        out.append({"id": key, "name": name, "note": note, "title": picture_title(name), "p_units": p_units,
                    "q_units": q_units,
                    "alpha": pair.alpha, "sum_pq": pair.sum_pq, "tv": sampler.resample_p_tv(pair.p, pair.q),
                    "columns": columns(sampler, p, q)})
    return out


def stacked_id(index):
    return f"pair-stack-{index}"


def picture_title(name):
    return f"可编辑的一对分布（{name}）：目标 p 与草稿 q 叠放，六个 token A–F"


RUN_SIZE = 10_000  # draws of the pair's run: its button and the page's prose both read it


def widget_json(items):
    """What the live widget reads from its section: the labels, the unit, the default, the run's size and the presets
    with their sampler figures (shown while Pyodide is not there). Safe inside <script type="application/json">."""
    keys = ("id", "name", "note", "title", "p_units", "q_units", "alpha", "sum_pq", "tv")
    payload = {"labels": LABELS, "unit": UNIT, "default": DEFAULT, "run_size": RUN_SIZE,
               "presets": [{k: item[k] for k in keys} for item in items]}
    text = json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
