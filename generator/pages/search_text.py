"""The search index's math as readable text: `\\(\\min(1, p/q)\\)` → `min(1, p/q)`, `\\alpha^{k+1}` → `α^(k+1)`.

The search plugin indexes each page before its formulas are rendered (generator/pages/math.py renders them
into the finished HTML), so the index would hold raw LaTeX and the theme would show it in the results.
hooks.on_post_build rewrites the index with this: a small reader of the LaTeX the pages use (fractions,
scripts, named symbols and functions, text and spacing commands); an unknown command keeps its name.
"""
import html
import re

SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "theta": "θ", "lambda": "λ",
    "mu": "μ", "pi": "π", "sigma": "σ", "tau": "τ", "Delta": "Δ", "Sigma": "Σ",
    "sum": "Σ", "prod": "Π", "cdot": "·", "times": "×", "ge": "≥", "geq": "≥", "le": "≤", "leq": "≤",
    "ne": "≠", "neq": "≠", "approx": "≈", "in": "∈", "to": "→", "infty": "∞", "dots": "…", "ldots": "…",
    "cdots": "⋯", "lvert": "|", "rvert": "|", "vert": "|", "mid": "|", "lbrace": "{", "rbrace": "}",
    "langle": "⟨", "rangle": "⟩", "pm": "±", "min": "min", "max": "max", "log": "log", "exp": "exp",
    "quad": " ", "qquad": " ", ",": " ", ";": " ", ":": " ", " ": " ", "!": "", "\\": " ",
    "{": "{", "}": "}", "%": "%", "&": "&", "#": "#", "_": "_",
}
SIZES = {"big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "left", "right", "displaystyle",
         "textstyle", "limits"}
TEXT_COMMANDS = {"mathrm", "text", "textrm", "operatorname", "mathbf", "mathit", "mathsf", "mathrel", "mathbin",
                 "boldsymbol", "underbrace", "overbrace"}
FRACTIONS = {"frac", "tfrac", "dfrac"}
SUP = dict(zip("0123456789+-=()nik", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵏ"))
SUB = dict(zip("0123456789+-=()xikjn", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₓᵢₖⱼₙ"))
VULGAR = {("1", "2"): "½", ("1", "3"): "⅓", ("1", "4"): "¼"}
MATH = re.compile(r"\\\((.*?)\\\)|\\\[(.*?)\\\]", re.S)


class _Reader:
    def __init__(self, tex):
        self.s, self.i = tex, 0

    def more(self):
        return self.i < len(self.s)

    def command(self):
        m = re.compile(r"[A-Za-z]+|.", re.S).match(self.s, self.i)
        self.i = m.end() if m else self.i
        return m.group(0) if m else ""

    def group(self):
        """The next argument: a {…} group or one character/command, as text."""
        while self.more() and self.s[self.i] == " ":
            self.i += 1
        if not self.more():
            return ""
        if self.s[self.i] == "{":
            depth, start = 0, self.i
            for j in range(self.i, len(self.s)):
                depth += {"{": 1, "}": -1}.get(self.s[j], 0)
                if depth == 0:
                    self.i = j + 1
                    return readable_math(self.s[start + 1:j])
            self.i = len(self.s)
            return readable_math(self.s[start + 1:])
        if self.s[self.i] == "\\":
            self.i += 1
            return self.word(self.command())
        self.i += 1
        return self.s[self.i - 1]

    def word(self, name):
        """A command as text, its arguments read."""
        if name in FRACTIONS:
            top, bottom = self.group().strip(), self.group().strip()
            return VULGAR.get((top, bottom)) or f"{_wrapped(top)}/{_wrapped(bottom)}"
        if name in ("underbrace", "overbrace"):
            body = self.group()
            if self.s.startswith(("_", "^"), self.i):
                self.i += 1
                self.group()  # the brace's label, e.g. (A), names a term of the prose: left out
            return body
        if name in TEXT_COMMANDS:
            return self.group()
        if name in ("htmlData", "htmlClass", "htmlId", "htmlStyle"):
            self.group()  # the attribute (E2's terms carry data-term), not text
            return self.group()
        if name in ("tilde", "hat", "bar"):
            return self.group() + {"tilde": "\u0303", "hat": "\u0302", "bar": "\u0304"}[name]
        if name == "char":
            m = re.compile(r'\s*"([0-9A-Fa-f]+)|\s*(\d+)').match(self.s, self.i)
            if m:
                self.i = m.end()
                return chr(int(m.group(1), 16) if m.group(1) else int(m.group(2)))
        if name in ("begin", "end"):
            self.group()
            return " "
        if name in SIZES:
            return ""
        return SYMBOLS.get(name, name)


def _wrapped(text):
    """A fraction's part in parentheses unless it is one word, one call such as p(x), or one (…) group."""
    m = re.match(r"[\w.·]*", text)
    rest = text[m.end():]
    if not rest or (rest.startswith("(") and _closes_at_end(rest)):
        return text
    return f"({text})"


def _closes_at_end(text):
    """'(a, (b))' is one parenthesised group; '(a)(b)' is not."""
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            return i == len(text) - 1
    return False


def _script(text, table, mark):
    text = text.strip()
    if text and all(ch in table for ch in text):
        return "".join(table[ch] for ch in text)
    return f"{mark}{text}" if len(text) == 1 else f"{mark}({text})"


def readable_math(tex):
    """One formula's LaTeX as plain text for reading in a list of search results."""
    r, out = _Reader(tex), []
    while r.more():
        ch = r.s[r.i]
        r.i += 1
        if ch == "\\":
            out.append(r.word(r.command()))
        elif ch == "^":
            out.append(_script(r.group(), SUP, "^"))
        elif ch == "_":
            out.append(_script(r.group(), SUB, "_"))
        elif ch == "{":
            r.i -= 1
            out.append(r.group())
        elif ch not in "&}":
            out.append(ch)
    return re.sub(r"\s+", " ", "".join(out)).strip()


def readable_text(text):
    """Text of the search index (HTML-escaped) with each \\( \\) or \\[ \\] formula made readable."""
    def one(m):
        tex = html.unescape(m.group(1) if m.group(1) is not None else m.group(2))
        return html.escape(readable_math(tex), quote=False)
    return MATH.sub(one, text)


def rewrite_index(index):
    """The search index (its parsed JSON) with readable math in every title and text."""
    for doc in index.get("docs", []):
        for key in ("title", "text"):
            if isinstance(doc.get(key), str):
                doc[key] = readable_text(doc[key])
    return index
