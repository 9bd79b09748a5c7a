"""The page outside the experiments, as built: the papers in Chinese (from papers.json), the 404 page, the
provenance recipe and corpus, small sentences of the prose, prompts in a box, readable math in the search
index, the JavaScript-off line of each experiment and no empty table header."""
import json
import re

from generator import contract
from generator.pages import formats
from generator.pages.search_text import readable_math
from tests.sitelib import ROOT, our_pages, page_text, read, visible_text

PAPERS = ROOT / "precomputed" / "papers.json"


def test_papers_json_has_chinese_beside_each_english_text_the_page_shows(tmp_path):
    entries = contract.load_papers(PAPERS)["entries"]
    for entry in entries:
        assert entry["setting_zh"] and entry["setting"]  # the English source wording stays
        for fig in entry["figures"]:
            assert fig["what_zh"] and fig["where_zh"] and fig["where"]
    broken = json.loads(PAPERS.read_text(encoding="utf-8"))
    del broken["entries"][0]["figures"][0]["where_zh"]
    path = tmp_path / "papers.json"
    path.write_text(json.dumps(broken, ensure_ascii=False), encoding="utf-8")
    try:
        contract.load_papers(path)
    except contract.InputError as e:
        assert "figures[0].where_zh" in str(e)
    else:
        raise AssertionError("a figure without its Chinese source was accepted")


def test_the_papers_table_and_list_are_in_chinese_with_the_original_titles(site):
    """The page reads the papers through c13.json: regenerate it (make data) after papers.json changes."""
    entries = contract.load_papers(PAPERS)["entries"]
    for name in ("index.html", "provenance.html"):
        text = page_text(site / name)
        for entry in entries:
            assert entry["work"] in text, f"{name}: the original title of {entry['id']} is missing"
            assert entry["setting_zh"] in text, f"{name}: {entry['id']}'s setting is not in Chinese"
            assert entry["setting"] not in text, f"{name}: English setting of {entry['id']}"
            if "also" in entry:  # the table shows the note where an entry has no figure; the list always
                assert entry["also"] not in text, f"{name}: English note of {entry['id']}"
                if name == "provenance.html" or not entry["figures"]:
                    assert entry["also_zh"] in text, f"{name}: {entry['id']}'s note is not in Chinese"
            for fig in entry["figures"]:
                assert fig["what_zh"] in text and fig["where_zh"] in text, f"{name}: {fig['what']}"
                assert fig["what"] not in text, f"{name}: English figure name {fig['what']!r}"
                if fig["where"] != fig["where_zh"]:
                    assert fig["where"] not in text, f"{name}: English source {fig['where']!r}"


def test_the_404_page_is_in_chinese_and_points_to_every_page(site):
    page = read(site / "404.html")
    text = page_text(site / "404.html")
    assert "Not found" not in text and "404" in text and "没有这一页" in text
    assert 'href="index.html"' in page and 'href="lab.html"' in page and 'href="provenance.html"' in page


def test_the_recipe_reads_in_order_and_counts_have_separators(site, data):
    page = read(site / "provenance.html")
    recipe = re.search(r'id="recipe".*?<tbody>(.*?)</tbody>', page, re.S).group(1)
    labels = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<tr>\s*<td>(.*?)</td>", recipe, re.S)]
    assert labels[:3] == ["层数", "注意力头数", "各模型宽度"], labels   # model shape first, not a-z by key
    assert labels.index("训练步数") < labels.index("峰值学习率") < labels.index("数据顺序种子")
    text = page_text(site / "provenance.html")
    corpus, card = data["card"]["corpus"], data["card"]["recipe"]
    for key in ("characters_unwrapped", "tokens", "train_tokens", "heldout_tokens"):
        assert formats.num(corpus[key]) in text
        if corpus[key] >= 1000:
            assert not re.search(rf"(?<![\d,]){corpus[key]}(?![\d,])", text), f"{key} printed without separators"
    assert formats.num(card["steps"]) in text
    assert re.search(rf"数据顺序种子\s+{card['data_seed']}\s", text), "a seed is a name, not a count: as written"


def test_the_greedy_sentence_has_no_stray_space_and_the_set_is_written_as_a_set(site, data):
    text = page_text(site / "index.html")
    greedy = data["greedy"]
    ks = "{" + ", ".join(str(k) for k in greedy["ks"]) + "}"
    assert f"k ∈ {ks}" in text
    m = re.search(rf"{greedy['identical']}/{greedy['total']}\s*次。(\s*)(\S)", text)
    assert m and m.group(1) == "", "a space after 次。 before the next sentence"


def test_prompts_are_shown_in_a_box_not_between_brackets(site, data):
    page = read(site / "index.html")
    text = page_text(site / "index.html")
    for prompt in data["distributions"]:
        assert f'<code class="c13-prompt">{prompt}</code>' in page
        assert f"「{prompt}」" not in text, f"「{prompt}」 reads as unbalanced brackets: use the prompt filter"


def test_the_search_index_holds_readable_math(site):
    index = json.loads(read(site / "search" / "search_index.json"))
    text = " ".join(d["title"] + " " + d["text"] for d in index["docs"])
    assert not re.search(r"\\[()\[\]]|\\[A-Za-z]+", text), re.search(r".{40}\\[A-Za-z(\[].{40}", text).group(0)
    assert "min(1, p/q)" in text and "max(0, p(x)-q(x))" in text
    assert "htmlData" not in text and "term=" not in text
    # the inlined copy for file:// readers is the same
    inline = read(site / "search" / "search_index.js")
    assert "\\\\(" not in inline and "\\\\alpha" not in inline and "\\\\frac" not in inline


def test_readable_math_of_the_forms_the_pages_use():
    assert readable_math(r"\min(1, p/q)") == "min(1, p/q)"
    assert readable_math(r"\frac{1-\alpha^{k+1}}{1-\alpha}") == "(1-αᵏ⁺¹)/(1-α)"
    assert readable_math(r"\frac{p(x)}{q(x)}") == "p(x)/q(x)"
    assert readable_math(r"\sum_x p(x)\,q(x)") == "Σₓ p(x) q(x)"
    assert readable_math(r'\tilde P(x) \mathrel{\char"2260} p(x)') == "P̃(x) ≠ p(x)"
    assert readable_math(r"\underbrace{(1-\alpha)}_{\text{(B)}} \cdot \mathrm{residual}(x)") == "(1-α) · residual(x)"
    assert readable_math(r"f_{\text{target}}") == "f_(target)"
    assert readable_math(r"\htmlData{term=B}{\underbrace{(1-\alpha)}_{\text{(B)}}}") == "(1-α)"


def test_each_experiment_has_a_line_for_readers_without_javascript(site):
    for name, experiments in (("index.html", ("e1", "e2", "e3", "e4", "e5")), ("lab.html", ("e6",))):
        page = read(site / name)
        for e in experiments:
            body = re.search(rf'<section\b[^>]*\bid="{e}"[^>]*>(.*?)</section>', page, re.S).group(1)
            m = re.search(r'<noscript><p class="c13-exp-noscript">(.*?)</p></noscript>', body, re.S)
            assert m and "JavaScript" in m.group(1) and "静态版本" in m.group(1), f"{name}: {e}"


def test_no_table_header_is_empty(site):
    for p in our_pages(site):
        for th in re.findall(r"<th\b[^>]*>(.*?)</th>", read(p), re.S):
            assert re.sub(r"<[^>]+>", "", th).strip(), f"{p.name}: an empty table header"


# Markdown that was not rendered: a list item run into the sentence before it («…。- **它卡在哪里**»), bold marks
UNRENDERED = re.compile(r"[。；：！？）]\s*-\s+\S|\*\*\S")


def test_no_markdown_shows_as_text(site):
    """A template tag that drops the newline before a list item («[% endif %]» at a line's end) runs the item into
    the sentence above; the built article shows no list marker or bold mark as text."""
    for p in our_pages(site):
        article = re.search(r"<article\b.*?</article>", read(p), re.S)
        if not article:
            continue
        text = visible_text(article.group(0))
        shown = [text[max(0, m.start() - 40):m.end() + 20] for m in UNRENDERED.finditer(text)]
        assert not shown, f"{p.name}: Markdown shown as text: {shown}"
