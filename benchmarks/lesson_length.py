"""How long the built lesson reads: Chinese characters shown in the default state and with every fold
open, sentences over 120 and 180 characters, screens at 1280 and 375 px, and minutes of reading at 400 characters
a minute.

    .venv/bin/python benchmarks/lesson_length.py [SITE] [--page index.html] [--long]

SITE is a built site (default: site/; build one with `python -m generator build --out DIR`). --long prints the
sentences over 120 characters.
"""
import argparse
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from browserlib import CHROMIUM_ARGS, opened  # noqa: E402

from generator.pages.serve import make_server  # noqa: E402
from tests.pagetext import BY_SECTION, measure  # noqa: E402

READING_PER_MINUTE = 400


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("site", nargs="?", default=str(ROOT / "site"))
    ap.add_argument("--page", default="index.html")
    ap.add_argument("--long", action="store_true")
    ap.add_argument("--sections", action="store_true", help="the shown Chinese characters under each heading")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright
    server, url = make_server(Path(args.site), port=0, prefix="/", quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        with opened(browser, url + args.page, viewport={"width": 1280, "height": 900}) as (page, _):
            wide = measure(page)
            sections = page.evaluate(BY_SECTION) if args.sections else []
        with opened(browser, url + args.page, viewport={"width": 375, "height": 740}) as (page, _):
            narrow = measure(page)
        browser.close()
    server.shutdown()
    lengths = wide["lengths"]
    print(f"{args.page}: {wide['han']:,} Chinese characters shown ({wide['han_open']:,} with every fold open); "
          f"reading {wide['han'] / READING_PER_MINUTE:.1f} min at {READING_PER_MINUTE} a minute")
    print(f"  sentences: {len(lengths)}; over 120 characters: {sum(n > 120 for n in lengths)}; "
          f"over 180: {sum(n > 180 for n in lengths)}; longest {lengths[0] if lengths else 0}")
    print(f"  screens: {wide['screens']:.1f} at 1280 px, {narrow['screens']:.1f} at 375 px")
    for title, n in sections:
        print(f"  {n:6,}  {title}")
    if args.long:
        for s in sorted(wide["sentences"], key=len, reverse=True):
            if len(s) > 120:
                print(f"    {len(s)}: {s}")


if __name__ == "__main__":
    main()
