"""The lesson page walked through as its text invites (benchmarks/walkthrough.py times it; test_walkthrough.py checks
that every step still does what the text says): each experiment from E1 to E5, every step done the way the prose
asks for it, the page's wait after each measured, and the Chinese characters each step brings onto the screen counted,
since a reader reads those as well."""
import re
import time

from browserlib import PYODIDE_TIMEOUT_MS, wait_ready

from tests.pagetext import HAN, sentences

RUN_TIMEOUT_MS = 600_000  # the TV curve's rerun of every point may take minutes on a slow machine

def promised_minutes(page):
    """The minutes the lesson's header promises («约 45 分钟»)."""
    found = re.search(r"约\s*(\d+)\s*分钟", page.inner_text(".c13-headline"))
    if not found:
        raise SystemExit("walkthrough: the lesson's header (.c13-headline) names no «约 N 分钟»")
    return int(found.group(1))


# the text of one experiment as the reader sees it (KaTeX's hidden MathML copy left out, as tests/pagetext.py does),
# but for the part `skip` names, which the step does not ask the reader to look at
SHOWN = """([selector, skip]) => {
    const style = document.createElement('style');
    style.textContent = '.katex-mathml' + (skip ? ', ' + skip : '') + ' { display: none !important; }';
    document.head.append(style);
    const text = document.querySelector(selector).innerText;
    style.remove();
    return text;
}"""


def until(page, condition, arg=None, timeout=PYODIDE_TIMEOUT_MS):
    page.wait_for_function(condition, arg=arg, timeout=timeout)


def press_and_finish(page, button, summary):
    """Press a run's button and wait for the run to end; a run that fails stops the walk. The summary's state is
    cleared first (as the widget clears it when the reader changes the pair), so a finished earlier run cannot pass
    for this one."""
    page.eval_on_selector(summary, "s => { delete s.dataset.state; }")
    page.click(button)
    until(page, f"['done', 'failed', 'cancelled'].includes(document.querySelector('{summary}').dataset.state)",
          timeout=RUN_TIMEOUT_MS)
    state = page.get_attribute(summary, "data-state")
    if state != "done":
        raise SystemExit(f"walkthrough: the run of {button} ended {state}: {page.inner_text(summary)[:200]}")


def other_radio(page, group):
    """The first radio of E2's group `group` (prefix, draft) that is not checked."""
    return page.eval_on_selector_all(f"#e2 .c13-controls input[name$='-{group}']",
                                     "xs => xs.find((x) => !x.checked).value")


def e1_cell(cell):
    def run(page):
        page.click(f"#e1 g.c13-cell[data-cell={cell}] >> visible=true")
        until(page, f"document.querySelector('#e1 g.c13-cell[data-cell={cell}]')"
              ".getAttribute('aria-pressed') === 'true'")
    return run


def e2_single_rounds(page):
    page.click("#e2 [role=tab] >> nth=2")
    for _ in range(3):
        page.click("#e2 [role=tabpanel] >> nth=2 >> text=跑一轮")
        until(page, "document.querySelector('#e2').dataset.running === 'false'"
              " && document.querySelector('#e2 .c13-panel:not([hidden]) .c13-round')?.dataset.record")
        yield


def e2_run(prediction, which):
    """Answer the prediction and press the `which`-th run button (0: the smaller run, 1: the larger)."""
    def run(page):
        page.check(f"#e2 .c13-predict input[value={prediction}]")
        press_and_finish(page, f"#e2 button[data-n] >> nth={which}", "#e2 [data-run=main]")
    return run


def e2_switch(group):
    def run(page):
        page.check(f"#e2 .c13-controls input[value='{other_radio(page, group)}']")
        page.wait_for_timeout(50)  # the pictures redraw at once; a frame for the reader's eye is all it takes
    return run


def e2_reproduce(page):
    press_and_finish(page, "#e2 .c13-repro-box button", "#e2 [data-run=repro]")


def e2_term(term):
    def run(page):
        page.click(f"#e2 .c13-term[data-term={term}]")
        until(page, "() => document.querySelector('#e2 .c13-term-entry')")
    return run


def tv_rerun(page):
    press_and_finish(page, "#tv .c13-tv-live button.md-button >> nth=0", "#tv .c13-tv-summary")


def pair_preset(page):
    page.click("#pair .c13-pair-preset:not([aria-pressed=true]) >> nth=0")
    until(page, "document.querySelector('#pair .c13-pair-stats').dataset.source === 'sampler'")


def pair_drag(page):
    page.focus("#pair .c13-pair-row[data-which=p] .c13-pair-bar >> nth=4")
    for _ in range(5):
        page.keyboard.press("ArrowUp")
    until(page, "document.querySelector('#pair .c13-pair-stats').dataset.source === 'sampler'")


def pair_run(page):
    press_and_finish(page, "#pair .c13-pair-run", "#pair [data-run=pair]")


def e3_scale(page):
    page.check("#e3 input[value=small]")
    page.fill("#e3 input[type=range]", page.get_attribute("#e3 input[type=range]", "max"))


def e4_rounds(page):
    """Every round of the replay, one press of 下一轮 at a time."""
    if page.get_attribute("#e4 .c13-e4-bar button >> nth=0", "aria-disabled") != "true":
        page.click("#e4 .c13-e4-bar button >> nth=0")
    while page.get_attribute("#e4 .c13-e4-bar button >> nth=3", "aria-disabled") != "true":
        page.click("#e4 .c13-e4-bar button >> nth=3")
        yield


def e4_motion(page):
    """The round's verification played from its first step; each step's line read as it appears."""
    figure = "#e4 .c13-verify-block .c13-verify"
    page.fill("#e4 .c13-verify-block .c13-v-slider", "1")
    yield
    page.click("#e4 .c13-verify-block .c13-v-controls button >> nth=1")
    step, steps = 1, int(page.get_attribute(figure, "data-steps"))
    while step < steps:
        until(page, f"(n) => Number(document.querySelector('{figure}').dataset.step) > n", arg=step,
              timeout=RUN_TIMEOUT_MS)
        step = int(page.get_attribute(figure, "data-step"))
        yield


def slider(page, name, value):
    page.fill(f"#e5 input[type=range][id$='-{name}']", str(value))


def speedup(page):
    """E5's speedup as its output reads it («1.80×»)."""
    return float(page.inner_text("#e5 output[id$='-speedup']").rstrip("×"))


def drag_down_until_below_one(page):
    """α down a step at a time (the slider's arrow key), until the speedup reads below 1× or α reaches 0."""
    alpha = "#e5 input[type=range][id$='-alpha']"
    page.focus(alpha)
    while speedup(page) >= 1 and float(page.input_value(alpha)) > 0:
        page.keyboard.press("ArrowLeft")


PRESETS = {"小草稿": 0, "大草稿": 1, "DeepSeek-V3": 2}  # E5's preset buttons, in the order the widget draws them
SLIDERS = {"α": "alpha", "c": "c", "k": "k"}
# what a try's text asks the reader to do, in the order it says it: press a preset («点“大草稿…”», «点回小草稿的预设»),
# drag a slider to a value («把 k 拖到 8»), drag α down until the speedup falls below 1× («再把 α 往下拖»)
ASKS = re.compile(r"点回?“?(?P<preset>小草稿|大草稿|DeepSeek-V3)|(?P<slider>[αck])\s*拖到\s*(?P<value>[0-9.]+)"
                  r"|(?P<down>α\s*往下拖)")


def follow(page, text):
    """Do what a try's question asks, in its order; → what was done, for a message. A try that asks nothing this
    knows stops the walk, naming it."""
    done = []
    for m in ASKS.finditer(text.split("答案")[0]):
        if m["preset"]:
            page.click(f"#e5 .c13-e5-presets button >> nth={PRESETS[m['preset']]}")
        elif m["slider"]:
            slider(page, SLIDERS[m["slider"]], m["value"])
        else:
            drag_down_until_below_one(page)
        done.append(m[0])
    if not done:
        raise SystemExit(f"walkthrough: E5's try asks nothing the walk knows how to do: {text[:120]}")
    return done


def e5_try(i):
    """E5's try i (from 0): what its question asks, then its answer unfolded."""
    def run(page):
        follow(page, page.inner_text(f"#e5 > ol > li >> nth={i}"))
        page.click(f"#e5 > ol > li >> nth={i} >> details summary")
    return run


# (experiment, what the reader does, kind, how, what of the experiment the step leaves out of sight): kind "act" is a
# press or a drag, "guess" a step that asks for a guess first, "wait" the page's own work the reader did not ask for
WALK = [
    ("e1", "choose the cell: reading the weights", "act", e1_cell("read")),
    ("e1", "choose the cell: compute", "act", e1_cell("compute")),
    ("e1", "choose the cell: KV cache", "act", e1_cell("kv")),
    ("e2", "Python loads (it starts when E2 comes into view)", "wait", wait_ready),
    ("e2", "step 1: one round at a time, three rounds", "act", e2_single_rounds),
    ("e2", "step 2: predict «目标 p», run the smaller run", "guess", e2_run("resample_p", 0)),
    ("e2", "step 3: the large draft", "act", e2_switch("draft")),
    ("e2", "step 4: the other prefix", "act", e2_switch("prefix")),
    ("e2", "step 5: predict the correct rule, run the larger run", "guess", e2_run("correct", 1)),
    ("e2", "step 5: rerun as the offline check", "act", e2_reproduce),
    *[("e2", f"the proof: term ({t})", "act", e2_term(t)) for t in "ABCDEFGHI"],
    ("tv", "rerun the TV curve in the browser", "act", tv_rerun),
    ("pair", "another preset", "act", pair_preset),
    ("pair", "drag a bar", "act", pair_drag),
    ("pair", "run it", "act", pair_run),
    ("e3", "the small scale, k to its largest", "act", e3_scale),
    ("e4", "every round of the replay", "act", e4_rounds, ".c13-verify-block"),
    ("e4", "the verify slow motion, played", "act", e4_motion),
    ("e5", "try 1: a larger α", "guess", e5_try(0)),
    ("e5", "try 2: c to 0", "guess", e5_try(1)),
    ("e5", "try 3: k = 1, α down until below 1×", "guess", e5_try(2)),
    ("e5", "try 4: the large draft at the largest k", "guess", e5_try(3)),
    ("e5", "try 5: DeepSeek-V3", "guess", e5_try(4)),
]


def walk(page):
    """Each step done in order: (experiment, step, kind, seconds the page took, Chinese characters it brought, looks).
    A step of several presses (a generator) yields after each, and what each press shows counts: a reader who
    steps through the rounds reads every round's line. What counts as new is what the previous look did not show."""
    out = []
    for exp, what, kind, run, *skip in WALK:
        page.locator(f"#{exp}").scroll_into_view_if_needed()
        look = [f"#{exp}", skip[0] if skip else None]
        shown = set(sentences(page.evaluate(SHOWN, look)))
        seconds, new, presses = 0.0, 0, 0
        start = time.perf_counter()
        for _ in run(page) or [None]:
            presses += 1
            seconds += time.perf_counter() - start
            now = sentences(page.evaluate(SHOWN, look))
            new += sum(len(HAN.findall(s)) for s in now if s not in shown)
            shown = set(now)
            start = time.perf_counter()
        out.append((exp, what, kind, seconds, new, presses))
    return out
