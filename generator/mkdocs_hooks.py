"""MkDocs glue (named in mkdocs.yml `hooks:`): every page's Markdown is a Jinja2 template rendered with c13.json.

- Data: the JSON at $C13_DATA (default precomputed/c13.json). Its schema_version and every key the pages
  read are checked first; a problem stops the build with the file and the key named.
- Templates: delimiters that cannot clash with LaTeX or Markdown — `[[ expression ]]`, `[% statement %]`,
  `[# comment #]` — StrictUndefined, autoescape of every inserted string, and any error fails the build.
- Filters: the named number formats of generator/figures.py (pct, x, num, ms, frac, f2, f4, …) and `tok`,
  which shows a token's label as text (escaped for HTML and for Markdown alike).
- Per page: the count of in-page experiments is taken from the rendered page (its <section class="c13-exp">
  elements), each experiment gets its file:// notice, and a page with experiments carries the data the
  widgets need as <script type="application/json" id="c13-widget-data"> (embedded, never fetched).
- Files: widgets/*.css|js|py and the pinned browser packages from node_modules (KaTeX CSS and fonts, iframe-worker,
  Pyodide) are added to the build as generated files, so nothing is copied into docs/.
- Math: arithmatex's formulas are rendered to HTML (+ MathML) at build time by generator/katex_render.mjs,
  so they read without JavaScript and the page loads no math script.
"""
import html
import json
import math
import os
import re
import shutil
import subprocess
import sys
import traceback
from decimal import Decimal
from pathlib import Path

import jinja2
from markupsafe import Markup, escape
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from generator import figures  # noqa: E402  (after the path fix: hooks are loaded by file path)
from generator.errors import InputError  # noqa: E402
from generator.jsonio import read_json  # noqa: E402

DEFAULT_DATA = ROOT / "precomputed" / "c13.json"
QA_RECORD = ROOT / "docs" / "qa" / "C13-L3.md"
# The schema these templates read; generator/provenance.py SCHEMA_VERSION writes it (a test keeps the two equal).
SCHEMA_VERSION = 1
SERVE_COMMAND = "make serve"
SERVE_PLAIN = "python3 -m http.server"  # for a reader who has only the built folder
EXPERIMENT_COUNT = "C13EXPERIMENTCOUNTPLACEHOLDER"
EXP_OPEN = re.compile(r'<section\b(?=[^>]*\bclass="c13-exp")[^>]*\bid="([^"]+)"[^>]*>')

# Browser files copied from node_modules into the site: (package, file in the package, path in the site).
VENDOR = [("katex", "dist/katex.min.css", "assets/vendor/katex/katex.min.css"),
          ("katex", "LICENSE", "assets/vendor/katex/LICENSE"),
          ("iframe-worker", "shim/index.js", "assets/vendor/iframe-worker/shim.js"),
          ("iframe-worker", "LICENSE", "assets/vendor/iframe-worker/LICENSE")]
VENDOR_DIRS = [("katex", "dist/fonts", "assets/vendor/katex/fonts")]
# Pyodide 314 in a browser needs its loader, the emscripten module, the wasm, the standard library and the
# lock file (read at start even when no package is loaded). The widgets load it from assets/vendor/pyodide/.
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json",
                 "package.json")
for _name in PYODIDE_FILES:
    VENDOR.append(("pyodide", _name, f"assets/vendor/pyodide/{_name}"))
WIDGET_SUFFIXES = (".css", ".js", ".mjs", ".py")
TOP_N = 12  # tokens shown one by one in E2's stacked picture; the rest are folded into one column

# Every key the pages read: checked up front so a missing one is reported by name, not by a template trace.
REQUIRED = [
    "schema_version", "provenance.generator", "provenance.generator_version", "provenance.command",
    "provenance.inputs", "provenance.torch_version",
    "models", "card", "tokenizer.vocab_size", "tokenizer.labels", "tokenizer.partial_tokens", "tokenizer.sha256",
    "prompts", "greedy.identical", "greedy.total", "greedy.n_new", "greedy.ks", "greedy.runs",
    "distributions", "offline.n", "offline.results",
    "replay.draft", "replay.k", "replay.n_new", "replay.prompt", "replay.prompt_tokens", "replay.rounds",
    "replay.tokens", "replay.target_forwards", "replay.draft_forwards",
    "accounting.prompts", "accounting.seeds", "accounting.n_new", "accounting.drafts",
    "alpha_spread.positions_per_prompt", "alpha_spread.drafts",
    "anchor.model", "anchor.hardware", "anchor.vocab_size", "anchor.compute_ms_per_token",
    "anchor.weight_read_ms_per_token", "anchor.positions_verified", "anchor.compute_ms_for_positions",
    "anchor.bytes_read_per_token", "anchor.params_read_per_token", "anchor.flops_per_position",
    "anchor.linear_attention_state_mib", "anchor.linear_attention_state_mb", "anchor.read_over_compute",
    "papers",
]
MODEL_KEYS = ("role", "parameters", "width", "layers", "heads", "context", "vocab_size", "ratio_to_target",
              "target_over_this", "heldout_loss", "train_loss", "sha256", "bytes_float32")
ROW_KEYS = ("k", "tokens_per_target_forward", "acceptance_rate", "formula", "speedup", "measured_speedup",
            "tokens", "target_forwards", "draft_forwards", "positions_tested")
ROUND_KEYS = ("draft", "p", "q", "accept_prob", "u", "accepted", "kind", "token", "yield")


class DataError(PluginError):
    def __init__(self, path, key, problem):
        super().__init__(f"{path}: {key}: {problem}" if key else f"{path}: {problem}")


# ---------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------


def data_path():
    return Path(os.environ.get("C13_DATA") or DEFAULT_DATA).resolve()


def _get(data, dotted):
    node = data
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None, False
        node = node[part]
    return node, True


def load_data(path):
    try:
        data = read_json(path, "the precomputed data (make it with: python -m generator data)")
    except InputError as e:
        raise DataError(path, None, e.problem) from None
    if data.get("schema_version") != SCHEMA_VERSION:
        raise DataError(path, "schema_version",
                        f"is {data.get('schema_version')!r}; the site's templates read version {SCHEMA_VERSION}")
    for key in REQUIRED:
        if not _get(data, key)[1]:
            raise DataError(path, key, "missing")
    roles = {name: m.get("role") for name, m in data["models"].items()}
    targets = [n for n, r in roles.items() if r == "target"]
    drafts = [n for n, r in roles.items() if r == "draft"]
    if len(targets) != 1 or len(drafts) != 2:
        raise DataError(path, "models", f"needs one target and two drafts, found roles {roles}")
    for name in targets + drafts:
        for key in MODEL_KEYS:
            if key not in data["models"][name]:
                raise DataError(path, f"models.{name}.{key}", "missing")
    for key in ("recipe.steps", "corpus.sha256"):
        if not _get(data["card"], key)[1]:
            raise DataError(path, f"card.{key}", "missing")
    vocab = data["tokenizer"]["vocab_size"]
    if len(data["tokenizer"]["labels"]) != vocab:
        raise DataError(path, "tokenizer.labels", f"has {len(data['tokenizer']['labels'])} labels for {vocab} tokens")
    if len(data["distributions"]) < 2:
        raise DataError(path, "distributions", "needs two prefixes")
    for prefix, entry in data["distributions"].items():
        for key in ("p", "q", "alpha", "sum_pq", "tv_resample_p_closed_form"):
            if key not in entry:
                raise DataError(path, f"distributions[{prefix}].{key}", "missing")
        if len(entry["p"]) != vocab:
            raise DataError(path, f"distributions[{prefix}].p", f"has {len(entry['p'])} entries, not {vocab}")
        for draft in drafts:
            for key in ("q", "alpha", "sum_pq", "tv_resample_p_closed_form"):
                if draft not in entry[key]:
                    raise DataError(path, f"distributions[{prefix}].{key}.{draft}", "missing")
            if len(entry["q"][draft]) != vocab:
                raise DataError(path, f"distributions[{prefix}].q.{draft}", f"has {len(entry['q'][draft])} entries")
            for scheme in ("correct", "resample_p", "direct"):
                for key in ("tv", "acceptance_rate", "seed", "n"):
                    if key not in data["offline"]["results"].get(prefix, {}).get(draft, {}).get(scheme, {}):
                        raise DataError(path, f"offline.results[{prefix}].{draft}.{scheme}.{key}", "missing")
    if data["replay"]["prompt"] not in data["distributions"]:
        raise DataError(path, "replay.prompt", "is not one of the prefixes in distributions")
    for i, rd in enumerate(data["replay"]["rounds"]):
        for key in ROUND_KEYS:
            if key not in rd:
                raise DataError(path, f"replay.rounds[{i}].{key}", "missing")
    for draft in drafts:
        entry = data["accounting"]["drafts"].get(draft)
        if entry is None:
            raise DataError(path, f"accounting.drafts.{draft}", "missing")
        for key in ("c", "best_k", "best_speedup", "rows"):
            if key not in entry:
                raise DataError(path, f"accounting.drafts.{draft}.{key}", "missing")
        for j, row in enumerate(entry["rows"]):
            for key in ROW_KEYS:
                if key not in row:
                    raise DataError(path, f"accounting.drafts.{draft}.rows[{j}].{key}", "missing")
        for key in ("min", "max", "mean", "positions", "values"):
            if key not in data["alpha_spread"]["drafts"].get(draft, {}):
                raise DataError(path, f"alpha_spread.drafts.{draft}.{key}", "missing")
    for i, paper in enumerate(data["papers"]):
        for key in ("id", "work", "setting", "figures"):
            if key not in paper:
                raise DataError(path, f"papers[{i}].{key}", "missing")
    return data


# ---------------------------------------------------------------------------------------------
# Compact probabilities for the embedded widget data (exact: the browser gets the very same doubles)
# ---------------------------------------------------------------------------------------------

EXPONENTS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def pack(values):
    """Each value v = m × 10^-e as the digits of m and one letter for e ('4423h' = 4423e-7); no separators.

    Exponents past the alphabet are written '-e.'. Decode with Number(m + 'e-' + e): a correctly rounded
    parse of the same decimal as Python's float(), so every value round-trips exactly (checked here).
    """
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise ValueError(f"not a probability: {v!r}")
        sign, digits, exp = Decimal(repr(float(v))).normalize().as_tuple()
        m = int("".join(map(str, digits))) if v else 0
        e = 0 if not v else -exp
        if e < 0:
            m, e = m * 10 ** -e, 0
        code = EXPONENTS[e] if e < len(EXPONENTS) else f"-{e}."
        if float(f"{m}e-{e}") != float(v):
            raise ValueError(f"{v!r} does not round-trip through the compact form")
        out.append(f"{m}{code}")
    return "".join(out)


def unpack(text):
    out = []
    for m, letter, big in re.findall(r"(\d+)(?:([a-zA-Z])|-(\d+)\.)", text):
        e = EXPONENTS.index(letter) if letter else int(big)
        out.append(float(f"{m}e-{e}"))
    return out


def widget_data(data, ctx):
    """Only what the five widgets need, compact, for <script type="application/json" id="c13-widget-data">."""
    dists = {}
    for prefix in ctx["prefixes"]:
        e = data["distributions"][prefix]
        dists[prefix] = {"p": pack(e["p"]), "q": {d: pack(e["q"][d]) for d in ctx["drafts"]},
                         "alpha": e["alpha"], "sum_pq": e["sum_pq"],
                         "tv_resample_p_closed_form": e["tv_resample_p_closed_form"]}
    return {
        "schema_version": data["schema_version"],
        "encoding": "distributions: value = m × 10^-e, written as the digits of m then one letter for e "
                    "(a = 0 … z = 25, A = 26 … Z = 51; larger e as '-e.'); decode with Number(m + 'e-' + e)",
        "target": ctx["T"], "drafts": ctx["drafts"], "prefixes": ctx["prefixes"],
        "models": {n: {k: m[k] for k in ("role", "parameters", "width")} for n, m in data["models"].items()},
        "labels": data["tokenizer"]["labels"],
        "distributions": dists,
        "offline": data["offline"],
        "replay": data["replay"],
        "accounting": data["accounting"],
        "anchor": data["anchor"],
        "sampler": "assets/c13/sampler.py",
        "pyodide": "assets/vendor/pyodide/",
        "serve_command": SERVE_COMMAND,
    }


def script_json(obj):
    """JSON that is safe inside <script>: no '<', '>' or '&' characters and no line separators left raw."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for ch, rep in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                    ("\u2029", "\\u2029")):
        text = text.replace(ch, rep)
    return text


# ---------------------------------------------------------------------------------------------
# Template context: the raw data plus a few things derived from it (never typed in)
# ---------------------------------------------------------------------------------------------

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
        "d": data, "T": T, "S": S, "L": L, "drafts": drafts, "M": models, "labels": labels,
        "names": {T: "目标", S: "小草稿", L: "大草稿"},
        "P0": prefixes[0], "P1": prefixes[1], "prefixes": prefixes, "dist": dist,
        "off": data["offline"]["results"], "acc": acc, "anc": data["anchor"], "rep": data["replay"],
        "rep_stats": rep, "mask": mask, "spread": data["alpha_spread"]["drafts"],
        "greedy": data["greedy"], "prov": data["provenance"], "card": data["card"],
        "tok": tok, "row": row, "section_of": section_of, "paper": paper, "pfig": pfig, "deficit": deficit,
        "serve_command": SERVE_COMMAND, "experiment_count": Markup(EXPERIMENT_COUNT),
        "top_n": TOP_N,
        "speedup_formula": lambda a, c, kk: (1 - a ** (kk + 1)) / ((1 - a) * (c * kk + 1)),
        "yield_formula": lambda a, kk: (1 - a ** (kk + 1)) / (1 - a),
    }
    ctx["qa"] = read_qa(QA_RECORD)
    ctx.update(_pictures(ctx))
    return ctx


def _pictures(ctx):
    """Build-time pictures and tables (generator/figures.py), returned as markup for the templates."""
    names = {n: f"{n}（{ctx['names'][n]}）" for n in ctx["drafts"]}

    n_top = ctx["top_n"]

    def stacked(prefix, draft, n=n_top):
        e = ctx["dist"][prefix]
        uid = f"e2-stack-{ctx['prefixes'].index(prefix)}-{ctx['drafts'].index(draft)}"
        title = f"前缀「{prefix}」处目标 p 与 {draft} 的 q 叠放：前 {n} 个 token 加其余折叠"
        return Markup(figures.stacked(e["p"], e["q"][draft], ctx["labels"], uid, title, n=n))

    def stacked_rows(prefix, draft, n=n_top):
        e = ctx["dist"][prefix]
        return figures.stacked_rows(e["p"], e["q"][draft], ctx["labels"], n=n)

    def tensor(V, uid, title):
        k = ctx["anc"]["positions_verified"] - 1
        mask = (ctx["mask"] + [None] * k)[:k]
        return Markup(figures.tensor_shapes(V, k, mask, uid, title))

    return {
        "svg_request_path": lambda: Markup(figures.request_path(ctx["anc"])),
        "svg_stacked": stacked, "stacked_rows": stacked_rows, "svg_tensor": tensor,
        "svg_speedup": lambda: Markup(figures.speedup_plot({"drafts": ctx["acc"]}, ctx["drafts"], names)),
        "html_replay": lambda: Markup(figures.replay_table(ctx["rep"], ctx["labels"], ctx["tok"])),
        "html_replay_text": lambda: Markup(figures.replay_text(ctx["rep"], ctx["tok"], ctx["labels"])),
        "figure": lambda svg, caption, cls="": Markup(figures.figure(svg, escape(caption), cls)),
    }


def read_qa(path):
    """The lesson's Q&A record: entries are '## ' headings (the question) followed by Markdown (the answer)."""
    path = Path(path)
    if not path.is_file():
        raise PluginError(f"{path}: the Q&A record is missing (an empty record says so in words)")
    entries, current = [], None
    in_comment = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if "<!--" in line:
            in_comment = "-->" not in line
            continue
        if in_comment:
            in_comment = "-->" not in line
            continue
        if line.startswith("## "):
            current = {"question": line[3:].strip(), "answer": []}
            entries.append(current)
        elif current is not None:
            current["answer"].append(line)
    return [{"question": e["question"], "answer": Markup("\n".join(e["answer"]).strip())} for e in entries]


# ---------------------------------------------------------------------------------------------
# The Jinja environment
# ---------------------------------------------------------------------------------------------


def optional(value, fmt, *args):
    """A figure that may be absent (None in the data, e.g. no model card): '—' instead of a number."""
    return "—" if value is None else figures.FORMATS[fmt](value, *args)


def plain(value):
    """A recipe or corpus value as written: dicts as 'key value' pairs, numbers without added digits."""
    if isinstance(value, dict):
        return "，".join(f"{k} {plain(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "、".join(plain(v) for v in value)
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def section_of(text):
    """The section mark a citation gives ('§5.4.2'), so the page never types a source's locator itself."""
    m = re.search(r"§\s*[\d.]*\d", str(text))
    if not m:
        raise ValueError(f"no § section in {text!r}")
    return m.group(0)


def make_env():
    env = jinja2.Environment(
        variable_start_string="[[", variable_end_string="]]",
        block_start_string="[%", block_end_string="%]",
        comment_start_string="[#", comment_end_string="#]",
        undefined=jinja2.StrictUndefined, autoescape=True,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters.update(figures.FORMATS)
    env.filters["opt"] = optional
    env.filters["plain"] = plain
    env.filters["indent4"] = lambda s: Markup("\n".join(("    " + ln) if ln else ln for ln in str(s).splitlines()))
    return env


def render_page(env, ctx, source, name):
    try:
        return env.from_string(source).render(ctx)
    except jinja2.TemplateSyntaxError as e:
        raise PluginError(f"{name}: line {e.lineno}: template syntax error: {e.message}") from None
    except Exception as e:  # StrictUndefined, a filter's ValueError, a KeyError from a helper: all fatal
        line = None
        for frame in traceback.extract_tb(e.__traceback__):
            if frame.filename == "<template>":
                line = frame.lineno
        where = f"line {line}" if line else "rendering"
        raise PluginError(f"{name}: {where}: {type(e).__name__}: {e} (data: {data_path()})") from None


# ---------------------------------------------------------------------------------------------
# MkDocs events
# ---------------------------------------------------------------------------------------------

_state = {}


def on_config(config):
    path = data_path()
    data = load_data(path)
    try:
        ctx = build_context(data)
    except (KeyError, ValueError, IndexError, TypeError) as e:
        raise DataError(path, None, f"cannot derive the page's figures: {type(e).__name__}: {e}") from None
    ctx["qa_contact"] = (config.extra.get("c13") or {}).get("qa_contact") or "课程的答疑渠道"
    _state.update(data=data, path=path, ctx=ctx, env=make_env(), widget=script_json(widget_data(data, ctx)))
    return config


def on_files(files, config):
    node = ROOT / "node_modules"
    missing = []
    wanted = [(node / pkg / rel, dest) for pkg, rel, dest in VENDOR]
    for pkg, rel, dest in VENDOR_DIRS:
        src = node / pkg / rel
        if not src.is_dir():
            missing.append(str(src))
            continue
        wanted += [(p, f"{dest}/{p.name}") for p in sorted(src.iterdir()) if p.is_file()]
    for src, dest in wanted:
        if not src.is_file():
            missing.append(str(src))
            continue
        files.append(File.generated(config, dest, abs_src_path=str(src)))
    if missing:
        raise PluginError("browser packages are missing from node_modules (run: npm ci):\n  " + "\n  ".join(missing))
    for src in sorted((ROOT / "widgets").iterdir()):
        if src.is_file() and src.suffix in WIDGET_SUFFIXES:
            files.append(File.generated(config, f"assets/c13/{src.name}", abs_src_path=str(src)))
    return files


def on_page_markdown(markdown, page, config, files):
    return render_page(_state["env"], _state["ctx"], markdown, page.file.src_uri)


def on_page_content(html, page, config, files):
    sections = EXP_OPEN.findall(html)
    if len(set(sections)) != len(sections):
        raise PluginError(f"{page.file.src_uri}: experiment ids repeat: {sections}")
    notice = ('<p class="c13-exp-notice" hidden>这里是构建时生成的静态版本。在线运行需要用本地服务打开本站：'
              f'在项目目录执行 <code>{SERVE_COMMAND}</code>（只有构建好的文件夹时，在该文件夹里执行 '
              f'<code>{SERVE_PLAIN}</code>），再用浏览器打开它打印的地址（直接双击打开的'
              '文件不能启动实验）。</p>')
    # each experiment's notice goes right under its heading (or first, when it has none)
    out, pos = [], 0
    for m in EXP_OPEN.finditer(html):
        end = html.find("</section>", m.end())
        head = html.find("</h3>", m.end(), end if end >= 0 else None)
        cut = head + len("</h3>") if head >= 0 else m.end()
        out += [html[pos:cut], notice]
        pos = cut
    html = "".join(out) + html[pos:]
    if EXPERIMENT_COUNT in html:
        if not sections:
            raise PluginError(f"{page.file.src_uri}: the page asks for its experiment count but has no experiments")
        html = html.replace(EXPERIMENT_COUNT, str(len(sections)))
    page.c13_experiments = sections
    return html


MATH = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.S)
KATEX_RENDER = ROOT / "generator" / "katex_render.mjs"


def render_math(output, name):
    """Replace arithmatex's \\( … \\) and \\[ … \\] by KaTeX's HTML, rendered now with node, so that math
    reads without JavaScript and the page loads no math script (only KaTeX's CSS and fonts)."""
    found = list(MATH.finditer(output))
    if not found:
        return output
    items = [{"tex": html.unescape(m.group(2)).strip()[2:-2], "display": m.group(1) == "div"} for m in found]
    node = shutil.which("node")
    if node is None:
        raise PluginError(f"{name}: node is needed to render the math at build time (install Node 20)")
    run = subprocess.run([node, str(KATEX_RENDER)], input=json.dumps(items), capture_output=True,
                         text=True, cwd=ROOT)
    if run.returncode != 0:
        raise PluginError(f"{name}: {run.stderr.strip()}")
    rendered = iter(json.loads(run.stdout))
    return MATH.sub(lambda m: f'<{m.group(1)} class="arithmatex">{next(rendered)}</{m.group(1)}>', output)


SEARCH_DIALOG = '<div class="md-search" data-md-component="search" role="dialog">'


def on_post_page(output, page, config):
    output = render_math(output, page.file.src_uri)
    # the theme's search overlay is a dialog without a name; screen readers announce it as 搜索
    output = output.replace(SEARCH_DIALOG, SEARCH_DIALOG[:-1] + ' aria-label="搜索">', 1)
    if EXPERIMENT_COUNT in output:
        raise PluginError(f"{page.file.src_uri}: the experiment count placeholder was left in the page")
    if getattr(page, "c13_experiments", None):
        tag = f'<script type="application/json" id="c13-widget-data">{_state["widget"]}</script>'
        if "</body>" not in output:
            raise PluginError(f"{page.file.src_uri}: no </body> to put the widget data before")
        output = output.replace("</body>", tag + "\n</body>", 1)
    return output


def on_post_template(output, template_name, config):
    """The 404 page gets root-absolute URLs when site_url is unset; make them relative so that it also
    finds its styles under a sub-path (all pages of this site sit at the top level)."""
    if template_name != "404.html":
        return output
    output = re.sub(r'\b(href|src)="/(?!/)', r'\1="', output)
    return output.replace('"base": "/"', '"base": "."').replace('"search": "/assets/', '"search": "assets/')


@event_priority(-50)  # after the search plugin wrote its index, before the offline plugin inlines it
def on_post_build(config):
    """The search index as UTF-8 text rather than \\u escapes: the same JSON at about half the bytes."""
    path = Path(config.site_dir) / "search" / "search_index.json"
    if path.is_file():
        index = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
