"""The number formats exist twice, once per language: Jinja filters for the prose (generator/pages/formats.py)
and widgets/figures/formats.mjs for the figures. Both run here over one table of values and must agree."""
import json
import shutil
import subprocess

import pytest

from generator.pages import formats
from tests.conftest import ROOT

FORMATS_MODULE = ROOT / "widgets" / "figures" / "formats.mjs"

# (filter, value, extra arguments): ordinary values, exact ties (rounded to even by Python), tiny and large ones
VALUES = [0, 1, 0.5, 0.125, 0.375, 2.5, 0.0015, 0.012345, 0.999, 0.05183, 0.2591, 15.3015, 3688704, 1234.5,
          0.000042, 0.0704, 1.25, 0.3]
TABLE = ([("fixed", v, [d]) for v in VALUES for d in (0, 1, 2, 3, 4)]
         + [("pct", v, [d]) for v in VALUES for d in (0, 1, 2)]
         + [(name, v, []) for v in VALUES for name in ("prob", "ms", "sig", "times", "as_written", "times_as_reported",
                                                        "gb", "gflop")]
         + [("num", v, []) for v in (0, 1, 999, 1000, 3688704, 25630000000)]
         + [("num", v, [2]) for v in (0.125, 1234.5, 3688704.375)]
         + [("chinese_units", v, []) for v in (332352, 25630000000, 9999, 12345678, 51260000000)]
         + [("speed", text, [kind, *where]) for text in ("1.59×", "1.4–3.4×", "<b>&") for kind in formats.SPEED_KINDS
            for where in ([], [None], ["构建机 Intel \"Xeon\" <8 核>，PyTorch 2.13 & Node 'v20'，2026-12-01"])])

NODE_SCRIPT = """
import { FORMATS } from %s;
const table = JSON.parse(process.argv[1]);
console.log(JSON.stringify(table.map(([name, value, args]) => FORMATS[name](value, ...args))));
"""


def node():
    path = shutil.which("node")
    if path is None:
        pytest.fail("node is needed to run the figure modules (install Node 20)")
    return path


def js_formats(table):
    script = NODE_SCRIPT % json.dumps(FORMATS_MODULE.as_uri())
    run = subprocess.run([node(), "--input-type=module", "-e", script, json.dumps(table)], capture_output=True,
                         text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_every_figure_format_has_its_python_filter():
    names = {name for name, _, _ in TABLE}
    assert names <= set(formats.FORMATS)


def test_python_and_javascript_formats_agree_over_the_table():
    expected = [formats.FORMATS[name](value, *args) for name, value, args in TABLE]
    got = js_formats(TABLE)
    differ = [(row, e, g) for row, e, g in zip(TABLE, expected, got) if e != g]
    assert not differ, "\n".join(f"{row}: Python {e!r}, JavaScript {g!r}" for row, e, g in differ)


def test_the_table_has_exact_ties_that_javascript_would_round_differently():
    """The table must exercise the tie rule: toFixed alone would disagree with Python somewhere."""
    run = subprocess.run([node(), "-e", "console.log(JSON.stringify([(0.125).toFixed(2), (2.5).toFixed(0)]))"],
                         capture_output=True, text=True)
    assert json.loads(run.stdout) == ["0.13", "3"]
    assert formats.fixed(0.125, 2) == "0.12" and formats.fixed(2.5, 0) == "2"


def test_the_speed_kinds_are_the_same_in_both():
    script = ("import { SPEED_KINDS } from %s; console.log(JSON.stringify(SPEED_KINDS));"
              % json.dumps(FORMATS_MODULE.as_uri()))
    run = subprocess.run([node(), "--input-type=module", "-e", script], capture_output=True, text=True)
    assert json.loads(run.stdout) == formats.SPEED_KINDS
    with pytest.raises(ValueError):
        formats.speed("1.00×", "guess")


def test_a_non_number_is_refused_in_both():
    with pytest.raises(ValueError):
        formats.pct(None)
    script = ("import { pct } from %s; try { pct(null); console.log('no error'); } catch (e) { console.log(e.message); }"
              % json.dumps(FORMATS_MODULE.as_uri()))
    run = subprocess.run([node(), "--input-type=module", "-e", script], capture_output=True, text=True)
    assert "expected a finite number" in run.stdout
