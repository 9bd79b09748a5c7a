"""The site's named number formats and its build-time pictures (hand-written SVG and HTML strings).

Formats: every figure printed on the site goes through one of the functions in FORMATS, so a
percentage, a speedup or a count looks the same everywhere. Pictures: each returns one line of
HTML (a <figure> with an inline <svg>, or a <table>), ready to sit in Markdown as a raw block.
They use CSS classes (widgets/c13.css) and `currentColor`, never fixed text colours, so they read
in the light and the dark palette; the three parts of a distribution also differ by pattern.
Token labels come from the corpus: they are always escaped here, never trusted as markup.
"""
import html
import math
import re
import unicodedata

# ---------------------------------------------------------------------------------------------
# Number formats (registered as Jinja filters by generator/pages/hooks.py)
# ---------------------------------------------------------------------------------------------


def _number(v, what):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ValueError(f"{what}: expected a finite number, got {v!r}")
    return v


def pct(v, digits=1):
    """A fraction as a percentage: 0.5672 → '56.7%'."""
    return f"{_number(v, 'pct') * 100:.{digits}f}%"


def x(v, digits=2):
    """Our speedup or yield ratio: 1.5 → '1.50×'."""
    return f"{_number(v, 'x'):.{digits}f}×"


def xr(v):
    """A ratio as its source reported it (no digits added): 3.4 → '3.4×'."""
    return f"{_number(v, 'xr'):g}×"


def g(v):
    """A number as its source wrote it: 2.0 → '2', 0.85 → '0.85'."""
    return f"{_number(v, 'g'):g}"


def num(v, digits=0):
    """Thousands separators: 3688704 → '3,688,704'."""
    v = _number(v, "num")
    if digits == 0 and float(v) != round(v):
        raise ValueError(f"num: {v!r} is not a whole number; give digits")
    return f"{v:,.{digits}f}"


def f(v, digits=2):
    return f"{_number(v, 'f'):.{digits}f}"


def f2(v):
    return f(v, 2)


def f3(v):
    return f(v, 3)


def f4(v):
    return f(v, 4)


def sig(v, digits=2):
    """Fixed decimals showing `digits` significant digits: 0.05183 → '0.052', 0.2591 → '0.26', 15.3 → '15.30'."""
    v = _number(v, "sig")
    if v == 0:
        return "0"
    if abs(v) >= 1:
        return f"{v:.2f}"
    decimals = digits - 1 - math.floor(math.log10(abs(v)))
    return f"{v:.{decimals}f}"


def prob(v):
    """A probability, readable when small: 0.1234 → '12.3%', 0.0015 → '0.15%', 0.000042 → '0.0042%'."""
    v = _number(v, "prob")
    if v >= 0.01 or v == 0:
        return f"{v * 100:.1f}%"
    return f"{sig(v * 100)}%"


def ms(v):
    """Milliseconds: 0.05183 → '0.052 ms', 15.3015 → '15.30 ms'."""
    return f"{sig(v)} ms"


def frac(v):
    """A ratio below 1 as '≈ 1/n': 0.0901 → '≈ 1/11', 0.289 → '≈ 1/3.5'."""
    v = _number(v, "frac")
    if not 0 < v <= 1:
        raise ValueError(f"frac: expected a ratio in (0, 1], got {v!r}")
    n = 1 / v
    text = f"{round(n)}" if n >= 10 else f"{n:.1f}".removesuffix(".0")
    return f"≈ 1/{text}"


def gb(v):
    """Bytes in decimal gigabytes: 51260000000 → '51.26 GB'."""
    return f"{_number(v, 'gb') / 1e9:.2f} GB"


def gflop(v):
    return f"{_number(v, 'gflop') / 1e9:.2f} GFLOP"


def yi(v):
    """A large count in Chinese units: 25630000000 → '256.3 亿', 332352 → '33.2 万'."""
    v = _number(v, "yi")
    if abs(v) >= 1e8:
        return f"{v / 1e8:.4g} 亿"
    if abs(v) >= 1e4:
        return f"{v / 1e4:.3g} 万"
    return num(v)


def mb(v):
    return f"{_number(v, 'mb'):.0f} MB"


def mib(v):
    return f"{_number(v, 'mib'):.0f} MiB"


def short(h, n=12):
    """The first characters of a sha256, enough to tell versions apart."""
    if not isinstance(h, str) or len(h) < n:
        raise ValueError(f"short: expected a hash string, got {h!r}")
    return h[:n]


FORMATS = {"pct": pct, "prob": prob, "times": x, "times_as_reported": xr, "as_written": g, "num": num, "fixed": f,
           "fixed2": f2, "fixed3": f3, "fixed4": f4,
           "sig": sig, "ms": ms, "frac": frac, "gb": gb, "gflop": gflop, "chinese_units": yi, "mb": mb,
           "mib": mib, "short": short}

# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def esc(s):
    return html.escape(str(s), quote=True)


def _attrs(**kw):
    return "".join(f' {k.rstrip("_").replace("_", "-")}="{esc(v)}"' for k, v in kw.items() if v is not None)


def _n(v):
    """A coordinate with at most one decimal and no trailing '.0'."""
    return f"{v:.1f}".removesuffix(".0")


def _text(x0, y0, s, cls="", anchor="middle", size=None, **kw):
    classes = " ".join(c for c in (cls, f"c13-fs{round(size)}" if size else "") if c)
    anchor_attr = "" if anchor == "start" else f' text-anchor="{anchor}"'
    return f'<text x="{_n(x0)}" y="{_n(y0)}"{anchor_attr}{_attrs(class_=classes or None, **kw)}>{esc(s)}</text>'


def _rect(x0, y0, w, h, cls, rx=0, **kw):
    return (f'<rect x="{_n(x0)}" y="{_n(y0)}" width="{_n(max(w, 0))}" height="{_n(max(h, 0))}"'
            f'{_attrs(rx=rx or None, class_=cls, **kw)}/>')


def _line(x1, y1, x2, y2, cls, **kw):
    return f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}"{_attrs(class_=cls, **kw)}/>'


def _svg(uid, width, height, title, body, desc=None):
    d = f'<desc id="{uid}-d">{esc(desc)}</desc>' if desc else ""
    labelled = f"{uid}-t" + (f" {uid}-d" if desc else "")
    return (f'<svg class="c13-svg" id="{uid}" viewBox="0 0 {width} {height}" style="max-width:{width}px" '
            f'role="img" aria-labelledby="{labelled}" xmlns="http://www.w3.org/2000/svg">'
            f'<title id="{uid}-t">{esc(title)}</title>{d}{body}</svg>')


def figure(svg, caption, cls="", data=None):
    extra = "".join(f' data-{k}="{esc(v)}"' for k, v in (data or {}).items())
    return (f'<figure class="c13-fig {cls}" data-search-exclude{extra}>{svg}'
            f'<figcaption>{caption}</figcaption></figure>')


def _patterns(uid):
    """Fills that differ by texture as well as colour: shared solid, residual striped, excess cross-hatched."""
    return (
        "<defs>"
        f'<pattern id="{uid}-resid" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
        '<rect width="6" height="6" class="c13-resid"/><line x1="0" y1="0" x2="0" y2="6" class="c13-stripe"/></pattern>'
        f'<pattern id="{uid}-excess" width="6" height="6" patternUnits="userSpaceOnUse">'
        '<rect width="6" height="6" class="c13-excess"/><path d="M0 0L6 6M6 0L0 6" class="c13-stripe"/></pattern>'
        f'<pattern id="{uid}-mask" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)">'
        '<line x1="0" y1="0" x2="0" y2="5" class="c13-hatch"/></pattern>'
        f'<linearGradient id="{uid}-score" x1="0" x2="1" y1="0" y2="0">'
        '<stop offset="0" class="c13-score-a"/><stop offset="1" class="c13-score-b"/></linearGradient>'
        f'<marker id="{uid}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
        '<path d="M0 0L10 5L0 10z" class="c13-arrowhead"/></marker>'
        "</defs>")


def _clip(label, n=4):
    return label if len(label) <= n else label[: n - 1] + "…"


# ---------------------------------------------------------------------------------------------
# E1 · the request path of one decode step, with the anchor's figures
# ---------------------------------------------------------------------------------------------


def request_path(anchor, uid="e1-path"):
    a = anchor
    k1 = a["positions_verified"]
    W, H = 860, 280
    parts = [_patterns(uid)]
    arrow = f"url(#{uid}-arrow)"

    def box(x0, y0, w, h, cell, lines, cls="c13-box"):
        out = [f'<g class="c13-cell" data-cell="{cell}">', _rect(x0, y0, w, h, cls, rx=6)]
        for i, (s, c) in enumerate(lines):
            out.append(_text(x0 + w / 2, y0 + 20 + 17 * i, s, c, size=13 if i == 0 else 11))
        out.append("</g>")
        return "".join(out)

    def link(x1, y1, x2, y2, cls="c13-edge"):
        return _line(x1, y1, x2, y2, cls, marker_end=arrow)

    y = 100
    parts.append(box(10, y - 4, 80, 66, "tokenize", [("分词", "c13-strong"), ("文字 → id", "")]))
    parts.append(link(90, y + 29, 112, y + 29))
    parts.append(box(114, y - 4, 100, 66, "prefill", [("预填充", "c13-strong"), ("整段提示词", ""), ("一次前向", "")]))
    parts.append(link(214, y + 29, 238, y + 29))
    # the decode loop
    parts.append(_rect(240, 44, 500, 150, "c13-loop", rx=10))
    parts.append(_text(252, 64, "解码循环：每一步只产出一个 token", "c13-strong", anchor="start", size=12))
    cells = [
        ("read", "读全部权重", [gb(a["bytes_read_per_token"]), f"≥ {ms(a['weight_read_ms_per_token'])}"]),
        ("compute", "计算", [f"{gflop(a['flops_per_position'])}/位置", f"≥ {ms(a['compute_ms_per_token'])}",
                             f"{k1} 个位置 ≥ {ms(a['compute_ms_for_positions'])}"]),
        ("sample", "采样", ["按分布抽一个", "token"]),
        ("append", "追加", ["接到序列末尾", "进入下一步"]),
    ]
    x0, centre = 252, {}
    for i, (cell, name, lines) in enumerate(cells):
        w = 128 if cell == "compute" else 112
        parts.append(box(x0, y - 20, w, 82, cell, [(name, "c13-strong")] + [(s, "") for s in lines]))
        centre[cell] = x0 + w / 2
        if i < len(cells) - 1:
            parts.append(link(x0 + w, y + 21, x0 + w + 10, y + 21))
        x0 += w + 10
    # loop back from append to read
    parts.append(f'<path d="M{centre["append"]:.0f} {y + 62} V{y + 84} H{centre["read"]:.0f} V{y + 62}" '
                 f'class="c13-edge" fill="none" marker-end="{arrow}"/>')
    parts.append(_text((centre["read"] + centre["append"]) / 2, y + 80, "下一个 token", "", size=11))
    parts.append(link(740, y + 29, 764, y + 29))
    parts.append(box(766, y - 4, 84, 66, "detokenize", [("还原文字", "c13-strong"), ("id → 文字", "")]))
    # side paths
    parts.append(box(300, 226, 320, 44, "kv", [("KV 缓存（旁路）", "c13-strong"),
                                               ("预填充写入；每步读取，并追加新位置", "")], cls="c13-box c13-side"))
    parts.append(_line(164, y + 62, 300, 248, "c13-edge c13-dashed"))
    parts.append(_line(centre["compute"], 194, centre["compute"], 226, "c13-edge c13-dashed"))
    parts.append(box(centre["sample"] - 75, 4, 150, 34, "params", [("采样参数（旁路）", "c13-strong")],
                     cls="c13-box c13-side"))
    parts.append(_line(centre["sample"], 38, centre["sample"], y - 20, "c13-edge c13-dashed"))
    title = f"一次请求在服务器上的路径，格子里是锚点模型 {a['model']} 在 {a['hardware']} 上批量 1 时的下界"
    return _svg(uid, W, H, title, "".join(parts))


# ---------------------------------------------------------------------------------------------
# E2 · the stacked picture: green min(p, q) + blue (p − q)⁺ = p, red (q − p)⁺
# ---------------------------------------------------------------------------------------------


def top_tokens(p, q, n):
    order = sorted(range(len(p)), key=lambda i: (-max(p[i], q[i]), i))
    return order[:n]


def stacked(p, q, labels, uid, title, n=12):
    ids = top_tokens(p, q, n)
    rest = [i for i in range(len(p)) if i not in set(ids)]
    cols = [(labels[i], p[i], q[i], min(p[i], q[i]), max(0.0, p[i] - q[i]), max(0.0, q[i] - p[i]), i) for i in ids]
    others = ("其余",
              math.fsum(p[i] for i in rest), math.fsum(q[i] for i in rest),
              math.fsum(min(p[i], q[i]) for i in rest),
              math.fsum(max(0.0, p[i] - q[i]) for i in rest),
              math.fsum(max(0.0, q[i] - p[i]) for i in rest), None)
    colw, left, top, plot_h = 54, 60, 70, 170
    W = left + colw * (len(cols) + 1) + 20
    H = top + plot_h + 62
    ymax = max(max(c[1], c[2]) for c in cols) or 1.0
    step = _nice_step(ymax / 4)
    ymax = step * math.ceil(ymax / step)
    sy = plot_h / ymax
    base = top + plot_h
    parts = [_patterns(uid)]
    # legend
    legend = [("c13-shared", None, "min(p, q)：两边共有"), (None, "resid", "p − q（p 更大处）"),
              (None, "excess", "q − p（草稿多给处）")]
    lx = left
    for cls, pat, text in legend:
        fill = f"url(#{uid}-{pat})" if pat else None
        parts.append(_rect(lx, 10, 16, 12, cls or "c13-swatch", fill=fill))
        parts.append(_text(lx + 22, 21, text, "", anchor="start", size=12))
        lx += 34 + 12 * len(text)
    parts.append(f'<rect x="{lx:.1f}" y="10" width="16" height="12" class="c13-p-outline"/>')
    parts.append(_text(lx + 22, 21, "虚线框 = p", "", anchor="start", size=12))
    parts.append(_text(left, 44, "绿 + 蓝 = p；绿 + 红 = q", "c13-muted", anchor="start", size=11))
    # axis
    t = 0.0
    while t <= ymax + 1e-12:
        yy = base - t * sy
        parts.append(_line(left - 4, yy, W - 16, yy, "c13-grid"))
        decimals = max(0, -math.floor(math.log10(step * 100) + 1e-9))
        parts.append(_text(left - 8, yy + 4, pct(t, decimals), "c13-muted", anchor="end", size=11))
        t += step
    for j, (label, pv, qv, mn, resid, excess, tid) in enumerate(cols + [others]):
        cx = left + colw * j + 12
        bw = colw - 22
        clipped = max(pv, qv) > ymax
        hs = [mn * sy, resid * sy, excess * sy]
        if clipped:  # the folded column can be much taller than the rest: cut it, and write its value
            scale = (plot_h - 6) / (max(pv, qv) * sy)
            hs = [h * scale for h in hs]
        name = label if tid is not None else f"其余 {len(rest):,} 个 token"
        tip = f"{name}：p = {prob(pv)}，q = {prob(qv)}，min(p, q) = {prob(mn)}"
        parts.append(f'<g class="c13-col"{_attrs(data_token=tid)}><title>{esc(tip)}</title>')
        yy = base - hs[0]
        parts.append(_rect(cx, yy, bw, hs[0], "c13-shared"))
        if hs[1] > 0:
            parts.append(_rect(cx, yy - hs[1], bw, hs[1], "c13-resid-bar", fill=f"url(#{uid}-resid)"))
        if hs[2] > 0:
            parts.append(_rect(cx, yy - hs[1] - hs[2], bw, hs[2], "c13-excess-bar", fill=f"url(#{uid}-excess)"))
        parts.append(f'<rect x="{cx - 2:.1f}" y="{base - hs[0] - hs[1]:.1f}" width="{bw + 4:.1f}" '
                     f'height="{hs[0] + hs[1]:.1f}" class="c13-p-outline"/>')
        if clipped:
            parts.append(_text(cx + bw / 2, top - 4, "（截断）", "c13-muted", size=10))
        parts.append("</g>")
        parts.append(_text(cx + bw / 2, base + 16, _clip(label), "c13-tok-label", size=13 if tid is not None else 11))
        parts.append(_text(cx + bw / 2, base + 32, f"p {prob(pv)}", "", size=10))
        parts.append(_text(cx + bw / 2, base + 46, f"q {prob(qv)}", "c13-muted", size=10))
    parts.append(_line(left - 4, base, W - 16, base, "c13-axis"))
    return _svg(uid, W, H, title, "".join(parts),
                desc="每一列是一个 token：绿色是 min(p, q)，条纹蓝色是 p 超出 q 的部分，交叉线红色是 q 超出 p 的部分，虚线框的高度是 p。")


def _nice_step(v):
    if v <= 0:
        return 1.0
    e = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if m * e >= v:
            return m * e
    return 10 * e


def stacked_rows(p, q, labels, n=12):
    """The numbers behind the stacked picture, for a table: (id, label, p, q, min, p−q⁺, q−p⁺)."""
    return [(i, labels[i], p[i], q[i], min(p[i], q[i]), max(0.0, p[i] - q[i]), max(0.0, q[i] - p[i]))
            for i in top_tokens(p, q, n)]


# ---------------------------------------------------------------------------------------------
# E3 · one target forward verifies k draft tokens: tensor shapes, log-scaled edges
# ---------------------------------------------------------------------------------------------


def edge(n):
    """Length of an edge of n elements: log-scaled, the same n gives the same length everywhere."""
    return 20.0 * (1 + math.log2(n))


def tensor_shapes(V, k, mask, uid, title):
    """P (k+1 × V) and Q (k × V) are scores; x (inputs, drafts) are indices; accept is a mask.

    mask: k entries of True (accepted), False (rejected) or None (not read after a rejection).
    """
    k1 = k + 1
    eV, ek1, ek, slot = edge(V), edge(k1), edge(k), 26.0
    x_in, x_p = 20, 150
    span = max(eV, 250.0)  # room for the block titles when V is small
    W = x_p + span + 150
    y_p = 70
    y_q = y_p + ek1 + 66
    H = y_q + ek + 84
    parts = [_patterns(uid)]
    arrow = f"url(#{uid}-arrow)"

    def slots(x0, y0, n, names, cls="c13-index"):
        h = edge(n) / n
        out = []
        for i in range(n):
            out.append(_rect(x0, y0 + i * h, slot, h, cls))
            if h >= 9:
                out.append(_text(x0 + slot / 2, y0 + i * h + h / 2 + 4, names[i], "", size=min(11, h - 1)))
        return "".join(out)

    def grid(x0, y0, w, h, rows, cols):
        out = [_rect(x0, y0, w, h, "c13-score", fill=f"url(#{uid}-score)")]
        if cols <= 32:
            for c in range(1, cols):
                out.append(_line(x0 + w * c / cols, y0, x0 + w * c / cols, y0 + h, "c13-cellline"))
        for r in range(1, rows):
            out.append(_line(x0, y0 + h * r / rows, x0 + w, y0 + h * r / rows, "c13-cellline"))
        return "".join(out)

    # inputs: the last accepted token and the k drafted ones, one target forward over all k + 1
    parts.append(_text(x_in + slot / 2, y_p - 30, "输入 x", "c13-strong", size=12))
    parts.append(_text(x_in + slot / 2, y_p - 14, "索引", "c13-muted", size=11))
    parts.append(slots(x_in, y_p, k1, ["x₀"] + [f"x{_sub(i)}" for i in range(1, k1)]))
    parts.append(_edge_label(x_in - 6, y_p, y_p + ek1, f"k+1 = {k1}", vertical=True))
    parts.append(_line(x_in + slot + 6, y_p + ek1 / 2, x_p - 8, y_p + ek1 / 2, "c13-edge", marker_end=arrow))
    parts.append(_text((x_in + slot + x_p) / 2, y_p + ek1 / 2 - 8, "f_target ÷ T", "", size=11))
    parts.append(_text((x_in + slot + x_p) / 2, y_p + ek1 / 2 + 16, "softmax", "", size=11))
    # P
    parts.append(grid(x_p, y_p, eV, ek1, k1, V))
    parts.append(_text(x_p, y_p - 30, "P：目标的 k+1 个分布（分数，连续值）", "c13-strong", anchor="start", size=12))
    parts.append(_edge_label(x_p, x_p + eV, y_p - 8, f"V = {V:,}"))
    parts.append(_edge_label(x_p + eV + 8, y_p, y_p + ek1, f"k+1 = {k1}", vertical=True, side="right"))
    # Q and the drafted tokens
    parts.append(grid(x_p, y_q, eV, ek, k, V))
    parts.append(_text(x_p, y_q - 30, "Q：草稿逐个给出的 k 个分布（分数）", "c13-strong", anchor="start", size=12))
    parts.append(_edge_label(x_p, x_p + eV, y_q - 8, f"V = {V:,}"))
    parts.append(_edge_label(x_p + eV + 8, y_q, y_q + ek, f"k = {k}", vertical=True, side="right"))
    parts.append(slots(x_in, y_q, k, [f"x{_sub(i)}" for i in range(1, k + 1)]))
    parts.append(_text(x_in + slot / 2, y_q - 14, "草稿 token", "c13-muted", size=11))
    parts.append(_edge_label(x_in - 6, y_q, y_q + ek, f"k = {k}", vertical=True))
    parts.append(_line(x_p - 8, y_q + ek / 2, x_in + slot + 6, y_q + ek / 2, "c13-edge", marker_end=arrow))
    parts.append(_text((x_in + slot + x_p) / 2, y_q + ek / 2 - 8, "抽样", "", size=11))
    # the accept mask
    x_m = x_p + span + 72
    parts.append(_text(x_m + slot / 2, y_q - 30, "接受掩码", "c13-strong", size=12))
    parts.append(_text(x_m + slot / 2, y_q - 14, "是 / 否", "c13-muted", size=11))
    h = ek / k
    for i, m in enumerate(mask):
        y0 = y_q + i * h
        if m is None:
            parts.append(_rect(x_m, y0, slot, h, "c13-mask-blank"))
        else:
            parts.append(_rect(x_m, y0, slot, h, "c13-mask", fill=f"url(#{uid}-mask)" if m else None))
        if h >= 9:
            parts.append(_text(x_m + slot + 6, y0 + h / 2 + 4, "—" if m is None else ("是" if m else "否"), "",
                               anchor="start", size=min(11, h - 1)))
    parts.append(_text(x_p + span / 2, y_q + ek + 28, "取 P 与 Q 在 xᵢ 处的值：min(1, P[i, xᵢ] / Q[i, xᵢ]) → 掩码",
                       "c13-muted", size=11))
    parts.append(_text(x_p + span / 2, y_q + ek + 46, "掩码里留白 = 前面已被拒，这一格不再读", "c13-muted", size=11))
    return _svg(uid, round(W), round(H), title, "".join(parts))


def _sub(i):
    return str(i).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def _edge_label(a, b, c, text, vertical=False, side="left"):
    """A dimension written on an edge: horizontal from a to b at height c, or vertical from b to c at x = a."""
    if not vertical:
        return (_line(a, c, b, c, "c13-dim") + _text((a + b) / 2, c - 4, text, "c13-dimtext", size=11))
    x0 = a
    mid = (b + c) / 2
    anchor = "end" if side == "left" else "start"
    return (_line(x0, b, x0, c, "c13-dim") +
            _text(x0 + (-4 if side == "left" else 4), mid + 4, text, "c13-dimtext", anchor=anchor, size=11))


# ---------------------------------------------------------------------------------------------
# E4 · the replay of one real run, as a table of rounds
# ---------------------------------------------------------------------------------------------


def replay_table(rep, labels, tok_html):
    """One row per drafted token that was tested (and one per untested), grouped by round."""
    rows, tokens, forwards = [], 0, 0
    head = ("<thead><tr><th scope=\"col\">轮</th><th scope=\"col\">位置</th><th scope=\"col\">草稿 token</th>"
            "<th scope=\"col\">p(x)</th><th scope=\"col\">q(x)</th><th scope=\"col\">接受概率</th>"
            "<th scope=\"col\">u</th><th scope=\"col\">判定</th><th scope=\"col\">本轮结果</th>"
            "<th scope=\"col\">累计 token</th><th scope=\"col\">每次目标前向</th></tr></thead>")
    k = rep["k"]
    for r, rd in enumerate(rep["rounds"], 1):
        tokens += rd["yield"]
        forwards += 1
        tested = len(rd["u"])
        kind = "赠送" if rd["kind"] == "bonus" else "残差重抽"
        outcome = (f'接受 {rd["accepted"]} 个 + {kind} {tok_html(rd["token"])}'
                   f'<br><span class="c13-muted">产出 {rd["yield"]} 个</span>')
        for i in range(k):
            cls = []
            if i == 0:
                cls.append("c13-round-start")
            if i < tested:
                ok = i < rd["accepted"]
                verdict = ('<span class="c13-yes">✓ 接受</span>' if ok else '<span class="c13-no">✗ 拒绝</span>')
                cells = (f"<td>{tok_html(rd['draft'][i])}</td><td>{prob(rd['p'][i])}</td>"
                         f"<td>{prob(rd['q'][i])}</td><td>{pct(rd['accept_prob'][i], 1)}</td>"
                         f"<td>{rd['u'][i]:.3f}</td><td>{verdict}</td>")
            else:
                cls.append("c13-untested")
                cells = (f"<td>{tok_html(rd['draft'][i])}</td>"
                         '<td colspan="5" class="c13-muted">前面已拒绝，不再检验</td>')
            lead = ""
            if i == 0:
                lead = f'<th scope="rowgroup" rowspan="{k}">{r}</th>'
            tail = ""
            if i == 0:
                tail = (f'<td rowspan="{k}">{outcome}</td><td rowspan="{k}">{tokens}</td>'
                        f'<td rowspan="{k}">{tokens / forwards:.2f}</td>')
            rows.append(f'<tr class="{" ".join(cls)}">{lead}<td>{i + 1}</td>{cells}{tail}</tr>')
    body = "<tbody>" + "".join(rows) + "</tbody>"
    return f'<div class="c13-scroll" data-search-exclude><table class="c13-replay">{head}{body}</table></div>'


_VISIBLE = {"⏎": "\n", "␠": " ", "⇥": "\t", "␍": "\r"}


def label_bytes(label):
    """Undo a display label (tokenizer.labels): ‹E6 98› → those bytes, ‹U+0008› → that character, ⏎ → newline."""
    out = bytearray()
    for part in re.split(r"(‹[^›]*›)", label):
        if part.startswith("‹") and part.endswith("›"):
            inner = part[1:-1]
            if inner.startswith("U+"):
                out += chr(int(inner[2:], 16)).encode()
            else:
                out += bytes.fromhex(inner)
        else:
            out += "".join(_VISIBLE.get(ch, ch) for ch in part).encode()
    return bytes(out)


def readable(raw):
    """Bytes as text; bytes that form no whole UTF-8 character stay visible as ‹hex›, never as U+FFFD."""
    out, i = [], 0
    while i < len(raw):
        for width in (1, 2, 3, 4):
            try:
                out.append(raw[i:i + width].decode("utf-8"))
                i += width
                break
            except UnicodeDecodeError:
                continue
        else:
            out.append(f"‹{raw[i]:02X}›")
            i += 1
    shown = {"\n": "⏎", "\t": "⇥", "\r": "␍"}
    return "".join(shown.get(ch) or (f"‹U+{ord(ch):04X}›" if unicodedata.category(ch) == "Cc" else ch)
                   for ch in "".join(out))


def replay_text(rep, tok_html, labels=None):
    """The generated text, token by token, marked as accepted, resampled or bonus; then read as one string."""
    out = [f'<span class="c13-prompt">{"".join(tok_html(t) for t in rep["prompt_tokens"])}</span>']
    for rd in rep["rounds"]:
        for t in rd["draft"][: rd["accepted"]]:
            out.append(f'<span class="c13-t-acc">{tok_html(t)}</span>')
        cls = "c13-t-bonus" if rd["kind"] == "bonus" else "c13-t-res"
        out.append(f'<span class="{cls}">{tok_html(rd["token"])}</span>')
        out.append('<span class="c13-round-sep" aria-hidden="true">|</span>')
    text = f'<p class="c13-replay-text">{"".join(out)}</p>'
    if labels is not None:
        ids = list(rep["prompt_tokens"]) + list(rep["tokens"])
        whole = readable(b"".join(label_bytes(labels[t]) for t in ids))
        text += f'<p class="c13-replay-plain">连起来读：<span class="c13-plain">{esc(whole)}</span></p>'
    return f'<div class="c13-replay-out">{text}</div>'


# ---------------------------------------------------------------------------------------------
# E5 · speedup against k, per draft
# ---------------------------------------------------------------------------------------------


def speedup_plot(acc, drafts, names, uid="e5-plot"):
    W, H, left, right, top, bottom = 560, 300, 56, 150, 30, 44
    ks = sorted({r["k"] for d in drafts for r in acc["drafts"][d]["rows"]})
    values = [r[key] for d in drafts for r in acc["drafts"][d]["rows"] for key in ("speedup", "measured_speedup")]
    ymax = max(1.25, max(values) * 1.1)
    step = _nice_step(ymax / 5)
    ymax = step * math.ceil(ymax / step)
    pw, ph = W - left - right, H - top - bottom

    def px(k):
        return left + (k - ks[0]) / max(1, ks[-1] - ks[0]) * pw

    def py(v):
        return top + ph - v / ymax * ph

    parts = []
    t = 0.0
    while t <= ymax + 1e-9:
        parts.append(_line(left, py(t), left + pw, py(t), "c13-grid"))
        parts.append(_text(left - 6, py(t) + 4, f"{t:g}×", "c13-muted", anchor="end", size=11))
        t += step
    for k in ks:
        parts.append(_text(px(k), top + ph + 18, str(k), "c13-muted", size=11))
    parts.append(_text(left + pw / 2, H - 6, "k（每轮草稿 token 数）", "", size=12))
    parts.append(_line(left, py(1), left + pw, py(1), "c13-baseline"))
    parts.append(_text(left + pw + 6, py(1) + 4, "1× = 不投机", "c13-muted", anchor="start", size=11))
    shapes = ["circle", "square"]
    for j, d in enumerate(drafts):
        rows = sorted(acc["drafts"][d]["rows"], key=lambda r: r["k"])
        best = acc["drafts"][d]["best_k"]
        pts = " ".join(f"{px(r['k']):.1f},{py(r['speedup']):.1f}" for r in rows)
        parts.append(f'<polyline points="{pts}" class="c13-series c13-series-{j}" fill="none"/>')
        for r in rows:
            cx, cy = px(r["k"]), py(r["speedup"])
            mx, my = px(r["k"]), py(r["measured_speedup"])
            tip = (f"{names[d]}，k = {r['k']}：理论 {x(r['speedup'])}，实测产出折算 {x(r['measured_speedup'])}")
            parts.append(f"<g><title>{esc(tip)}</title>")
            parts.append(_marker(shapes[j % 2], cx, cy, f"c13-mark c13-series-{j}", 4.5))
            parts.append(_marker(shapes[j % 2], mx, my, f"c13-mark-hollow c13-series-{j}", 3))
            parts.append("</g>")
            if r["k"] == best:
                parts.append(_text(cx, cy - 10, f"最佳 k={best}", f"c13-strong c13-series-text-{j}", size=11))
    # legend
    ly = top + 6
    for j, d in enumerate(drafts):
        parts.append(_marker(shapes[j % 2], left + pw + 14, ly + 22 * j + 30, f"c13-mark c13-series-{j}", 4.5))
        parts.append(_text(left + pw + 24, ly + 22 * j + 34, names[d], f"c13-series-text-{j}", anchor="start", size=11))
    parts.append(_marker("circle", left + pw + 14, ly + 80, "c13-mark-hollow c13-series-0", 3))
    parts.append(_text(left + pw + 24, ly + 84, "空心 = 实测折算", "c13-muted", anchor="start", size=11))
    parts.append(_line(left, top + ph, left + pw, top + ph, "c13-axis"))
    parts.append(_line(left, top, left, top + ph, "c13-axis"))
    title = "理论加速比随 k 的变化，两个草稿各一条线（实心 = 公式，空心 = 实测每次目标前向的产出折算）"
    return _svg(uid, W, H, title, "".join(parts))


def _marker(shape, cx, cy, cls, r):
    if shape == "circle":
        return f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r}" class="{cls}"/>'
    return _rect(cx - r, cy - r, 2 * r, 2 * r, cls)
