"""E5 in the browser: the sliders drive the closed form and its plot."""


def test_the_sliders_drive_the_formula(lesson):
    page, _ = lesson
    assert page.get_attribute("#e5", "data-c13-init") == "done"
    # α = 0.8, c = 0, k = 1 set by hand reads exactly 1.8
    for key, value in (("alpha", "0.8"), ("c", "0"), ("k", "1")):
        page.fill(f"#e5 input[type=range][id$='-{key}']", value)
    assert page.inner_text("#e5 output[id$='-yield']") == "1.8"
    assert page.inner_text("#e5 output[id$='-speedup']") == "1.80×"
    page.fill("#e5 input[type=range][id$='-k']", "4")
    assert page.inner_text("#e5 output[id$='-yield']") == f"{(1 - 0.8 ** 5) / 0.2:.3f}".rstrip("0").rstrip(".")


def test_the_k_slider_and_the_plot_span_the_data_ks(lesson, data):
    page, _ = lesson
    ks = data["constants"]["ks"]
    slider = "#e5 input[type=range][id$='-k']"
    assert (page.get_attribute(slider, "min"), page.get_attribute(slider, "max")) == (str(min(ks)), str(max(ks)))
    assert page.locator("#e5 .c13-live svg circle").count() == len(ks)


def test_a_draft_preset_loads_its_measured_figures(lesson, data):
    page, _ = lesson
    small = data["constants"]["drafts"][0]
    page.fill("#e5 input[type=range][id$='-k']", "2")
    page.click(f"#e5 button:has-text('{small}')")
    row = next(r for r in data["accounting"]["drafts"][small]["rows"] if r["k"] == 2)
    note = page.inner_text("#e5 .c13-live")
    runs = len(data["accounting"]["prompts"]) * len(data["accounting"]["seeds"])
    assert f"{row['acceptance_rate']:.3f}" in note and f"{runs} 次运行" in note
