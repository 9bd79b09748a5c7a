"""E4 in the browser: stepping through the recorded run, by button and by keyboard."""
from browserlib import focused, opened, tab_until


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
