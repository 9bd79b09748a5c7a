"""E4 in the browser: stepping through the recorded run, by button and by keyboard."""
import pytest
from browserlib import PHONE, WIDE, focused, opened, tab_until
from legibility import small_text, small_targets


def test_one_step_shows_the_first_round(lesson, data):
    page, _ = lesson
    assert page.get_attribute("#e4", "data-c13-init") == "done"
    page.click("#e4 .c13-e4-bar button >> nth=3")
    assert page.get_attribute("#e4", "data-step") == "1"
    assert page.get_attribute("#e4", "data-tokens") == str(data["replay"]["rounds"][0]["yield"])
    # the text shows the prompt and the first round only, the round marked as the current one
    shown = page.locator("#e4 .c13-live .c13-round-tokens:visible")
    assert shown.count() == 1 and "c13-round-now" in shown.first.get_attribute("class")


def test_the_end_shows_every_round_and_the_whole_text(lesson, data):
    page, _ = lesson
    page.click("#e4 .c13-e4-bar button >> nth=4")
    rounds = data["replay"]["rounds"]
    assert page.get_attribute("#e4", "data-step") == str(len(rounds))
    assert page.locator("#e4 .c13-live .c13-round-tokens:visible").count() == len(rounds)
    # read back as one string, the same as the build-time version (kept in the closed box)
    live_text = page.text_content("#e4 .c13-live .c13-plain")
    assert live_text and "\ufffd" not in live_text
    assert live_text == page.text_content("#e4 details.c13-static-box .c13-plain")


@pytest.mark.slow("E4 driven by keyboard or laid out at 375 px in Chromium")
def test_keyboard_alone_drives_e4(browser, served, data):
    with opened(browser, served + "index.html", viewport={"width": 375, "height": 740}, is_mobile=True,
                has_touch=True) as (page, _):
        # the control group takes the arrow keys, Home and End; its buttons take Enter
        page.focus("#exp-e4 a.headerlink")
        f = tab_until(page, lambda f: f["inE4"] and f["role"] == "group")
        assert f["outline"] != "none"
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        assert page.get_attribute("#e4", "data-step") == "3"
        page.keyboard.press("End")
        assert page.get_attribute("#e4", "data-step") == str(len(data["replay"]["rounds"]))
        page.keyboard.press("Home")
        assert page.get_attribute("#e4", "data-step") == "0"
        tab_until(page, lambda f: f["tag"] == "BUTTON" and f["text"].startswith("下一轮"))
        page.keyboard.press("Enter")
        page.keyboard.press("Enter")
        assert page.get_attribute("#e4", "data-step") == "2"
        assert "第 2 / " in page.inner_text("#e4 .c13-totals")
        assert focused(page)["inE4"]


# ---- focus, keys, byte tokens, phone ----

@pytest.mark.slow("E4 driven by keyboard or laid out at 375 px in Chromium")
def test_the_buttons_keep_the_focus_at_either_end(browser, served, data):
    with opened(browser, served + "index.html", viewport=WIDE) as (page, _):
        total = str(len(data["replay"]["rounds"]))
        page.focus("#exp-e4 a.headerlink")
        tab_until(page, lambda f: f["tag"] == "BUTTON" and f["text"] == "到最后")
        page.keyboard.press("Enter")
        assert page.get_attribute("#e4", "data-step") == total
        now = focused(page)
        assert now["inE4"] and now["text"] == "到最后"
        page.keyboard.press("Enter")  # nothing left to do: still there
        assert focused(page)["inE4"]
        page.keyboard.press("Shift+Tab")  # back to 下一轮, which has nothing to do either
        assert focused(page)["text"].startswith("下一轮")
        page.keyboard.press("Enter")
        assert focused(page)["inE4"] and page.get_attribute("#e4", "data-step") == total
        for _ in range(3):
            page.keyboard.press("Shift+Tab")  # 播放, 上一轮, 从头
        assert focused(page)["text"] == "从头"
        page.keyboard.press("Enter")
        assert page.get_attribute("#e4", "data-step") == "0" and focused(page)["text"] == "从头"
        page.keyboard.press("Space")
        assert focused(page)["inE4"]
        # Tab goes on from there, not from the top of the page
        page.keyboard.press("Tab")
        assert focused(page)["inE4"]
        # an inactive button says so to assistive technology
        assert page.get_attribute("#e4 .c13-e4-bar button >> nth=0", "aria-disabled") == "true"


def test_the_keys_do_what_the_hint_says(lesson):
    page, _ = lesson
    bar = "#e4 .c13-e4-bar"
    hint = page.evaluate("s => document.getElementById(document.querySelector(s).getAttribute('aria-describedby'))"
                         ".textContent", bar)
    label = page.get_attribute(bar, "aria-label")
    # the keys are described once, in the visible hint that describes the group; the label names the group only
    assert "P 播放或暂停" in hint and "空格也播放或暂停" in hint
    assert "播放" not in label and "空格" not in label
    play = "#e4 .c13-e4-bar button >> nth=2"
    page.focus("#e4 .c13-e4-bar button >> nth=0")
    page.keyboard.press("p")
    assert "暂停" in page.inner_text(play)
    page.keyboard.press("P")
    assert "播放" in page.inner_text(play)
    page.focus(bar)
    page.keyboard.press("Space")
    assert "暂停" in page.inner_text(play)
    page.keyboard.press("Space")
    assert "播放" in page.inner_text(play)


BYTES = r"/^‹[0-9A-F]{2}(?: [0-9A-F]{2})*›$/"


def expected_byte_tokens(data):
    import re
    labels, replay = data["tokenizer"]["labels"], data["replay"]
    ids = list(replay["prompt_tokens"]) + [t for r in replay["rounds"] for t in r["draft"][:r["accepted"]] + [r["token"]]]
    return sum(1 for i in ids if re.fullmatch(r"‹[0-9A-F]{2}(?: [0-9A-F]{2})*›", labels[i]))


def test_byte_tokens_are_explained_where_they_appear(lesson, data):
    page, _ = lesson
    page.click("#e4 .c13-e4-bar button >> nth=4")
    tokens = page.eval_on_selector_all("#e4 .c13-live .c13-replay-text .c13-tok",
                                       f"ts => ts.filter((t) => {BYTES}.test(t.textContent)).map((t) => t.title)")
    assert len(tokens) == expected_byte_tokens(data) and tokens
    assert all("UTF-8 字节" in title and "完整的字符" in title for title in tokens)
    # the round table's tokens too, and the note beside the legend, in the live version
    for step in range(1, len(data["replay"]["rounds"]) + 1):
        page.click("#e4 .c13-e4-bar button >> nth=0")
        for _ in range(step):
            page.click("#e4 .c13-e4-bar button >> nth=3")
        titles = page.eval_on_selector_all("#e4 .c13-live table .c13-tok, #e4 .c13-live .c13-outcome .c13-tok",
                                           f"ts => ts.filter((t) => {BYTES}.test(t.textContent)).map((t) => t.title)")
        if titles:
            assert all("UTF-8 字节" in t for t in titles)
            break
    else:
        pytest.fail("no round shows a byte token")
    assert "UTF-8 字节" in page.inner_text("#e4 .c13-live .c13-legend")


def test_byte_tokens_are_explained_without_javascript(browser, served, data):
    with opened(browser, served + "index.html", viewport=WIDE, java_script_enabled=False) as (page, _):
        assert "UTF-8 字节" in page.inner_text("#e4")
        titles = page.eval_on_selector_all("#e4 .c13-replay-text .c13-tok",
                                           f"ts => ts.filter((t) => {BYTES}.test(t.textContent)).map((t) => t.title)")
        assert len(titles) == expected_byte_tokens(data) and all("UTF-8 字节" in t for t in titles)


@pytest.mark.slow("E4 driven by keyboard or laid out at 375 px in Chromium")
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_small_text_or_tap_target_in_e4_on_a_phone(browser, served, scheme):
    with opened(browser, served + "index.html", color_scheme=scheme, **PHONE) as (page, _):
        for step in (0, 3):
            for _ in range(step):
                page.click("#e4 .c13-e4-bar button >> nth=3")
            assert small_text(page, "#e4") == [], f"step {step}"
            assert small_targets(page, "#e4") == [], f"step {step}"


def test_before_the_first_round_the_replay_names_the_round_the_motion_shows(lesson):
    """At round 0 the replay has shown nothing yet while the verify motion below already shows a whole round: the
    replay's line says which one, so the two do not seem to disagree."""
    page, _ = lesson
    page.focus("#e4 .c13-e4-bar")
    page.keyboard.press("Home")
    assert page.get_attribute("#e4", "data-step") == "0"
    shown = int(page.get_attribute("#e4 .c13-verify-block .c13-verify", "data-round")) + 1
    assert f"慢动作先放第 {shown} 轮" in page.inner_text("#e4 .c13-totals")
    page.keyboard.press("ArrowRight")
    assert "慢动作" not in page.inner_text("#e4 .c13-totals")
