"""E4's verify motion: one recorded round of the replay, step by step.

The steps must be the generator's record of the round (the draft's k tokens one by one, one target forward that
lights every position, checks left to right up to the first rejection, then the residual or bonus token); with
reduced motion nothing animates; the controls work from the keyboard; the picture is legible at 375 px in both
colour schemes; and the live first state is the build-time figure.
"""
import re

import pytest
from browserlib import PHONE, WIDE, focused, opened, tab_until
from legibility import axe_serious, small_targets, small_text
from test_static_live import normalise

from generator.pages.formats import fixed, pct, prob

BLOCK = "#e4 .c13-verify-block"
FIGURE = BLOCK + " .c13-verify"
BUTTONS = BLOCK + " .c13-v-controls button"


def default_round(replay):
    """The first round that accepts some tokens and then rejects one, as the page's default."""
    return next(i for i, r in enumerate(replay["rounds"]) if r["kind"] == "resampled" and r["accepted"] > 0)


def step_count(replay, index):
    """k draft steps, one forward, one check per tested position, one result."""
    return replay["k"] + 1 + len(replay["rounds"][index]["u"]) + 1


def frame(page):
    """What the picture shows now: each position's state, lit or not, its lines, and the figure's step."""
    return page.evaluate("""(s) => { const f = document.querySelector(s);
        return { step: Number(f.dataset.step), steps: Number(f.dataset.steps), round: Number(f.dataset.round),
          boxes: [...f.querySelectorAll('.c13-v-pos')].map((c) => ({ state: c.dataset.state,
            lit: c.classList.contains('c13-v-lit'), text: c.innerText,
            target: !!c.querySelector('.c13-v-target'), fresh: !!c.querySelector('.c13-v-target.c13-v-new'),
            out: (c.querySelector('.c13-v-out .c13-tok') || {}).textContent || null })),
          listed: [...f.querySelectorAll('.c13-v-steps > li:not([hidden])')].length }; }""", FIGURE)


def press(page, which):
    page.click(f"{BUTTONS} >> nth={ {'prev': 0, 'play': 1, 'next': 2}[which] }")


def pick_round(page, index):
    """E4's replay to round `index` (from 0), with the keys of its button group: the motion follows it."""
    page.focus("#e4 .c13-e4-bar")
    page.keyboard.press("Home")
    for _ in range(index + 1):
        page.keyboard.press("ArrowRight")
    assert page.get_attribute("#e4", "data-step") == str(index + 1)


def check_round(page, data, index):
    """Walk round `index` from its first step to its last; every step against the recorded round."""
    replay, labels = data["replay"], data["tokenizer"]["labels"]
    rnd, k = replay["rounds"][index], replay["k"]
    total = step_count(replay, index)
    page.fill(BLOCK + " .c13-v-slider", "1")
    for step in range(1, total + 1):
        if step > 1:
            press(page, "next")
        now = frame(page)
        assert (now["step"], now["steps"], now["round"], now["listed"]) == (step, total, index, step)
        boxes = now["boxes"]
        assert len(boxes) == k + 1
        drafted = min(step, k)
        assert [c["state"] != "empty" for c in boxes[:k]] == [i < drafted for i in range(k)], f"step {step}"
        for i in range(drafted):  # the draft's token and q, as recorded (q and p only where it was checked)
            assert labels[rnd["draft"][i]] in boxes[i]["text"]
            assert (f"q = {prob(rnd['q'][i])}" in boxes[i]["text"]) if i < len(rnd["q"]) else "q =" not in boxes[i]["text"]
        forward = step > k
        # one forward lights all k + 1 positions at once, on one step
        assert all(c["lit"] == forward and c["target"] == forward for c in boxes), f"step {step}"
        assert all(c["fresh"] for c in boxes) == (step == k + 1)
        checked = max(0, min(step - k - 1, len(rnd["u"])))
        for i in range(checked):
            text = boxes[i]["text"]
            assert f"u = {fixed(rnd['u'][i], 3)}" in text and f"min(1, p/q) = {pct(rnd['accept_prob'][i], 1)}" in text
            assert f"p = {prob(rnd['p'][i])}" in text
            assert boxes[i]["state"] in (("accepted",) if i < rnd["accepted"] else ("rejected", "replaced"))
    # the last step: the recorded number accepted, and the replacement (or bonus) token where it belongs
    boxes = frame(page)["boxes"]
    assert sum(c["state"] == "accepted" for c in boxes) == rnd["accepted"]
    where = k if rnd["kind"] == "bonus" else rnd["accepted"]
    assert boxes[where]["state"] == ("bonus" if rnd["kind"] == "bonus" else "replaced")
    assert boxes[where]["out"] == labels[rnd["token"]]
    assert [c["out"] for i, c in enumerate(boxes) if i != where] == [None] * k
    if rnd["kind"] == "resampled":  # nothing after the first rejection is checked, and the last row goes unused
        assert all(c["state"] == "skipped" for c in boxes[rnd["accepted"] + 1:k]) and boxes[k]["state"] == "unused"
    status = page.inner_text(BLOCK + " .c13-v-status")
    assert status.startswith(f"第 {total} / {total} 步") and labels[rnd["token"]] in status


def test_the_steps_are_the_recorded_default_round(lesson, data):
    page, _ = lesson
    replay = data["replay"]
    index = default_round(replay)
    assert page.get_attribute(BLOCK, "data-round") == str(index)
    check_round(page, data, index)


@pytest.mark.slow("the verify slow motion stepped or played through in Chromium")
def test_the_steps_of_the_bonus_round_and_a_first_token_rejection(lesson, data):
    page, _ = lesson
    rounds = data["replay"]["rounds"]
    picks = [next(i for i, r in enumerate(rounds) if r["kind"] == "bonus"),
             next(i for i, r in enumerate(rounds) if r["accepted"] == 0)]
    for index in picks:
        pick_round(page, index)
        assert page.get_attribute(BLOCK, "data-round") == str(index)
        assert page.get_attribute(BLOCK, "data-step") == str(step_count(data["replay"], index))  # the whole round
        check_round(page, data, index)


@pytest.mark.slow("the verify slow motion stepped or played through in Chromium")
def test_play_runs_to_the_end_and_pause_stops(lesson, data):
    page, _ = lesson
    index = default_round(data["replay"])
    pick_round(page, index)
    press(page, "play")  # at the end: starts again from the first step
    assert page.get_attribute(BLOCK, "data-step") == "1"
    assert page.get_attribute(f"{BUTTONS} >> nth=1", "aria-pressed") == "true"
    page.wait_for_function(f"document.querySelector('{BLOCK}').dataset.step === '2'", timeout=5000)
    press(page, "play")
    held = page.get_attribute(BLOCK, "data-step")
    page.wait_for_timeout(1500)
    assert page.get_attribute(BLOCK, "data-step") == held
    assert "播放" in page.inner_text(f"{BUTTONS} >> nth=1")


ANIMATING = """(s) => { const root = document.querySelector(s);
    const nodes = [root, ...root.querySelectorAll('*')];
    return { animations: root.getAnimations({ subtree: true }).length,
             transitions: nodes.map((n) => getComputedStyle(n).transitionDuration)
                               .filter((d) => d.split(',').some((x) => parseFloat(x) > 0)).length }; }"""


@pytest.mark.slow("the verify slow motion stepped or played through in Chromium")
@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_reduced_motion_gives_steps_only(browser, served, motion):
    with opened(browser, served + "index.html", viewport=WIDE, reduced_motion=motion) as (page, _):
        page.fill(BLOCK + " .c13-v-slider", "1")
        for _ in range(5):  # through the forward step, which lights every position
            press(page, "next")
            seen = page.evaluate(ANIMATING, BLOCK)
            if motion == "reduce":
                assert seen == {"animations": 0, "transitions": 0}
            elif seen["animations"]:
                break
        if motion == "no-preference":  # the check can fail: without the preference, a step does animate
            assert seen["animations"] > 0 and seen["transitions"] > 0


@pytest.mark.slow("the verify slow motion stepped or played through in Chromium")
def test_the_keyboard_alone_drives_it(browser, served, data):
    with opened(browser, served + "index.html", **PHONE) as (page, _):
        rounds = data["replay"]["rounds"]
        page.focus("#e4 .c13-e4-bar")  # the round is E4's: one selector for the experiment
        page.keyboard.press("ArrowRight")
        assert page.get_attribute(BLOCK, "data-round") == "0"
        page.keyboard.press("ArrowRight")
        assert page.get_attribute(BLOCK, "data-round") == "1"
        total = str(step_count(data["replay"], 1))
        assert page.get_attribute(BLOCK, "data-step") == total
        now = tab_until(page, lambda f: f["tag"] == "BUTTON" and f["text"].startswith("◀ 上一步"))
        assert now["outline"] != "none"
        page.keyboard.press("Enter")
        assert page.get_attribute(BLOCK, "data-step") == str(int(total) - 1)
        tab_until(page, lambda f: f["type"] == "range")
        page.keyboard.press("Home")
        assert page.get_attribute(BLOCK, "data-step") == "1"
        page.keyboard.press("ArrowRight")
        assert page.get_attribute(BLOCK, "data-step") == "2"
        page.keyboard.press("Shift+Tab")  # 下一步, then press it until nothing is left: the focus stays
        assert focused(page)["text"].startswith("下一步")
        for _ in range(len(rounds[1]["u"]) + 10):
            page.keyboard.press("Enter")
        assert page.get_attribute(BLOCK, "data-step") == total and focused(page)["text"].startswith("下一步")
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Space")  # play
        assert page.get_attribute(BLOCK, "data-step") == "1" and focused(page)["inE4"]
        page.keyboard.press("Space")  # pause
        assert "播放" in focused(page)["text"]


@pytest.mark.slow("the verify slow motion stepped or played through in Chromium")
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_legible_at_375_px_without_overflow_and_axe_clean(browser, served, data, scheme):
    with opened(browser, served + "index.html", color_scheme=scheme, **PHONE) as (page, _):
        index = default_round(data["replay"])
        for step in (1, data["replay"]["k"] + 1, step_count(data["replay"], index)):
            page.fill(BLOCK + " .c13-v-slider", str(step))
            assert small_text(page, BLOCK) == [], f"step {step}"
            assert small_targets(page, BLOCK) == [], f"step {step}"
            wide = page.evaluate("""(s) => [...document.querySelectorAll(s + ', ' + s + ' *')]
                .filter((n) => n.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
                .map((n) => n.tagName + '.' + n.className)""", BLOCK)
            assert wide == [], f"step {step}: sticks out of the screen"
        # the narrow layout is drawn, not shrunk: one position per row
        lefts = page.eval_on_selector_all(FIGURE + " .c13-v-pos", "cs => cs.map((c) => c.getBoundingClientRect().left)")
        assert len(set(round(x) for x in lefts)) == 1
        page.fill(BLOCK + " .c13-v-slider", str(data["replay"]["k"] + 2))  # a check under way, the current marked
        page.wait_for_function(f"document.querySelector('{BLOCK}').getAnimations({{subtree: true}}).length === 0")
        bad = axe_serious(page, BLOCK)
        assert not bad, "\n".join(bad)


def test_wide_layout_sets_the_positions_side_by_side(lesson):
    page, _ = lesson
    tops = page.eval_on_selector_all(FIGURE + " .c13-v-pos", "cs => cs.map((c) => c.getBoundingClientRect().top)")
    assert len(tops) > 2 and len(set(round(x) for x in tops)) == 1


@pytest.mark.slow("the verify slow motion stepped or played through in Chromium")
def test_the_live_first_state_is_the_build_time_figure(browser, served, data):
    with opened(browser, served + "index.html", viewport=WIDE, java_script_enabled=False) as (page, _):
        static = page.eval_on_selector("#e4-verify", "n => n.outerHTML")
        steps = page.eval_on_selector_all("#e4-verify .c13-v-steps > li", "ls => ls.map((l) => l.textContent)")
    index = default_round(data["replay"])
    assert len(steps) == step_count(data["replay"], index)  # without JavaScript: every step, in words
    assert re.search(r"u = \d\.\d{3}", " ".join(steps)) and data["tokenizer"]["labels"][
        data["replay"]["rounds"][index]["token"]] in steps[-1]
    with opened(browser, served + "index.html", viewport=WIDE) as (page, _):
        live = page.eval_on_selector(FIGURE, "n => n.outerHTML")
    assert len(static) > 500 and normalise(live) == normalise(static)


def test_one_round_selector_for_the_replay_and_its_motion(lesson, data):
    """The motion has no round picker of its own: it shows the round E4's replay is on, whole, and before the first
    round the one it was built on."""
    page, _ = lesson
    assert page.locator(BLOCK + " select").count() == 0
    rounds = data["replay"]["rounds"]
    for index in (len(rounds) - 1, 2, 0):
        pick_round(page, index)
        assert page.get_attribute(BLOCK, "data-round") == str(index)
        assert page.get_attribute(BLOCK, "data-step") == str(step_count(data["replay"], index))
    page.focus("#e4 .c13-e4-bar")
    page.keyboard.press("Home")
    assert page.get_attribute(BLOCK, "data-round") == str(default_round(data["replay"]))
