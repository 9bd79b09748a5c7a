"""Every term of the lesson is defined once, in a line, before its first use on the built lesson page:
the article's text in reading order (folds included: a reader may open them), each term's defining words found
once, and no use of the term before the sentence that defines it."""
import html
import re

import pytest

from tests.sitelib import ROOT, read

# term → (its defining words, which occur once on the page; how the page uses it)
TERMS = {
    "TV": (r"总变差距离（TV）：", r"\bTV\b"),
    "锚点": (r"当锚点（", r"锚点"),
    "屋顶线": (r"屋顶线（roofline）下界：", r"屋顶线|roofline"),
    "残差": (r"残差（p 超出 q 的那部分", r"残差|residual"),
    "α": (r"记作 α = Σ min", r"α"),
    "c": (r"代价是目标的 c 倍", r"(?<![\w.\-/])c(?= ?[=·倍]| ?k ?\+|k\+)|代价 c"),
    "v(k)": (r"的代价记作 v\(k\)", r"v\(k\)|(?<![\w.\-/])v ?[=≈]"),
}
SENTENCE_START = re.compile(r"[。！？\n]")


def article_text(path):
    """The lesson's article as text in reading order: no scripts, styles or MathML copies of the formulas (KaTeX's
    visible rendering stays), tags dropped without a gap so that v(k) reads as written."""
    page = read(path)
    page = page[page.index("<article"):page.index("</article>")]
    page = re.sub(r"<(script|style|math|annotation)\b.*?</\1>", "", page, flags=re.S)
    page = re.sub(r"<(p|li|dt|dd|h\d|tr|div|figcaption|summary)\b[^>]*>", "\n", page)
    return html.unescape(re.sub(r"<[^>]+>", "", page))


@pytest.fixture(scope="module")
def text(site):
    return article_text(site / "index.html")


@pytest.mark.parametrize("term", TERMS)
def test_a_term_is_defined_once_before_its_first_use(text, term):
    defining, used = TERMS[term]
    found = [m.start() for m in re.finditer(defining, text)]
    assert len(found) == 1, f"{term}: its definition ({defining}) is on the page {len(found)} times, not once"
    begins = max((m.end() for m in SENTENCE_START.finditer(text, 0, found[0])), default=0)
    first = re.search(used, text)
    assert first and first.start() >= begins, (
        f"{term} is used before the sentence that defines it: …{text[max(0, first.start() - 60):first.start() + 20]}…")


def test_the_check_finds_a_use_before_a_definition():
    """The test itself: a use moved before the definition is found."""
    defining, used = TERMS["TV"]
    text = "先说 TV 的大小。再定义：总变差距离（TV）：差的一半。"
    begins = max(m.end() for m in SENTENCE_START.finditer(text, 0, re.search(defining, text).start()))
    assert re.search(used, text).start() < begins


# the residual's other notations: norm(max(0, p − q)), (p − q)⁺
OTHER_RESIDUALS = re.compile(r"norm\(max|\(p\s*[−-]\s*q\)\s*(?:⁺|\^\+)")
COMMENT = re.compile(r"^\s*(?://|/\*|\*)")  # a widget's comment line, which no reader sees


def test_the_residual_is_written_one_way_on_the_page_and_in_its_widgets():
    """residual(x) (or 残差) wherever the lesson or its experiments show it; max(0, p − q) is named once, in its
    definition. The widgets' words are in their code, so their sources are read too."""
    sources = [ROOT / "docs" / "index.md", *sorted(ROOT.glob("widgets/**/*.js")),
               *sorted(ROOT.glob("widgets/**/*.mjs"))]
    other = [f"{path.relative_to(ROOT)}:{n}" for path in sources
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if OTHER_RESIDUALS.search(line) and not COMMENT.match(line)]
    assert other == [], f"the residual written another way: {other}"
