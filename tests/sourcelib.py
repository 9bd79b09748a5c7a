"""The one lexer of the source tests: code with its comments and string literals blanked out (same length, same
lines), so that a test that scans code — for a second copy of the acceptance rule (test_one_rule.py), for the length of
a function by its braces (test_layout.py) — sees only code. JavaScript's template literals keep the code of their
${…} parts, braces included; their text is blanked."""
import io
import tokenize


def _blank(chars, start, end):
    for i in range(start, end):
        if chars[i] != "\n":
            chars[i] = " "


def blank_python(src):
    """src with every comment and string literal (docstrings, f-strings) replaced by spaces, lines kept."""
    chars, offsets, pos = list(src), [0], 0
    for line in src.splitlines(keepends=True):
        pos += len(line)
        offsets.append(pos)
    kinds = {tokenize.COMMENT, tokenize.STRING} | {getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type in kinds:
            _blank(chars, offsets[tok.start[0] - 1] + tok.start[1], offsets[tok.end[0] - 1] + tok.end[1])
    return "".join(chars)


REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^") | {""}


def _skip_quoted(src, i, quote):
    """The index after the string literal that opens at src[i]."""
    i += 1
    while i < len(src) and src[i] != quote:
        i += 2 if src[i] == "\\" else 1
    return i + 1


def _skip_regex(src, i):
    """The index after the regular-expression literal (and flags) that opens at src[i]."""
    i, in_class = i + 1, False
    while i < len(src) and (in_class or src[i] != "/") and src[i] != "\n":
        if src[i] == "\\":
            i += 1
        elif src[i] in "[]":
            in_class = src[i] == "["
        i += 1
    i += 1
    while i < len(src) and src[i].isalpha():
        i += 1
    return i


def blank_js(src, comments=None):
    """src with JavaScript comments, strings, regex literals and template-literal text blanked; the code inside
    a template's ${…} is kept (it may compute). comments: a list that gets each comment's text."""
    chars, i, depths, last = list(src), 0, [], ""
    text_start = None  # where the template text being scanned began
    while i < len(src):
        if text_start is not None:  # inside template text
            if src[i] == "\\":
                i += 2
            elif src[i] == "`":
                _blank(chars, text_start, i + 1)
                i, text_start, last = i + 1, None, "a"
            elif src.startswith("${", i):
                _blank(chars, text_start, i + 1)  # the text and the "$"; the "{" stays, as code
                depths.append(0)
                i, text_start, last = i + 2, None, "{"
            else:
                i += 1
            continue
        c = src[i]
        if src.startswith("//", i) or src.startswith("/*", i):
            end = src.find("\n", i) if c + src[i + 1] == "//" else src.find("*/", i + 2) + 2
            end = len(src) if end < 2 or end == -1 else end
            if comments is not None:
                comments.append(src[i:end])
            _blank(chars, i, end)
            i = end
        elif c in "'\"":
            end = _skip_quoted(src, i, c)
            _blank(chars, i, end)
            i, last = end, "a"
        elif c == "/" and last in REGEX_BEFORE:
            end = _skip_regex(src, i)
            _blank(chars, i, end)
            i, last = end, "a"
        elif c == "`":
            text_start, i = i, i + 1
        else:
            if c == "{" and depths:
                depths[-1] += 1
            elif c == "}" and depths:
                if depths[-1] == 0:  # the "}" that closes a ${…}: it stays, and the template text goes on
                    depths.pop()
                    text_start, i = i + 1, i + 1
                    continue
                depths[-1] -= 1
            if not c.isspace():
                last = c if not (c.isalnum() or c in "_$") else "a"
            i += 1
    if text_start is not None:
        _blank(chars, text_start, len(src))
    return "".join(chars)


def python_comments(src):
    """The text of every comment and docstring of Python source."""
    import ast
    out = [tok.string for tok in tokenize.generate_tokens(io.StringIO(src).readline) if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(ast.get_docstring(node) or "")
    return out


def comments(path):
    """The comments (and Python docstrings) of a source file, by its suffix: .py, .js/.mjs, .css, .wat."""
    src = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        return python_comments(src)
    if path.suffix in (".js", ".mjs", ".css"):
        found = []
        blank_js(src, found)
        return found
    if path.suffix == ".wat":
        return [line.split(";;", 1)[1] for line in src.splitlines() if ";;" in line]
    raise ValueError(f"no comment syntax known for {path}")
