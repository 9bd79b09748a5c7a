"""A walkthrough of the lesson page (index.html) as its text invites, in Chromium at 1280 px: every experiment from
E1 to E5, each step done the way the prose asks for it, timed where a machine can time it.

    .venv/bin/python benchmarks/walkthrough.py [SITE] [--act-s 20] [--guess-s 60] [--per-minute 400] [--phone 0.25]

SITE is a built site (default: site/). --phone walks it at 375 px with the whole browser held to that share of one
CPU core (a CPU cgroup, as tests/browser/test_slow_device.py does: needs root), as on a slow phone. What it prints,
and what each figure is:
- measured: the page's own wait after each step (Python loading, a run, an animation), from the press to the
  result on screen; and the Chinese characters each step brings onto the screen (a run's summary, an answer
  unfolded, a term's entry), which the reader has to read as well;
- counted: the page's characters in its default state and the steps of the walk;
- assumed, and printed as such: the reading rate (characters a minute) and the time a reader spends on a step
  besides reading and waiting (--act-s for a press or a drag, --guess-s for a step that asks for a guess first).
Then it gives the time per step at which the unit would reach the minutes the lesson's header promises, which
assumes nothing about the steps, and the reading rate at which it would, given the steps' allowances. The waits
count Python's load in full, though a reader reads E2's own text while it loads.

A person's walkthrough is still the test of the 45 minutes; this is the part of it a machine can do.
"""
import argparse
import sys
import tempfile
import threading
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from browserlib import CHROMIUM_ARGS, PHONE, WIDE, chromium_path, opened  # noqa: E402
from cpulimit import cpu_limited  # noqa: E402
from lesson_length import READING_PER_MINUTE  # noqa: E402
from walklib import promised_minutes, walk  # noqa: E402

from generator.pages.serve import make_server  # noqa: E402
from tests.pagetext import measure  # noqa: E402


def report(steps, han, unit, args):
    rate = args.per_minute
    print(f"{'where':<6} {'kind':<5} {'page s':>7} {'new chars':>9} {'looks':>5}  step")
    for exp, what, kind, seconds, new, looks in steps:
        print(f"{exp:<6} {kind:<5} {seconds:7.1f} {new:9,} {looks:5}  {what}")
    shown = sum(s[4] for s in steps)
    waits = sum(s[3] for s in steps)
    acts = sum(s[2] == "act" for s in steps)
    guesses = sum(s[2] == "guess" for s in steps)
    reading = (han + shown) / rate
    doing = (acts * args.act_s + guesses * args.guess_s) / 60
    total = reading + waits / 60 + doing
    print(f"\nmeasured: the page's waits {waits / 60:.1f} min in all; the steps brought {shown:,} characters on screen")
    print(f"counted: {han:,} characters in the default state; {acts} presses or drags and {guesses} guesses")
    print(f"assumed: reading {rate} characters a minute, {args.act_s:g} s a press or drag, {args.guess_s:g} s a guess")
    print(f"  reading {reading:.1f} min (the page {han / rate:.1f}, what the steps showed {shown / rate:.1f})"
          f" + waiting {waits / 60:.1f} min + doing {doing:.1f} min = {total:.1f} min"
          f" ({'within' if total <= unit else 'over'} {unit})")
    for_steps = unit - reading - waits / 60
    if for_steps > 0:
        print(f"  the unit reaches {unit} min when the {acts + guesses} steps take"
              f" {for_steps * 60 / (acts + guesses):.0f} s each on average, besides reading and waiting")
    else:
        print(f"  reading and waiting alone exceed {unit} min")
    for_reading = unit - waits / 60 - doing
    if for_reading > 0:
        print(f"  with that doing, the unit reaches {unit} min at a reading rate of"
              f" {(han + shown) / for_reading:.0f} characters a minute")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("site", nargs="?", default=str(ROOT / "site"))
    ap.add_argument("--act-s", type=float, default=20.0, help="seconds a reader spends on a press or a drag")
    ap.add_argument("--guess-s", type=float, default=60.0, help="seconds a reader spends on a guess and its check")
    ap.add_argument("--per-minute", type=int, default=READING_PER_MINUTE, help="reading rate, characters a minute")
    ap.add_argument("--phone", type=float, metavar="SHARE", help="375 px, the browser held to SHARE of one core")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright
    server, url = make_server(Path(args.site), port=0, prefix="/", quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with sync_playwright() as pw, ExitStack() as stack:
        executable, context = chromium_path(), {"viewport": WIDE}
        if args.phone:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            wrapper, _ = stack.enter_context(cpu_limited(args.phone, folder, executable))
            executable, context = str(wrapper), PHONE
        browser = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        with opened(browser, url + "index.html", **context) as (page, _):
            han, unit = measure(page)["han"], promised_minutes(page)
            steps = walk(page)
        browser.close()
    server.shutdown()
    where = f"375 px, Chromium held to {args.phone:g} of a core" if args.phone else "1280 px"
    print(f"walked {args.site}/index.html at {where}")
    report(steps, han, unit, args)


if __name__ == "__main__":
    main()
