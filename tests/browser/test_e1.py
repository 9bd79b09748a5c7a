"""E1 in the browser: the request path's cells are buttons that show the anchor's figures."""
from legibility import small_text, small_targets


def test_a_chosen_cell_shows_the_anchors_figure(lesson, data):
    page, _ = lesson
    anchor = data["anchor"]
    assert page.get_attribute("#e1", "data-c13-init") == "done"
    assert f"{anchor['weight_read_ms_per_token']:.2f} ms" in page.inner_text("#e1 .c13-e1-panel")
    page.click("#e1 g.c13-cell[data-cell=compute] >> visible=true")
    panel = page.inner_text("#e1 .c13-e1-panel")
    assert page.get_attribute("#e1 .c13-e1-panel", "data-cell") == "compute"
    assert f"{anchor['positions_verified']} 个位置" in panel and "GFLOP" in panel


def test_cells_take_the_keyboard(lesson):
    page, _ = lesson
    page.locator("#e1 g.c13-cell[data-cell=sample] >> visible=true").focus()
    page.keyboard.press("Enter")
    assert page.get_attribute("#e1 .c13-e1-panel", "data-cell") == "sample"
    assert page.get_attribute("#e1 g.c13-cell[data-cell=sample]", "aria-pressed") == "true"
    assert page.get_attribute("#e1 g.c13-cell[data-cell=read]", "aria-pressed") == "false"


def test_the_temperature_cell_reads_the_replays_temperature(lesson, data):
    page, _ = lesson
    page.click("#e1 g.c13-cell[data-cell=params] >> visible=true")
    assert f"T = {data['replay']['temperature']}" in page.inner_text("#e1 .c13-e1-panel")


# ---- on a phone: a diagram drawn for the width, a panel that reads ----





def test_no_small_text_or_tap_target_in_e1_on_a_phone(phone_page):
    page = phone_page
    assert small_text(page, "#e1") == []
    assert small_targets(page, "#e1") == []
    # the layout shown is the one drawn for the width: its cells are at full size and still work
    shown = page.evaluate("""() => [...document.querySelectorAll('#e1 figure svg')]
        .filter((s) => s.getBoundingClientRect().width > 0).map((s) => s.id)""")
    assert len(shown) == 1 and shown[0].endswith("-narrow")
    page.click(f"#{shown[0]} g.c13-cell[data-cell=compute]")
    assert page.get_attribute("#e1 .c13-e1-panel", "data-cell") == "compute"
    # both layouts show the same choice
    pressed = page.eval_on_selector_all("#e1 figure g.c13-cell[aria-pressed=true]", "gs => gs.map((g) => g.dataset.cell)")
    assert pressed == ["compute", "compute"]


def test_each_value_of_the_panel_keeps_its_numbers_whole_on_a_phone(phone_page):
    page = phone_page
    for cell in ("read", "compute", "prefill", "append", "kv"):
        page.click(f"#e1 figure g.c13-cell[data-cell={cell}] >> visible=true")
        broken = page.evaluate("""() => {
            const out = [];
            for (const dd of document.querySelectorAll('#e1 .c13-e1-panel .c13-dl dd')) {
                const panel = dd.closest('.c13-e1-panel').getBoundingClientRect().width;
                if (dd.getBoundingClientRect().width < 0.6 * panel) out.push('narrow column: ' + dd.textContent);
                const text = dd.firstChild;
                for (const m of dd.textContent.matchAll(/[\\d.,]+(?: ?(?:GB|ms|GFLOP|MB|MiB))?/g)) {
                    const range = document.createRange();
                    range.setStart(text, m.index);
                    range.setEnd(text, m.index + m[0].length);
                    if (range.getClientRects().length > 1) out.push('split number: ' + m[0]);
                }
            }
            return out; }""")
        assert broken == [], f"{cell}: {broken}"
