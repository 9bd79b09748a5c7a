"""What a reader sees of a built page, measured in the browser: the Chinese characters of the article
in its default state (every fold closed, the live experiments started) and with every fold open, its sentences and
their lengths, and its height in screens. Used by tests/browser/test_lesson_length.py and benchmarks/lesson_length.py.

A sentence is a run of the rendered text ending in 。！？, a line break or a table cell; its length counts every
character but white space. Formulas count once (KaTeX's hidden MathML copy is left out).
"""
import re

HAN = re.compile(r"[\u4e00-\u9fff]")
SENTENCE_END = re.compile(r"(?<=[。！？])|[\n\t]")

# the article's text as the reader sees it: innerText leaves out what is hidden and the body of a closed <details>
ARTICLE_TEXT = """(open) => {
    const style = document.createElement('style');
    style.textContent = '.katex-mathml { display: none !important; }';
    document.head.append(style);
    const closed = [...document.querySelectorAll('article details:not([open])')];
    if (open) closed.forEach((d) => { d.open = true; });
    const text = document.querySelector('article').innerText;
    if (open) closed.forEach((d) => { d.open = false; });
    style.remove();
    return text;
}"""


def sentences(text):
    return [s for s in (re.sub(r"\s+", "", part) for part in SENTENCE_END.split(text)) if s]


def measure(page):
    """The figures of the page open in `page` (a Playwright page, its experiments ready)."""
    shown = page.evaluate(ARTICLE_TEXT, False)
    every = page.evaluate(ARTICLE_TEXT, True)
    lengths = sorted((len(s) for s in sentences(shown)), reverse=True)
    height = page.evaluate("document.documentElement.scrollHeight")
    screen = page.viewport_size["height"]
    return {"han": len(HAN.findall(shown)), "han_open": len(HAN.findall(every)),
            "sentences": sentences(shown), "lengths": lengths, "screens": height / screen}


# the shown Chinese characters under each heading (h2 and h3), in page order
BY_SECTION = """() => {
    const style = document.createElement('style');
    style.textContent = '.katex-mathml { display: none !important; }';
    document.head.append(style);
    const out = [];
    const heads = [...document.querySelectorAll('article h1, article h2, article h3')];
    const han = (s) => (s.match(/[\u4e00-\u9fff]/g) || []).length;
    // each heading's share: the text between it and the next heading, as innerText shows it
    const range = document.createRange();
    for (let i = 0; i < heads.length; i += 1) {
        range.setStartBefore(heads[i]);
        if (i + 1 < heads.length) range.setEndBefore(heads[i + 1]);
        else range.setEndAfter(document.querySelector('article').lastChild);
        const box = document.createElement('div');
        box.style.position = 'absolute'; box.style.left = '-99999px'; box.style.width = '800px';
        box.append(range.cloneContents());
        document.body.append(box);
        out.push([heads[i].innerText.replace('¶', '').trim(), han(box.innerText)]);
        box.remove();
    }
    style.remove();
    return out;
}"""
