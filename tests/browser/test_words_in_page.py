"""The lesson's experiments say what the page writes: E1's words for each cell and E2's paragraphs in its tabs are
paragraphs of docs/index.md (<div data-say=…> in each experiment's hidden words block), filled by c13-util.js say,
not sentences held in the widgets' code. Served with every such paragraph marked (★ at its start), the live
experiments show the mark on each of them."""
import re

from browserlib import WIDE, opened

MARK = "★"


def marked(route):
    """index.html with ★ at the start of every paragraph of the experiments' words blocks."""
    response = route.fetch()
    body = re.sub(r'(<div data-say="\w+">\s*<p>)', rf"\1{MARK}", response.text())
    route.fulfill(response=response, body=body)


def test_e1_and_e2_take_their_words_from_the_page(browser, served):
    with opened(browser, served + "index.html", viewport=WIDE, routes=[("**/index.html", marked)]) as (page, _):
        said = page.eval_on_selector_all("#e1 [data-words] [data-say], #e2 [data-words] [data-say]",
                                         "ds => ds.map((d) => [d.closest('section').id, d.dataset.say])")
        cells = [name for where, name in said if where == "e1"]
        assert len(cells) >= 9 and all(name.startswith("cell_") for name in cells), cells
        for name in cells:
            page.click(f"#e1 g.c13-cell[data-cell={name[len('cell_'):]}] >> visible=true")
            words = page.inner_text("#e1 .c13-e1-panel p:not(.c13-e1-name)")
            assert words.startswith(MARK), f"E1's words for {name} are not the page's: {words[:60]}"
        e2 = page.eval_on_selector_all("#e2 .c13-live p", f"ps => ps.filter((p) => p.textContent.startsWith('{MARK}'))"
                                       ".length")
        assert e2 == len([name for where, name in said if where == "e2"]), (e2, said)
