"""The suite's two tiers and where its time goes, printed at the end of every run.

`make test` runs everything; `make test-fast` runs what is not marked `slow` (pytest -m "not slow"): every stage,
in seconds per test. A test is marked by what it costs, `@pytest.mark.slow("builds a site from retrained models")`,
where it is defined, when it takes more than about a second on an idle 2-core machine or shares a costly set-up
with one that does. The marks are checked by the clock: at the end of a run a report lists each unmarked test
whose own run took more than FAST_TEST_S, and, in the fast tier, says so loudly when the tier took more than
FAST_TIER_S. The report lists and does not fail: a loaded machine is slower, and the list is for the maintainer.
It also prints the time spent per folder, next to pytest's own list of the slowest items (--durations in
pyproject.toml).
"""
import time
from collections import defaultdict
from pathlib import PurePosixPath

import pytest

FAST_TEST_S = 5.0      # an unmarked test whose own run (the call) takes longer is listed: a fast test takes about
                       # 1 s or less on an idle 2-core machine, which leaves it room for a loaded one
FAST_TIER_S = 180.0    # the whole fast tier, on 2 cores

_spent = defaultdict(float)        # nodeid → seconds (set-up, call and teardown)
_calls = {}                        # nodeid → seconds of the call alone
_slow = set()                      # nodeids marked slow
_started = [None]


def configure(config):
    config.addinivalue_line(
        "markers", "slow(cost): a test that takes more than about 1 s on 2 cores, or shares a set-up that does; the "
                   "argument says what it costs. "
                   "`make test` runs it; `make test-fast` (-m 'not slow') leaves it out")
    _started[0] = time.monotonic()


def check_marks(items):
    """A slow mark says what the test costs: one without its reason is a mistake of the suite, named here."""
    bare = [item.nodeid for item in items
            if (mark := item.get_closest_marker("slow")) is not None and not (mark.args and mark.args[0])]
    if bare:
        raise pytest.UsageError("a slow mark says what the test costs, @pytest.mark.slow(\"…\"): " + ", ".join(bare[:5]))


def record(report):
    _spent[report.nodeid] += report.duration
    if report.when == "call":
        _calls[report.nodeid] = report.duration
        if "slow" in report.keywords:
            _slow.add(report.nodeid)


def folder(nodeid):
    return str(PurePosixPath(nodeid.split("::")[0]).parent)


def summary(terminalreporter, config):
    if not _spent:
        return
    write = terminalreporter.write_line
    by_folder, counts = defaultdict(float), defaultdict(int)
    for nodeid, seconds in _spent.items():
        by_folder[folder(nodeid)] += seconds
        counts[folder(nodeid)] += 1
    terminalreporter.section("time per folder")
    for name, seconds in sorted(by_folder.items(), key=lambda kv: -kv[1]):
        write(f"{seconds:8.1f} s  {counts[name]:4d} tests  {name}/")
    write(f"{sum(by_folder.values()):8.1f} s  {sum(counts.values()):4d} tests  in all "
          f"(wall clock {time.monotonic() - _started[0]:.1f} s)")

    unmarked = sorted(((s, n) for n, s in _calls.items() if n not in _slow and s > FAST_TEST_S), reverse=True)
    terminalreporter.section("tiers")
    if unmarked:
        write(f"{len(unmarked)} unmarked test(s) ran over the fast tier's {FAST_TEST_S:.0f} s: "
              "mark each @pytest.mark.slow(\"what it costs\"), or make it cheaper", yellow=True, bold=True)
        for seconds, nodeid in unmarked:
            write(f"{seconds:8.1f} s  {nodeid}", yellow=True)
    else:
        write(f"every unmarked test ran within the fast tier's {FAST_TEST_S:.0f} s")
    fast = "not slow" in (config.getoption("markexpr") or "")
    elapsed = time.monotonic() - _started[0]
    if fast and elapsed > FAST_TIER_S:
        write(f"THE FAST TIER TOOK {elapsed:.0f} s, OVER ITS {FAST_TIER_S:.0f} s: mark the slowest tests above "
              "by what they cost, or share their set-up", red=True, bold=True)
    elif fast:
        write(f"the fast tier took {elapsed:.0f} s of its {FAST_TIER_S:.0f} s")
