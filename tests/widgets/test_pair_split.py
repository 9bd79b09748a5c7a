"""The editable pair's stacked picture is drawn before Python is loaded (and where it never loads), so its split —
the overlap min(p, q), the residual (p − q)⁺ and the excess (q − p)⁺ — is computed in the browser by
widgets/pair/model.js `split`. It must be sampler.py's own split, the one the build draws the default preset with
(generator/pages/pair_presets.py columns: sampler.overlap and sampler.residual): both run here on every preset and
on many pairs of thousandths (zeros and ties included), and must give the same doubles."""
import base64
import json
import random
import shutil
import subprocess

import pytest

from generator.shared_sampler import sampler
from generator.pages import pair_presets
from tests.conftest import ROOT

MODEL = ROOT / "widgets" / "pair" / "model.js"

NODE_SCRIPT = """
import { readFileSync } from "node:fs";
const source = readFileSync(%s, "utf8");
const { split } = await import("data:text/javascript;base64," + Buffer.from(source).toString("base64"));
const pairs = JSON.parse(readFileSync(0, "utf8"));
console.log(JSON.stringify(pairs.map(([p, q]) => split(p, q))));
"""


def js_split(pairs):
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to run widgets/pair/model.js (install Node 20)")
    run = subprocess.run([node, "--input-type=module", "-e", NODE_SCRIPT % json.dumps(str(MODEL))],
                         input=json.dumps(pairs), capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def thousandths(rng, size=6):
    """A distribution in whole thousandths, as the widget holds one (pair_presets.UNIT), often with zeros or ties."""
    cuts = sorted(rng.choice([rng.randrange(pair_presets.UNIT + 1), 0, 500, pair_presets.UNIT])
                  for _ in range(size - 1))
    units = [b - a for a, b in zip([0, *cuts], [*cuts, pair_presets.UNIT])]
    return [u / pair_presets.UNIT for u in units]


def pairs():
    out = [[[u / pair_presets.UNIT for u in p], [u / pair_presets.UNIT for u in q]]
           for _, _, _, p, q in pair_presets.read_presets()[1]]
    rng = random.Random(25)
    for _ in range(400):
        p = thousandths(rng)
        out.append([p, list(p) if rng.random() < 0.1 else thousandths(rng)])
    return out


def test_the_live_split_is_sampler_pys_split():
    cases = pairs()
    got = js_split(cases)
    differ = [(p, q, g) for (p, q), g in zip(cases, got, strict=True)
              if g != json.loads(json.dumps(pair_presets.columns(sampler, p, q)))]
    assert not differ, "\n".join(f"p={p} q={q}: model.js {g}" for p, q, g in differ[:5])
    # the cases reach every branch: a token where p > q, where q > p, where they are equal, and zeros on each side
    tokens = [(a, b) for p, q in cases for a, b in zip(p, q)]
    assert any(a > b for a, b in tokens) and any(b > a for a, b in tokens) and any(a == b > 0 for a, b in tokens)
    assert any(a == 0 < b for a, b in tokens) and any(b == 0 < a for a, b in tokens)
