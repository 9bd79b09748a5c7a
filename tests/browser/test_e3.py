"""E3 in the browser: the tensor shapes at the real and the small scale, and the k slider; the picture's colours,
its mask (where it comes from, how it is drawn) and its size on a phone."""
import pytest
from browserlib import PHONE, WIDE, dataset, opened
from legibility import small_text, small_targets

SHOWN_SVGS = "sel => [...document.querySelectorAll(sel)].filter((s) => s.getBoundingClientRect().width > 0).map((s) => s.id)"


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
    # the mask has one cell per drafted token: k of them (in the layout shown)
    assert page.locator("#e3 .c13-e3-picture svg rect.c13-mask:visible, "
                        "#e3 .c13-e3-picture svg rect.c13-mask-blank:visible").count() == max(ks)


def expected_round(replay):
    """The replay's round E3 shows at the replay's k: the first with an acceptance, the rejection and an unread
    cell, else the first with a rejection after an acceptance, else the first."""
    rounds, k = replay["rounds"], replay["k"]
    for test in (lambda r: 0 < r["accepted"] <= k - 2, lambda r: 0 < r["accepted"] < k, lambda r: True):
        for i, r in enumerate(rounds):
            if test(r):
                return i + 1, r["accepted"]


def shown_mask(page):
    """The mask cells of the shown layout, in order: 'yes', 'no' or 'blank'."""
    return page.evaluate("""() => {
        const svg = [...document.querySelectorAll('#e3 .c13-e3-picture svg')]
            .find((s) => s.getBoundingClientRect().width > 0);
        return [...svg.querySelectorAll('rect.c13-mask, rect.c13-mask-blank')].map((r) =>
            r.classList.contains('c13-mask-blank') ? 'blank' : r.classList.contains('c13-mask-no') ? 'no' : 'yes');
    }""")


def test_the_caption_says_where_the_mask_comes_from_at_every_k(lesson, data):
    page, _ = lesson
    replay = data["replay"]
    round_number, accepted = expected_round(replay)
    for k in data["constants"]["ks"]:
        page.fill("#e3 input[type=range]", str(k))
        caption = page.inner_text("#e3 .c13-live figcaption")
        source = page.text_content("#e3 .c13-e3-picture svg .c13-mask-source >> visible=true")
        if k == replay["k"]:
            # a real round of the recorded run, named; it shows the unread ("留白") case when the run has one
            assert f"回放第 {round_number} 轮" in caption and f"回放第 {round_number} 轮" in source
            expected = ["yes"] * accepted + ["no"] + ["blank"] * (k - accepted - 1)
            assert shown_mask(page) == expected[:k]
            if accepted <= k - 2:
                assert "留白" in caption and "blank" in shown_mask(page)
        else:
            assert "只是示意" in caption and f"k = {replay['k']}" in caption and "只是示意" in source
            assert "回放第" not in caption
        assert len(shown_mask(page)) == k


def test_the_mask_is_drawn_as_the_text_says(lesson):
    page, _ = lesson
    prose = page.inner_text("#one-forward ~ p >> nth=2")
    assert "圆点格 = 接受" in prose and "实心格 = 拒绝" in prose
    page.fill("#e3 input[type=range]", "4")
    fills = page.evaluate("""() => {
        const svg = [...document.querySelectorAll('#e3 .c13-e3-picture svg')]
            .find((s) => s.getBoundingClientRect().width > 0);
        const fill = (sel) => [...svg.querySelectorAll(sel)].map((r) => getComputedStyle(r).fill);
        return { yes: fill('rect.c13-mask-yes'), no: fill('rect.c13-mask-no') }; }""")
    assert fills["yes"] and all(f.startswith("url(") and "-dots" in f for f in fills["yes"])  # the dots
    assert fills["no"] and all(f.startswith("rgb") and f not in ("rgb(0, 0, 0)",) for f in fills["no"])


def luminance(rgb):
    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(float(v)) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


SLOT_COLOURS = """() => {
    const parse = (c) => (c.match(/[\\d.]+/g) || []).slice(0, 3).map(Number);
    const out = [];
    for (const svg of document.querySelectorAll('#e3 svg')) {
        if (!(svg.getBoundingClientRect().width > 0)) continue;
        const text = svg.querySelector('text');
        for (const r of svg.querySelectorAll('rect.c13-index')) {
            const fill = getComputedStyle(r).fill;
            out.push({ svg: svg.id, fill, rgb: parse(fill), text: parse(getComputedStyle(text).fill) });
        }
    }
    return out; }"""


@pytest.mark.slow("E3's drawings laid out and measured in Chromium")
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("js", [True, False])
def test_index_slots_are_boxes_the_labels_read_on(browser, served, scheme, js):
    with opened(browser, served + "index.html", viewport=WIDE, color_scheme=scheme, java_script_enabled=js) as (page, _):
        slots = page.evaluate(SLOT_COLOURS)
        assert slots, "no index slot drawn"
        for slot in slots:
            assert slot["fill"].startswith("rgb") and len(slot["rgb"]) == 3, slot
            assert contrast(slot["rgb"], slot["text"]) >= 4.5, slot


BBOX_OUTSIDE = """sel => {
    const out = [];
    for (const svg of document.querySelectorAll(sel)) {
        if (!(svg.getBoundingClientRect().width > 0)) continue;
        const vb = svg.viewBox.baseVal;
        for (const t of svg.querySelectorAll('text')) {
            const b = t.getBBox();
            if (b.x < vb.x || b.y < vb.y || b.x + b.width > vb.x + vb.width || b.y + b.height > vb.y + vb.height)
                out.push(svg.id + ': ' + t.textContent);
        }
    }
    return out; }"""


@pytest.mark.slow("E3's drawings laid out and measured in Chromium")
@pytest.mark.parametrize("width", [375, 1280])
@pytest.mark.parametrize("js", [True, False])
def test_every_label_lies_inside_the_drawing(browser, served, data, width, js):
    with opened(browser, served + "index.html", viewport={"width": width, "height": 900},
                java_script_enabled=js) as (page, _):
        if js:
            page.evaluate("document.querySelectorAll('#e3 details').forEach((d) => { d.open = true; })")
        assert len(page.evaluate(SHOWN_SVGS, "#e3 svg")) >= (3 if js else 2)
        assert page.evaluate(BBOX_OUTSIDE, "#e3 svg") == []
        if js:
            for k in data["constants"]["ks"]:
                page.fill("#e3 input[type=range]", str(k))
                assert page.evaluate(BBOX_OUTSIDE, "#e3 .c13-e3-picture svg") == [], f"k = {k}"




def test_no_small_text_or_tap_target_in_e3_on_a_phone(phone_page, data):
    page = phone_page
    # the narrow layout is shown: the whole picture, mask included, fits the screen without scrolling sideways
    shown = page.evaluate(SHOWN_SVGS, "#e3 .c13-e3-picture svg")
    assert len(shown) == 1 and shown[0].endswith("-narrow")
    box = page.eval_on_selector(f"#{shown[0]}", "s => s.getBoundingClientRect().right")
    assert box <= PHONE["viewport"]["width"]
    for scale in ("real", "small"):
        page.check(f"#e3 input[value={scale}]")
        for k in (min(data["constants"]["ks"]), 4, max(data["constants"]["ks"])):
            page.fill("#e3 input[type=range]", str(k))
            assert small_text(page, "#e3") == [], f"{scale}, k = {k}"
            assert small_targets(page, "#e3") == [], f"{scale}, k = {k}"
