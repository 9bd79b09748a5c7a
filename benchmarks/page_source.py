"""Measure how much of the lesson's page source is template, and how long its blanks are.

    .venv/bin/python benchmarks/page_source.py [docs/index.md ...]

Prints, per page: the share of characters inside [[ ]] and [% %] (comments [# #] are left out of
both sides), the blanks and statements over 40 characters, the longest line and the lines over 400
characters; then the Chinese characters written in generator/pages/*.py and widgets/e6/*.js.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HAN = re.compile(r"[\u4e00-\u9fff]")


def measure(path):
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"\[#.*?#\]", "", text, flags=re.S)
    blanks = re.findall(r"\[\[.*?\]\]", text, flags=re.S)
    tags = re.findall(r"\[%.*?%\]", text, flags=re.S)
    total = len(text)
    b = sum(map(len, blanks))
    t = sum(map(len, tags))
    long_ones = [x for x in blanks + tags if len(x.strip("[]%").strip()) > 40]
    lines = text.split("\n")
    print(f"{path.relative_to(ROOT)}: {total:,} characters, {len(lines)} lines")
    print(f"  [[ ]] {len(blanks)} blanks, {b:,} characters ({b / total:.1%})")
    print(f"  [% %] {len(tags)} statements, {t:,} characters ({t / total:.1%})")
    print(f"  template in all: {(b + t) / total:.1%}")
    print(f"  blanks or statements over 40 characters: {len(long_ones)}"
          + (f" (longest {max(len(x.strip('[]%').strip()) for x in long_ones)})" if long_ones else ""))
    print(f"  longest line: {max(map(len, lines)):,}; lines over 400: {sum(len(l) > 400 for l in lines)}")
    return long_ones


def chinese(pattern):
    for f in sorted(ROOT.glob(pattern)):
        n = len(HAN.findall(f.read_text(encoding="utf-8")))
        if n:
            print(f"  {f.relative_to(ROOT)}: {n}")


if __name__ == "__main__":
    pages = [Path(p).resolve() for p in sys.argv[1:] if p != "-v"] or sorted((ROOT / "docs").glob("*.md"))
    for page in pages:
        long_ones = measure(page)
        if "-v" in sys.argv:
            for x in long_ones:
                print("    ", x)
    print("Chinese characters in code:")
    chinese("generator/pages/*.py")
    chinese("widgets/e6/*.js")
