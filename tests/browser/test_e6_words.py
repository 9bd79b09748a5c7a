"""E6's report in the page's words, on the measurement lab's page (lab.html): docs/lab.md writes every
paragraph of it, with blanks ([[ run.x ]]) and every wording of each decision ([% pick run.x %]); the widget fills
them (c13-util.js say; its tables' captions, column heads and row names likewise, sayTable). Here, in Chromium and
without running the models: every combination of every paragraph's cases fills into a sentence with no blank or pick
left and no doubled or empty punctuation, says which cases it took, and a value or case the page lacks is refused by
name."""
import re

import pytest
from browserlib import WIDE, opened
from faultlib import configure, settle_e6, start_e6

from tests.pages.test_picks import BROKEN

FILL = """async ([name, values]) => {
  const { say, sayTable } = await import(new URL('assets/c13/c13-util.js', document.baseURI).href);
  const inside = document.querySelector('#e6 [data-words]');
  const table = inside.querySelector(`[data-say="${name}"] table`);
  if (table) {  // a table (in the shape the page gives it): its caption, heads and row names, a line each
    const t = sayTable(inside, name, values, table.tBodies[0].rows.length, table.tHead.rows[0].cells.length);
    return { text: [t.caption, ...t.head, ...t.labels].join('\\n'), left: 0, picked: t.picked, cls: 'probe',
             rows: t.labels.length };
  }
  const node = say(inside, name, values, 'probe');
  return { text: node.textContent, left: node.querySelectorAll('[data-run], [data-pick]').length,
           picked: node.dataset.picked, cls: node.className };
}"""

REFUSED = """async ([name, values]) => {
  const { say } = await import(new URL('assets/c13/c13-util.js', document.baseURI).href);
  try { say(document.querySelector('#e6 [data-words]'), name, values, 'probe'); return null; }
  catch (err) { return err.message; }
}"""


def paragraphs(page):
    """{name: (blank paths, [(pick path, [cases])])} of E6's words as the built page has them."""
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#e6 [data-words] [data-say]')]
      .map((p) => {
        const picks = {};
        for (const s of p.querySelectorAll('[data-pick]')) (picks[s.dataset.pick] ??= []).push(s.dataset.case);
        return [p.dataset.say, [[...new Set([...p.querySelectorAll('[data-run]')].map((s) => s.dataset.run))],
                                Object.entries(picks)]];
      }))""")


def combos(picks):
    out = [{}]
    for path, cases in picks:
        out = [dict(c, **{path: case}) for c in out for case in cases]
    return out


def test_every_case_of_every_paragraph_fills_into_a_sentence(lab):
    page, _ = lab
    said = paragraphs(page)
    assert {"regime", "c", "v", "end_to_end"} <= set(said)
    for name, (blanks, picks) in said.items():
        for combo in combos(picks):
            values = {b: 3 for b in blanks} | {p: (k == "yes") if k in ("yes", "no") else k  # 3: num wants a whole one
                                               for p, k in combo.items()}
            out = page.evaluate(FILL, [name, values])
            assert out["left"] == 0 and out["cls"] == "probe", (name, combo)
            assert out["text"].strip() and BROKEN.findall(out["text"]) == [], (name, combo, out["text"])
            lines = out["text"].split("\n")
            assert "rows" not in out or (out["rows"] and all(line.strip() for line in lines)), out
            # the cases it took are the combination's: all of them, less the picks nested in a case not taken
            took = set(out["picked"].split())
            assert took <= {f"{p}={k}" for p, k in combo.items()} and (took or not combo), (name, combo, took)
            assert not re.search(r"undefined|NaN|null", out["text"]), out["text"]


def test_a_missing_value_or_case_is_refused_by_name(lab):
    page, _ = lab
    blanks, picks = paragraphs(page)["regime"]
    values = {b: 1.0 for b in blanks} | {p: cases[0] if cases[0] not in ("yes", "no") else True
                                         for p, cases in picks}
    assert page.evaluate(FILL, ["regime", values])["left"] == 0
    missing = dict(values)
    del missing[blanks[0]]
    assert blanks[0] in page.evaluate(REFUSED, ["regime", missing])
    path = next(p for p, cases in picks if "yes" not in cases)
    assert path in page.evaluate(REFUSED, ["regime", dict(values, **{path: "nowhere"})])
    assert "nowhere_said" in page.evaluate(REFUSED, ["nowhere_said", values])
    # a table whose shape is not the widget's is refused, naming the table and both shapes
    refused = page.evaluate("""async () => {
      const { sayTable } = await import(new URL('assets/c13/c13-util.js', document.baseURI).href);
      try { sayTable(document.querySelector('#e6 [data-words]'), 'split_table', {}, 99, 3); return null; }
      catch (err) { return err.message; } }""")
    assert refused and "split_table" in refused and "99 行" in refused, refused


@pytest.mark.slow("E6 runs the models in Chromium once")
def test_the_reports_tables_take_every_caption_head_and_row_name_from_the_page(browser, served):
    """The page's table words marked (★ after each) before a run: every caption, column head and row name of the
    report's tables carries the mark, so none is written in the widget's code."""
    with opened(browser, served + "lab.html", viewport=WIDE) as (page, _):
        blocks = page.evaluate("""() => {
            const blocks = [...document.querySelectorAll('#e6 [data-words] [data-say]')]
                .filter((b) => b.querySelector('table'));
            for (const b of blocks) {
                b.querySelectorAll('p, thead th, tbody td:first-child').forEach((n) => n.append('★'));
            }
            return blocks.length; }""")
        configure(page, k=2, temperature=0, n_new=16)
        start_e6(page)
        assert settle_e6(page)["state"] == "done", page.inner_text("#e6 .c13-e6-progress")
        tables = page.evaluate("""() => [...document.querySelectorAll('#e6 .c13-e6-report table')].map((t) =>
            [...t.querySelectorAll('caption, thead th, tbody th')].map((x) => x.textContent))""")
    assert blocks >= 6 and len(tables) == blocks, (blocks, len(tables))
    unmarked = [text for table in tables for text in table if not text.endswith("★")]
    assert unmarked == [], f"words of the report's tables not taken from the page: {unmarked}"
