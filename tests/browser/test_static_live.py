"""Each figure has one renderer: the markup a widget draws live equals the build-time markup of the same figure.

The static version is read from the page with JavaScript off (as a reader without it gets it); the live one
from the page with the widgets running, right after they start (E4 at its last step, where the whole text is
shown). Ids differ by design (each live drawing has its own) and so do the attributes the widgets add for
behaviour (focus, pressed state, visibility); both are normalised away, and so are the line breaks that
Markdown writes between block elements of a raw HTML block (the figure modules never write a line break).
"""
import re

import pytest
from browserlib import WIDE, opened

# attributes that the widgets attach to drawn elements for behaviour, never drawn by the figure modules
BEHAVIOUR_ATTRIBUTES = ("tabindex", "aria-pressed", "aria-label", "role", "hidden")
BEHAVIOUR_CLASSES = ("c13-round-now",)

# (experiment, static selector on the page without JavaScript, live selector with the widgets running)
FIGURES = [
    ("e1", "#e1-path", "#e1 figure .c13-path"),  # both layouts of the drawing (wide and narrow)
    ("e2", "#e2-stack-0-0", "#e2 .c13-e2-picture .c13-duo"),  # both layouts of the picture (wide and narrow)
    ("e3", "#e3-real", "#e3 .c13-e3-picture .c13-tensor"),
    ("e4", "#e4 .c13-replay-out", "#e4 .c13-live .c13-replay-out"),
]


def normalise(markup):
    """The markup with the root's id (and every id or reference built on it) and the behaviour removed."""
    root = re.match(r'<[a-z]+\b[^>]*?\sid="([^"]+)"', markup)
    if root:
        markup = markup.replace(root.group(1), "ID")
    markup = re.sub(r'\s(?:%s)(?:="[^"]*")?(?=[\s/>])' % "|".join(BEHAVIOUR_ATTRIBUTES), "", markup)
    for cls in BEHAVIOUR_CLASSES:
        markup = re.sub(r'(class="[^"]*?)\s*\b%s\b' % cls, r"\1", markup)
    return re.sub(r">\n+<", "><", markup)


@pytest.fixture(scope="module")
def static_markup(browser, served):
    with opened(browser, served + "index.html", viewport=WIDE, java_script_enabled=False) as (page, _):
        yield {e: page.eval_on_selector(selector, "node => node.outerHTML") for e, selector, _ in FIGURES} | {
            "e5": page.eval_on_selector("#e5-plot", "node => node.outerHTML")}


def test_normalise_removes_ids_and_behaviour_only():
    drawn = '<svg id="e1-path-3" aria-labelledby="e1-path-3-t"><g class="c13-cell" data-cell="read" tabindex="0" ' \
            'role="button" aria-pressed="true"><rect fill="url(#e1-path-3-arrow)"/></g></svg>'
    assert normalise(drawn) == '<svg id="ID" aria-labelledby="ID-t"><g class="c13-cell" data-cell="read">' \
                               '<rect fill="url(#ID-arrow)"/></g></svg>'
    assert normalise('<span class="c13-round-tokens c13-round-now" data-round="2" hidden="">') == \
        '<span class="c13-round-tokens" data-round="2">'
    # a different drawing stays different
    assert normalise('<svg id="a"><rect x="1"/></svg>') != normalise('<svg id="b"><rect x="2"/></svg>')


@pytest.mark.parametrize("experiment,static_selector,live_selector", FIGURES)
def test_the_live_figure_is_the_build_time_figure(lesson, static_markup, experiment, static_selector, live_selector):
    page, _ = lesson
    if experiment == "e4":
        page.click("#e4 .c13-e4-bar button >> nth=4")  # the last step: every round of the text is shown
    live = page.eval_on_selector(live_selector, "node => node.outerHTML")
    static = static_markup[experiment]
    assert len(static) > 500, f"{experiment}: the build-time figure is missing or empty"
    assert normalise(live) == normalise(static), f"{experiment}: the live figure differs from the build-time one"


def test_the_speedup_plot_drawn_in_the_browser_is_the_build_time_one(lesson, static_markup):
    page, _ = lesson
    live = page.evaluate("""async () => {
        const data = JSON.parse(document.getElementById('c13-widget-data').textContent);
        const { speedupPlot } = await import(new URL('assets/c13/figures/speedup.mjs', document.baseURI).href);
        const names = Object.fromEntries(data.drafts.map((d) => [d, `${d}（${data.roles[d]}）`]));
        return speedupPlot({ accounting: data.accounting.drafts, drafts: data.drafts, names, id: 'e5-plot' });
    }""")
    parsed = page.evaluate("m => { const t = document.createElement('template'); t.innerHTML = m; "
                           "return t.content.firstElementChild.outerHTML; }", live)
    assert normalise(parsed) == normalise(static_markup["e5"])
    assert parsed.count("<svg") == 2, "the plot comes in its wide and its narrow layout"
