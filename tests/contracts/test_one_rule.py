"""One acceptance rule: widgets/sampler.py is the only implementation, and the real-model runs use it.

A scanner reads the code of generator/, widgets/ (Python and JavaScript) and benchmarks/, with comments and
string literals blanked out (page text may name the rule), and reports file:line for anything that looks like
another implementation of the rule: a min(1, p/q) acceptance, a tensor residual (clamp, torch.minimum), an
inverse-CDF or library draw (cumsum, searchsorted, bisect, multinomial, choices, argmax), a running-sum draw, a
residual max(0, p − q) with a random number next to it, or running sums stored entry by entry (what a draw
searches). Bar heights such as Math.min(p, q) and Math.max(0, p − q) are pictures, not draws, and pass.

One file is allowed to form running sums: widgets/e6/row_sums.mjs, the plain additions E6's draws search, which
tests/widgets/test_row_sums.py proves equal to sampler.py's bit for bit; here it is checked to make no decision (no
uniform, no search, no comparison but its loop bounds and the residual weight's p > q).
"""
import json
import re

import pytest

from generator.shared_sampler import sampler
from tests.conftest import MODELS, ROOT
from tests.sourcelib import blank_js, blank_python

SCANNED = ("generator", "widgets", "benchmarks")
SUFFIXES = {".py": "python", ".js": "js", ".mjs": "js"}
THE_SAMPLER = "widgets/sampler.py"

NUMBER_ONE = r"1(?:\.0*)?"
OPERAND = r"[\w.\[\]()]+"
# (name, pattern) checked line by line on the blanked code
LINE_RULES = [
    ("min(1, ratio) acceptance", rf"\bmin\s*\(\s*{NUMBER_ONE}\s*,[^,;\n]*/"),
    ("min(ratio, 1) acceptance", rf"\bmin\s*\([^;\n]*/[^;\n]*,\s*{NUMBER_ONE}\s*\)"),
    ("conditional ratio acceptance", rf">=\s*{OPERAND}\s*(?:else|\?\s*{NUMBER_ONE}\s*:)\s*{OPERAND}\s*/"),
    ("accept test against a ratio", rf"(?:random\s*\(\s*\)|\bu\w*)\s*<=?\s*{OPERAND}\s*/\s*{OPERAND}"),
    ("tensor residual (clamp)", r"\bclamp(?:_min)?\s*\("),
    ("tensor overlap or residual", r"\b(?:torch|np|numpy)\.(?:minimum|maximum|fmin|fmax)\s*\("),
    ("residual through relu", r"\brelu\s*\("),
    ("inverse-CDF draw (cumsum)", r"\bcumsum\b"),
    ("inverse-CDF draw (searchsorted)", r"\bsearchsorted\b"),
    ("inverse-CDF draw (bisect)", r"\bbisect(?:_left|_right)?\b"),
    ("inverse-CDF draw (accumulate)", r"\baccumulate\s*\("),
    ("library draw", r"\b(?:multinomial|Categorical)\b|\bchoices\s*\("),
    ("greedy pick outside the sampler (argmax)", r"\bargmax\b"),
]
# (name, pattern A, pattern B, lines): A and B within `lines` lines of each other
WINDOW_RULES = [
    ("running-sum draw", r"\+=", r"(?:[<>]=?\s*(?:\w+\s*\*\s*)?\bu\b|\bu\s*(?:\*\s*\w+\s*)?[<>]|random\s*\(\s*\))", 3),
    ("residual drawn from", r"\bmax\s*\(\s*0(?:\.0*)?\s*,[^,;\n]+-",
     r"random\s*\(|getRandomValues|\bu\s*\*|\*\s*u\b", 10),
    ("running sums stored entry by entry", r"\b\w+\s*\+=", r"\b\w+\[\s*\w+\s*\]\s*=\s*\w+\s*;?\s*$", 1),
]
ROW_SUMS = "widgets/e6/row_sums.mjs"
# (file, rule name): the reason it is not a second implementation.
ALLOWED = {
    (ROW_SUMS, "running sums stored entry by entry"):
        "E6's running sums for sampler.py to search, proven equal to accumulate's by tests/widgets/test_row_sums.py",
}


# ----------------------------------------------------------------------------- the scanner

def findings_in(code, language, where):
    """["where:line: rule: code"] for every suspected second implementation of the rule in code."""
    lines = (blank_python(code) if language == "python" else blank_js(code)).splitlines()
    out = []
    for number, line in enumerate(lines, 1):
        for name, pattern in LINE_RULES:
            if re.search(pattern, line) and (where, name) not in ALLOWED:
                out.append(f"{where}:{number}: {name}: {line.strip()}")
    for name, first, second, span in WINDOW_RULES:
        for number, line in enumerate(lines, 1):
            if not re.search(first, line) or (where, name) in ALLOWED:
                continue
            near = lines[max(0, number - 1 - span): number + span]
            if any(re.search(second, other) for other in near):
                out.append(f"{where}:{number}: {name}: {line.strip()}")
    return out


def scanned_files():
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*")):
            rel = path.relative_to(ROOT).as_posix()
            if path.suffix in SUFFIXES and path.is_file() and rel != THE_SAMPLER and "__pycache__" not in rel:
                yield rel, path


def test_the_sampler_is_the_only_implementation_of_the_rule():
    files = list(scanned_files())
    assert any(rel.startswith("generator/data/") for rel, _ in files)
    assert any(rel.endswith(".js") for rel, _ in files)
    # the worker's and E6's Python glue are files of their own, read as Python
    assert {"widgets/py/c13_worker.py", "widgets/py/c13_e6.py"} <= {rel for rel, _ in files}
    found = []
    for rel, path in files:
        found += findings_in(path.read_text(encoding="utf-8"), SUFFIXES[path.suffix], rel)
    assert found == [], "another implementation of the acceptance rule (use widgets/sampler.py):\n" + "\n".join(found)


def test_every_allowance_names_a_file_that_exists_and_says_why():
    for (rel, rule), reason in ALLOWED.items():
        assert (ROOT / rel).is_file() and rule in {r[0] for r in LINE_RULES + WINDOW_RULES} and len(reason) > 20


def test_the_row_sums_module_makes_no_decision():
    """row_sums.mjs only adds: no uniform or random number, no search, and its only comparisons are its loops'
    bounds and the residual weight's p > q (sampler.residual_weight's)."""
    code = blank_js((ROOT / ROW_SUMS).read_text(encoding="utf-8"))
    assert not re.search(r"\bu\b|random|bisect|search|indexOf|findIndex|\bwhile\b|\bbreak\b|\breturn\s+i\b", code)
    operand = r"[\w.$\[\]]+"
    comparisons = re.findall(rf"{operand}\s*(?:[<>]=?|[=!]==?)\s*{operand}", code.replace("=>", "  "))
    assert sorted(comparisons) == ["i < out.length", "i < out.length", "p > q"], comparisons
    found = findings_in((ROOT / ROW_SUMS).read_text(encoding="utf-8"), "js", "elsewhere.mjs")
    assert len(found) == 2 and all("running sums stored entry by entry" in f for f in found), found


# the loop of generator/data/speculative.py and α of precompute.py before they called the sampler
OLD_LOOP = '''
def draw(probs, u):
    """Inverse-CDF draw with uniform u in [0, 1)."""
    cdf = torch.cumsum(probs, 0)
    i = int(torch.searchsorted(cdf, u * cdf[-1], right=True))
    return i if i < len(probs) else int(torch.nonzero(probs > 0)[-1])

def verify(p_dists, q_dists, drafted, greedy, rng):
    for i, x in enumerate(drafted):
        p_x, q_x = float(p_dists[i][x]), float(q_dists[i][x])
        if greedy:
            ok, a, u = x == int(p_dists[i].argmax()), None, None
        else:
            a, u = min(1.0, p_x / q_x), rng.random()
            ok = u < a
        if not ok:  # at T = 0 both are point masses
            residual = p_dists[i] if greedy else torch.clamp(p_dists[i] - q_dists[i], min=0)
            break

def alpha_positions(p, q):
    return torch.minimum(p, q).sum(-1).tolist()
'''


def test_the_scanner_finds_the_old_loop():
    found = findings_in(OLD_LOOP, "python", "old.py")
    lines = {int(f.split(":")[1]) for f in found}
    text = OLD_LOOP.splitlines()
    for needle in ("torch.cumsum", "torch.searchsorted", "argmax()", "min(1.0, p_x / q_x)", "torch.clamp",
                   "torch.minimum"):
        number = next(n for n, line in enumerate(text, 1) if needle in line)
        assert number in lines, f"the old line with {needle} was not flagged: {found}"


@pytest.mark.parametrize("code, language", [
    ("if rng.random() < p[x] / q[x]:\n    keep(x)\n", "python"),
    ("a = 1.0 if p_x >= q_x else p_x / q_x\n", "python"),
    ("x = bisect_right(list(accumulate(q)), u * total)\n", "python"),
    ("t = random.choices(range(n), weights=p)[0]\n", "python"),
    ("rest = [max(0.0, a - b) for a, b in zip(p, q)]\ntoken = pick(rest, rng.random())\n", "python"),
    ("const keep = Math.random() < p[x] / q[x];\n", "js"),
    ("const a = Math.min(1, p[x] / q[x]);\n", "js"),
    ("const a = px >= qx ? 1 : px / qx;\n", "js"),
    ("let acc = 0;\nfor (let i = 0; i < n; i++) {\n  acc += r[i];\n  if (acc > u * total) return i;\n}\n", "js"),
    ("const r = p.map((v, i) => Math.max(0, v - q[i]));\nconst t = pickFrom(r, Math.random());\n", "js"),
    ("const s = `${Math.min(1, p / q)}`;\n", "js"),
    ("let s = 0;\nfor (let i = 0; i < n; i++) {\n  s += w[i];\n  sums[i] = s;\n}\n", "js"),
    ("for i, w in enumerate(row):\n    total += w\n    sums[i] = total\n", "python"),
])
def test_the_scanner_finds_hand_written_rules(code, language):
    assert findings_in(code, language, "x"), code


@pytest.mark.parametrize("code, language", [
    # bar heights of the stacked picture: pictures, not draws
    ("const cols = ids.map((i) => ({ min: Math.min(d.p[i], d.q[i]), resid: Math.max(0, d.p[i] - d.q[i]) }));\n", "js"),
    ("cols = [(min(p[i], q[i]), max(0.0, p[i] - q[i]), max(0.0, q[i] - p[i])) for i in ids]\n", "python"),
    ("const x0 = Math.max(0, Math.min(total, step));\nconst h = Math.min(11, Math.floor(size - 1));\n", "js"),
    # the rule named in page text, comments and docstrings
    ("label(\"取 P 与 Q 在 xᵢ 处的值：min(1, P[i, xᵢ] / Q[i, xᵢ]) → 掩码\");\n// a cumsum would be wrong here\n", "js"),
    ("row(`q(x) > p(x)，所以 min(1, p/q) = ${fixed(a / b, 4)}`);\nconst re = /min\\(1, p\\/q\\)/g;\n", "js"),
    ('def f():\n    """Keep with min(1, p/q); else draw from torch.clamp(p - q, min=0) via cumsum."""\n    return 1\n',
     "python"),
    ("best = min(times)\nworkers = min(2, os.cpu_count() or 1)\nfor i in range(n):\n    total += w[i]\n", "python"),
    ("const seed = new Uint32Array(1);\ncrypto.getRandomValues(seed);\n", "js"),
])
def test_ordinary_code_passes(code, language):
    assert findings_in(code, language, "x") == []


# ----------------------------------------------------------------------------- the recorded decisions

@pytest.fixture(scope="module")
def committed():
    return json.loads((ROOT / "precomputed" / "c13.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def family():
    from generator.models.checkpoint import load_family
    _, models = load_family(MODELS)
    return {name: m.double() for name, m in models.items()}


def test_every_replay_round_is_the_samplers_decision(committed, family):
    """Recompute each round of the recorded replay from its stored p, q and uniforms through the sampler's
    primitives; the rows the draws need come from plain forwards of the models (no cache)."""
    from generator.data.speculative import distributions
    from generator.models.family import TARGET
    rep = committed["replay"]
    k, context = rep["k"], list(rep["prompt_tokens"])
    kinds = set()
    for index, r in enumerate(rep["rounds"]):
        where = f"replay round {index}"
        seq = context + r["draft"]
        q_rows = distributions(family[rep["draft"]], seq[:-1])[len(context) - 1:].tolist()
        p_rows = distributions(family[TARGET], seq)[len(context) - 1:].tolist()
        assert [sampler.draw(row, u) for row, u in zip(q_rows, r["draw_u"])] == r["draft"], where
        accepted = 0
        for p_x, q_x, u in zip(r["p"], r["q"], r["u"]):
            if not sampler.accepts(p_x, q_x, u):
                break
            accepted += 1
        assert accepted == r["accepted"] and r["yield"] == accepted + 1, where
        assert r["accept_prob"] == [sampler.accept_probability(p, q) for p, q in zip(r["p"], r["q"])], where
        assert r["kind"] == ("bonus" if accepted == k else "resampled"), where
        assert len(r["u"]) == accepted + (r["kind"] == "resampled"), where  # one uniform per test, no more
        if r["kind"] == "bonus":
            token = sampler.draw_bonus(p_rows[k], r["final_u"])
        else:
            token = sampler.draw_residual(p_rows[accepted], q_rows[accepted], r["final_u"])
        assert token == r["token"], where
        for i, (p_x, q_x) in enumerate(zip(r["p"], r["q"])):  # the stored values are the models' own
            assert p_x == pytest.approx(p_rows[i][r["draft"][i]], rel=1e-9)
            assert q_x == pytest.approx(q_rows[i][r["draft"][i]], rel=1e-9)
        kinds.add(r["kind"])
        context += r["draft"][:accepted] + [token]
    assert context[len(rep["prompt_tokens"]):] == rep["tokens"]
    assert kinds == {"bonus", "resampled"}  # both final draws were exercised


def test_the_lexer_keeps_a_template_literals_code_and_balances_its_braces():
    src = 'const a = `x {${f({b: 1})}} y`; // {\nconst r = /[{"]/g; const s = "}";\n'
    code = blank_js(src)
    assert len(code) == len(src) and code.count("\n") == src.count("\n")
    assert "{f({b: 1})}" in code and " x " not in code and " y" not in code  # the code kept, the text blanked
    assert code.count("{") == code.count("}") == 2, code  # the ${…} and the object: the text's braces are gone
