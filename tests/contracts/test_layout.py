"""The house's layout rules, checked on the source itself: small files and functions, stages that only look back.

- A source file does one job: at most 400 lines (Python, JavaScript, CSS, the Node scripts).
- A function reads in one sitting: at most 80 lines (Python by its syntax tree, JavaScript by its braces).
- One way through: corpus → models → c13.json → pages → browser. Code of a stage imports nothing of a later stage,
  and the pages import nothing of the models or the data stage (nor torch): they read c13.json only. Only the
  command line (generator/cli.py) chains the stages.
"""
import ast
import re

import pytest

from tests.conftest import ROOT
from tests.sourcelib import blank_js

SOURCE_DIRS = ("generator", "widgets", "benchmarks", "tests")
SOURCE_SUFFIXES = {".py", ".js", ".mjs", ".css"}
MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 80


def source_files(suffixes=SOURCE_SUFFIXES):
    for folder in SOURCE_DIRS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in suffixes and path.is_file() and "__pycache__" not in path.parts:
                yield path


def rel(path):
    return path.relative_to(ROOT).as_posix()


def test_no_source_file_is_over_400_lines():
    long = [f"{rel(p)}: {n} lines" for p in source_files()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_FILE_LINES]
    assert not long, "split these files by concern:\n" + "\n".join(long)


def python_functions(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node.lineno, node.end_lineno - node.lineno + 1


def test_no_python_function_is_over_80_lines():
    long = [f"{rel(p)}:{line} {name}() is {n} lines" for p in source_files({".py"})
            for name, line, n in python_functions(p) if n > MAX_FUNCTION_LINES]
    assert not long, "\n".join(long)


JS_FUNCTION = re.compile(r"(?:\bfunction\b\s*\*?\s*([\w$]*)\s*\([^)]*\)|(?:\(([^()]*)\)|\b([\w$]+))\s*=>"
                         r"|^[ \t]*(?:async[ \t]+|static[ \t]+|get[ \t]+|set[ \t]+)*(?!(?:if|for|while|switch|catch)\b)"
                         r"([\w$]+)[ \t]*\([^)]*\))\s*\{", re.M)


def js_functions(text):
    """(name, first line, length in lines) of every braced function body in a JavaScript source."""
    code = blank_js(text)
    for m in JS_FUNCTION.finditer(code):
        start = m.end() - 1
        depth = 0
        for j in range(start, len(code)):
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            if depth == 0:
                break
        first = code.count("\n", 0, m.start()) + 1
        last = code.count("\n", 0, j) + 1
        yield m.group(1) or m.group(3) or m.group(4) or "(arrow function)", first, last - first + 1


def test_the_javascript_function_measure_finds_a_long_function():
    body = "\n".join(f"  x += {i};" for i in range(90))
    sample = (f"const s = '{{';\nexport function big(a) {{\n{body}\n}}\nconst f = (b) => {{ return b; }};\n"
              f"class Host {{\n  method(x) {{\n{body}\n  }}\n}}\n")
    found = {name: n for name, _, n in js_functions(sample)}
    assert found["big"] == 92 and found["(arrow function)"] == 1 and found["method"] == 92


def test_no_javascript_function_is_over_80_lines():
    long = [f"{rel(p)}:{line} {name} is {n} lines" for p in source_files({".js", ".mjs"})
            for name, line, n in js_functions(p.read_text(encoding="utf-8")) if n > MAX_FUNCTION_LINES]
    assert not long, "\n".join(long)


# What each stage may import of the project (and torch): a stage looks back, never forward; the shared modules
# (contract, errors, jsonio, atomic, shared_sampler: widgets/sampler.py, which both stages run, and speedup: the
# lesson's formula, which both stages compute with) belong to none.
ALLOWED = {
    "generator/models": {"generator.models", "generator.errors", "generator.jsonio", "generator.atomic", "torch"},
    "generator/data": {"generator.models", "generator.data", "generator.contract", "generator.errors",
                       "generator.jsonio", "generator.atomic", "generator.shared_sampler", "generator.speedup",
                       "torch"},
    "generator/pages": {"generator.pages", "generator.contract", "generator.errors", "generator.jsonio",
                        "generator.atomic", "generator.shared_sampler", "generator.speedup"},
}


def imported_modules(path, package):
    """Absolute names of the project modules (and torch) a Python file imports, relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - node.level]
                names = [".".join(base + ([node.module] if node.module else []))]
                if not node.module:
                    names = [f"{names[0]}.{a.name}" for a in node.names]
            else:
                names = [node.module]
        else:
            continue
        for name in names:
            if name.startswith("generator") or name.split(".")[0] == "torch":
                yield node.lineno, name


@pytest.mark.parametrize("stage", sorted(ALLOWED))
def test_a_stage_imports_only_what_comes_before_it(stage):
    allowed = ALLOWED[stage]
    wrong = []
    for path in sorted((ROOT / stage).rglob("*.py")):
        package = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for line, name in imported_modules(path, package):
            if not any(name == a or name.startswith(a + ".") for a in allowed):
                wrong.append(f"{rel(path)}:{line} imports {name}")
    assert not wrong, "\n".join(wrong)


def test_the_import_check_sees_a_forward_import(tmp_path):
    sample = tmp_path / "build.py"
    sample.write_text("from ..data.precompute import generate\nimport torch\n", encoding="utf-8")
    assert list(imported_modules(sample, "generator.pages.build")) == [
        (1, "generator.data.precompute"), (2, "torch")]


# a path of the repository as comments name it: a top-level folder of ours, then at least one more part
NAMED_PATH = re.compile(r"(?<![\w./-])((?:generator|widgets|tests|benchmarks|docs|precomputed|models|overrides)"
                        r"/[\w.-]+(?:/[\w.-]+)*/?)")


@pytest.mark.slow("every source file read for the paths its comments name")
def test_every_repository_path_a_comment_names_exists():
    """A comment that points a reader at a file must point at one that is there: paths in comments and
    docstrings of the code, the tests and the kernels, checked against the tree."""
    from tests.sourcelib import comments
    files = [p for p in source_files({".py", ".js", ".mjs", ".css"}) if "node_modules" not in p.parts]
    files += sorted((ROOT / "widgets").rglob("*.wat"))
    named = 0
    gone = []
    for path in files:
        for text in comments(path):
            for m in NAMED_PATH.finditer(text):
                named += 1
                name = m.group(1).rstrip(".")
                if not (ROOT / name).exists():
                    gone.append(f"{rel(path)}: {name}")
    assert named > 50, "the scan found almost no paths: is the pattern still right?"
    assert not gone, "comments name paths that do not exist:\n" + "\n".join(gone)


def test_the_widgets_name_no_model():
    """The browser learns the models' names from the data (c13.json → constants, through the page), so that a draft
    renamed in generator/models/family.py needs no edit in widgets/."""
    from generator.models.family import DRAFTS, TARGET
    named = [f"{rel(p)}: {name}" for p in source_files({".py", ".js", ".mjs", ".css"}) if rel(p).startswith("widgets/")
             for name in (TARGET, *DRAFTS) if name in p.read_text(encoding="utf-8")]
    assert not named, "\n".join(named)
