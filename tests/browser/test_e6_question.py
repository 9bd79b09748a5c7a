"""E6 asks its question first, on the measurement lab's page (lab.html): 你的机器上，投机解码会更快吗？
is shown, as a choice, before any run, with the lesson's k and T = 1 set; 开始 without a guess keeps the focus, starts
nothing and says why in a polite live region under it; a guess then 开始 runs (cancelled here once the models run),
the guess set beside the report (.c13-e6-guess) and on the section (data-guess); legible at 375 and 1280 px, light and
dark, the focus never on <body>."""
import pytest
from browserlib import PHONE, WIDE, focused, opened
from legibility import small_targets, small_text

QUESTION = "你的机器上，投机解码会更快吗？"

START = "#e6 button:text-is('开始')"
GATE = "#e6 fieldset.c13-e6-gate"
HINT = "#e6 .c13-e6-guess-hint"
SETTLED = "['done', 'failed', 'cancelled'].includes(document.querySelector('#e6').dataset.state)"
RUN_TIMEOUT_MS = 240_000
LAZY = (".safetensors", "models/tokenizer.json", "e6/engine.mjs")
GUESSES = {"faster": "会更快", "same": "差不多", "slower": "会更慢"}


def lazy_requests(log):
    return [u for u in log.requests if any(part in u for part in LAZY)]


def gate_choices(page):
    return page.eval_on_selector_all(f"{GATE} label", "ls => ls.map((l) => [l.querySelector('input').value,"
                                     " l.textContent.trim(), l.querySelector('input').checked])")


@pytest.mark.slow("E6 runs the models in Chromium")
def test_the_question_comes_first_and_a_guess_comes_before_the_run(browser, served, data):
    with opened(browser, served + "lab.html", viewport=WIDE) as (page, log):
        # the question, as a choice, above the form; the page's paragraph it stands in for is hidden
        assert page.inner_text(f"{GATE} legend") == QUESTION
        assert gate_choices(page) == [[value, words, False] for value, words in GUESSES.items()]
        assert page.locator("#e6 .c13-e6-question").is_hidden()
        gate, form = (page.locator(s).bounding_box()["y"] for s in (GATE, "#e6 textarea.c13-e6-prompt"))
        assert gate < form
        assert "data-guess" not in page.evaluate("Object.keys(document.querySelector('#e6').dataset).join(' ')")
        assert page.locator("#e6 .c13-e6-guess").is_hidden()
        # the lesson's defaults: the replay's k and temperature (c13.json → replay: T = 1)
        assert page.input_value("#e6 select[id$='-k']") == str(data["replay"]["k"])
        assert page.get_attribute("#e6 input[name$='-temp']:checked", "value") == str(data["replay"]["temperature"])
        assert data["replay"]["temperature"] == 1

        # 开始 before a guess, by keyboard: it keeps the focus, starts nothing, and says why under it (politely, each
        # time anew), marking the question
        hint = page.locator(HINT)
        assert hint.get_attribute("aria-live") == "polite"
        assert page.get_attribute(START, "aria-describedby") == hint.get_attribute("id")
        assert page.evaluate("document.querySelector('#e6 .c13-buttons').nextElementSibling.className") \
            == "c13-hint c13-e6-guess-hint"
        page.focus(START)
        page.keyboard.press("Enter")
        first = hint.inner_text()
        assert "还没有猜" in first and "会更快" in first and hint.get_attribute("data-asked") == "true"
        assert page.get_attribute(GATE, "data-asked") == "true"
        page.keyboard.press("Enter")
        assert hint.inner_text() != first and "先猜" in hint.inner_text()  # changed, so read out again
        page.click(START)
        page.wait_for_timeout(300)
        assert page.get_attribute("#e6", "data-state") == "idle" and not lazy_requests(log)
        assert focused(page)["text"] == "开始"

        # a guess, by keyboard: the section says it (and tells the report), 开始 can act
        page.evaluate("""() => { window.c13Guesses = [];
            document.querySelector('#e6').addEventListener('c13-e6-guess', (e) => c13Guesses.push(e.detail.guess)); }""")
        page.focus(f"{GATE} input[value='faster']")
        page.keyboard.press("Space")
        page.keyboard.press("ArrowRight")  # a radio group: the arrow moves to 差不多 and checks it
        assert page.get_attribute("#e6", "data-guess") == "same"
        assert page.evaluate("window.c13Guesses") == ["faster", "same"]
        assert focused(page)["value"] == "same"
        assert "差不多" in hint.inner_text() and hint.get_attribute("data-asked") is None
        assert page.get_attribute(GATE, "data-asked") is None

        # 开始 runs: the guess is set beside the report at once, and stays there; stopped at the first model forward
        page.fill("#e6 input.c13-seed", "20241")
        page.focus(START)
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelector('#e6').dataset.state !== 'idle'")
        line = page.locator("#e6 .c13-e6-guess")
        assert line.get_attribute("data-guess") == "same" and "差不多" in line.inner_text() and line.is_visible()
        assert page.evaluate("document.querySelector('#e6 .c13-e6-guess').nextElementSibling.className") \
            == "c13-e6-report"
        guess_of = page.evaluate("""async () => (await import(new URL('assets/c13/e6/question.js',
            document.baseURI).href)).guessOf(document.querySelector('#e6'))""")
        assert guess_of == "same"
        page.wait_for_function("document.querySelector('#e6').dataset.state === 'running'", timeout=RUN_TIMEOUT_MS)
        assert page.get_attribute("#e6", "data-k") == str(data["replay"]["k"])
        assert page.get_attribute("#e6", "data-temperature") == "1"
        page.focus("#e6 button:text-is('取消')")
        page.keyboard.press("Enter")
        page.wait_for_function(SETTLED, timeout=RUN_TIMEOUT_MS)
        assert page.get_attribute("#e6", "data-state") == "cancelled"
        assert focused(page)["tag"] != "BODY" and page.evaluate("!!document.activeElement.closest('#e6')")
        assert line.get_attribute("data-guess") == "same"


@pytest.mark.slow("E6 runs the models in Chromium")
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", ["phone", "wide"])
def test_the_question_is_legible_and_its_choices_easy_to_hit(browser, served, scheme, width):
    size = PHONE if width == "phone" else {"viewport": WIDE}
    with opened(browser, served + "lab.html", color_scheme=scheme, **size) as (page, _):
        page.click(START)  # the hint as a reader who pressed 开始 first sees it
        page.evaluate("document.fonts.ready")
        assert "还没有猜" in page.inner_text(HINT)
        assert small_text(page, "#e6") == []
        assert small_targets(page, "#e6") == []
        page.check(f"{GATE} input[value='slower']")
        assert focused(page)["tag"] != "BODY" and page.get_attribute("#e6", "data-guess") == "slower"


def test_without_javascript_the_question_is_asked_beside_the_build_machines_answer(browser, served):
    with opened(browser, served + "lab.html", java_script_enabled=False) as (page, _):
        question = page.locator("#e6 .c13-e6-question")
        assert question.is_visible() and QUESTION in question.inner_text()
        assert page.locator("#e6 .c13-e6-static").is_visible()  # its answer on the build machine, as before
        after = page.evaluate("document.querySelector('#e6 .c13-e6-question').nextElementSibling.className")
        assert after == "c13-e6-static"
