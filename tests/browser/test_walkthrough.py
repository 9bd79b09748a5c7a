"""The walkthrough of the lesson (tests/browser/walklib.py; benchmarks/walkthrough.py times it) still does what the
lesson's text invites: it visits every experiment of the lesson page in page order, has a step for each numbered step
under E2 and each try of E5, and in Chromium every step ends as the text says it will (each run done, each answer
unfolded, each term's entry shown)."""
import re

import pytest
from browserlib import EXPERIMENTS, WIDE, opened
from walklib import WALK, promised_minutes, walk


def test_the_walk_visits_every_experiment_in_page_order():
    visited = [step[0] for step in WALK]
    assert [e for e in EXPERIMENTS if e not in visited] == [], "an experiment of the lesson has no step in the walk"
    assert visited == sorted(visited, key=EXPERIMENTS.index), visited
    assert {step[2] for step in WALK} <= {"act", "guess", "wait"}


@pytest.mark.slow("the whole lesson walked through in Chromium, every run of E2, the TV curve and the pair done")
def test_the_walk_does_every_step_the_lesson_invites(browser, served):
    with opened(browser, served + "index.html", viewport=WIDE) as (page, _):
        e2_steps = page.locator("#e2 ~ ol").first.locator(":scope > li").count()
        tries = page.locator("#e5 > ol > li").count()
        minutes = promised_minutes(page)
        steps = walk(page)
    assert minutes > 0
    numbered = {int(n) for s in steps if s[0] == "e2" for n in re.findall(r"^step (\d+)", s[1])}
    assert numbered == set(range(1, e2_steps + 1)), f"E2 asks for {e2_steps} steps; the walk does {sorted(numbered)}"
    assert sum(s[0] == "e5" for s in steps) == tries, f"E5 has {tries} tries"
    # a step the reader is asked to guess at ends with something new to read: a run's summary or an unfolded answer
    quiet = [s[1] for s in steps if s[2] == "guess" and s[4] == 0]
    assert not quiet, f"steps that showed the reader nothing new: {quiet}"
    rounds = next(s for s in steps if s[1].startswith("every round"))
    assert rounds[5] > 1 and rounds[4] > 0, rounds
