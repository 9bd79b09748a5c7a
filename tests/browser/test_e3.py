"""E3 in the browser: the tensor shapes at the real and the small scale, and the k slider."""
from browserlib import dataset


def test_real_then_small_scale(lesson, data):
    page, _ = lesson
    assert page.get_attribute("#e3", "data-c13-init") == "done"
    assert page.get_attribute("#e3 figure[data-v]", "data-v") == str(data["anchor"]["vocab_size"])
    page.check("#e3 input[value=small]")
    assert page.get_attribute("#e3 figure[data-v]", "data-v") == str(data["constants"]["small_vocab"])


def test_the_k_slider_spans_the_data_ks_and_redraws(lesson, data):
    page, _ = lesson
    ks = data["constants"]["ks"]
    slider = "#e3 input[type=range]"
    assert (page.get_attribute(slider, "min"), page.get_attribute(slider, "max")) == (str(min(ks)), str(max(ks)))
    page.fill(slider, str(max(ks)))
    assert dataset(page, "#e3 figure[data-k]")["k"] == str(max(ks))
    # the mask has one cell per drafted token: k of them
    assert page.locator("#e3 .c13-e3-picture svg rect.c13-mask, #e3 .c13-e3-picture svg rect.c13-mask-blank").count() \
        == max(ks)
