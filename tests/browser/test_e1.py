"""E1 in the browser: the request path's cells are buttons that show the anchor's figures."""


def test_a_chosen_cell_shows_the_anchors_figure(lesson, data):
    page, _ = lesson
    anchor = data["anchor"]
    assert page.get_attribute("#e1", "data-c13-init") == "done"
    assert f"{anchor['weight_read_ms_per_token']:.2f} ms" in page.inner_text("#e1 .c13-e1-panel")
    page.click("#e1 g.c13-cell[data-cell=compute]")
    panel = page.inner_text("#e1 .c13-e1-panel")
    assert page.get_attribute("#e1 .c13-e1-panel", "data-cell") == "compute"
    assert f"{anchor['positions_verified']} 个位置" in panel and "GFLOP" in panel


def test_cells_take_the_keyboard(lesson):
    page, _ = lesson
    page.focus("#e1 g.c13-cell[data-cell=sample]")
    page.keyboard.press("Enter")
    assert page.get_attribute("#e1 .c13-e1-panel", "data-cell") == "sample"
    assert page.get_attribute("#e1 g.c13-cell[data-cell=sample]", "aria-pressed") == "true"
    assert page.get_attribute("#e1 g.c13-cell[data-cell=read]", "aria-pressed") == "false"


def test_the_temperature_cell_reads_the_replays_temperature(lesson, data):
    page, _ = lesson
    page.click("#e1 g.c13-cell[data-cell=params]")
    assert f"T = {data['replay']['temperature']}" in page.inner_text("#e1 .c13-e1-panel")
