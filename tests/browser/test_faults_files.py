"""E6 checks each downloaded file's size and sha256 (c13.json → browser.files, through the
widget payload) before parsing it; a mismatch, a file that does not parse, a dropped connection or a model whose
logits are not finite gives a Chinese message naming the file and saying what to do, caches nothing, and the next
开始 downloads the file again. No Python traceback is ever shown."""
import pytest
from browserlib import WIDE, opened
from faultlib import (all_nan, configure, no_traceback, progress, serve_bytes, settle_e6,
                      sign_flipped, start_e6, target_name)

# ------------------------------------------------------------------------------------------------------------
# 2. E6 checks each download's sha256 before parsing; a model with non-finite logits is never kept
# ------------------------------------------------------------------------------------------------------------

@pytest.mark.slow("E6's downloads in Chromium against a server that breaks files")
def test_a_corrupted_weight_file_is_refused_by_its_sha256_and_the_retry_downloads_it_again(browser, served, site, data):
    small = data["constants"]["drafts"][0]
    name = f"{small}.safetensors"
    raw = (site / "assets" / "c13" / "models" / name).read_bytes()
    hits = []
    pattern = f"**/assets/c13/models/{name}"
    with opened(browser, served + "lab.html", viewport=WIDE, routes=[(pattern, serve_bytes(sign_flipped(raw), hits))]) \
            as (page, log):
        configure(page, draft=small)
        start_e6(page)
        state = settle_e6(page)
        text = progress(page)
        assert state["state"] == "failed", text
        assert name in text and "sha256" in text and "make site" in text and no_traceback(text), text
        assert "identical" not in state and page.locator("#e6 .c13-e6-texts p").count() == 0
        assert page.get_attribute("#e6 button:text-is('开始')", "aria-disabled") == "false"
        page.context.unroute(pattern)
        start_e6(page)
        assert settle_e6(page)["state"] == "done", progress(page)
        assert len(hits) == 1 and len([u for u in log.requests if u.endswith("/" + name)]) == 2


@pytest.mark.slow("E6's downloads in Chromium against a server that breaks files")
def test_weights_with_non_finite_logits_give_a_message_naming_the_file_and_are_not_kept(browser, served, site, data):
    small = data["constants"]["drafts"][0]
    name = f"{small}.safetensors"
    raw = (site / "assets" / "c13" / "models" / name).read_bytes()
    bad = all_nan(raw)
    recorded = data["browser"]["files"][name]["sha256"]

    def page_with_bad_hash(route):
        # as a build whose recorded sha256 is that of the broken file: the sha256 check passes, the logits do not
        import hashlib
        response = route.fetch()
        html = response.text().replace(recorded, hashlib.sha256(bad).hexdigest())
        route.fulfill(status=200, body=html, headers={"content-type": "text/html; charset=utf-8"})

    hits = []
    routes = [("**/course/c13/lab.html", page_with_bad_hash), (f"**/assets/c13/models/{name}", serve_bytes(bad, hits))]
    with opened(browser, served + "lab.html", viewport=WIDE, routes=routes) as (page, log):
        configure(page, draft=small, temperature=1)
        for attempt in (1, 2):
            start_e6(page)
            state = settle_e6(page)
            text = progress(page)
            assert state["state"] == "failed", text
            assert name in text and "非有限" in text and no_traceback(text), text
            assert len(hits) == attempt, "the broken model was kept: the retry did not download it again"


# ------------------------------------------------------------------------------------------------------------
# 5. truncated, dropped and corrupt downloads: Chinese messages that name the file and say what to do
# ------------------------------------------------------------------------------------------------------------

def chinese_and_named(text, name):
    return name in text and "按“开始”" in text and "make site" in text and no_traceback(text) \
        and "truncated" not in text.split("（")[0]


@pytest.mark.slow("E6's downloads in Chromium against a server that breaks files")
@pytest.mark.parametrize("case", ["truncated-weights", "corrupt-header", "truncated-tokenizer"])
def test_a_truncated_or_corrupt_file_is_named_in_chinese_and_the_retry_recovers(browser, served, site, data, case):
    small = data["constants"]["drafts"][0]
    name = "tokenizer.json" if case == "truncated-tokenizer" else f"{small}.safetensors"
    raw = (site / "assets" / "c13" / "models" / name).read_bytes()
    body = {"truncated-weights": raw[: len(raw) // 3], "truncated-tokenizer": raw[: len(raw) // 2],
            "corrupt-header": b"\xff" * 8 + raw[8:]}[case]
    hits = []
    pattern = f"**/assets/c13/models/{name}"
    with opened(browser, served + "lab.html", viewport=WIDE, routes=[(pattern, serve_bytes(body, hits))]) \
            as (page, log):
        configure(page, draft=small)
        start_e6(page)
        state = settle_e6(page)
        text = progress(page)
        assert state["state"] == "failed" and chinese_and_named(text, name), text
        assert ("不完整" if case.startswith("truncated") else "sha256") in text, text
        page.context.unroute(pattern)
        start_e6(page)
        assert settle_e6(page)["state"] == "done", progress(page)


@pytest.mark.slow("E6's downloads in Chromium against a server that breaks files")
def test_a_dropped_connection_is_named_in_chinese_and_the_retry_recovers(browser, faulty):
    faults, url = faulty
    with opened(browser, url + "lab.html", viewport=WIDE, allow_errors=[r"ERR_CONTENT_LENGTH_MISMATCH|net::"]) \
            as (page, log):
        name = target_name(page)
        faults.set(name, ("drop", 1_500_000))
        configure(page)
        start_e6(page)
        state = settle_e6(page)
        text = progress(page)
        assert state["state"] == "failed" and name in text and "中断" in text and "按“开始”" in text, text
        assert no_traceback(text), text
        faults.clear()
        start_e6(page)
        assert settle_e6(page)["state"] == "done", progress(page)
