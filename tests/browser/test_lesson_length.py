"""The lesson reads as the 45-minute unit it promises: on the built lesson page in its default state
(every fold closed, the experiments live), at most 6,500 Chinese characters are shown, at most 6 sentences are over
120 characters and none over 180 (tests/pagetext.py measures; benchmarks/lesson_length.py prints the figures)."""
from tests.pagetext import measure, sentences

MOST_SHOWN = 6_500  # Chinese characters a reader sees with every fold closed
LONG, LONGEST, MOST_LONG = 120, 180, 6  # a sentence's characters; at most MOST_LONG over LONG, none over LONGEST


def test_the_lesson_shows_at_most_its_budget_of_chinese(lesson):
    page, _ = lesson
    figures = measure(page)
    assert figures["han"] <= MOST_SHOWN, (
        f"the lesson shows {figures['han']:,} Chinese characters with every fold closed, more than {MOST_SHOWN:,}: "
        "shorten the prose or fold the depth (benchmarks/lesson_length.py --sections says where)")
    assert figures["han_open"] > figures["han"], "the folds hold nothing: the measure of closed folds is broken"


def test_a_phone_shows_no_more_than_the_budget_either(phone_page):
    """At 375 px the experiments draw their narrow layouts, which may show a few characters more than at 1280 px: the
    budget holds there too."""
    shown = measure(phone_page)["han"]
    assert shown <= MOST_SHOWN, f"at 375 px the lesson shows {shown:,} Chinese characters, more than {MOST_SHOWN:,}"


def test_no_sentence_of_the_lesson_runs_on(lesson):
    page, _ = lesson
    long = [s for s in measure(page)["sentences"] if len(s) > LONG]
    assert not [s for s in long if len(s) > LONGEST], [s for s in long if len(s) > LONGEST]
    assert len(long) <= MOST_LONG, long


def test_a_sentence_ends_at_a_full_stop_a_line_or_a_cell():
    """The splitting itself: Chinese full stops, line breaks and table cells end a sentence; spaces do not count."""
    assert sentences("一句话。第二句！\n第三 句\t单元格") == ["一句话。", "第二句！", "第三句", "单元格"]
