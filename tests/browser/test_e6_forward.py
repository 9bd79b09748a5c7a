"""E6's forward once in Chromium: widgets/e6/model.mjs as the site serves it (assets/c13/e6/), on the float16
weights the site serves (assets/c13/models/), against torch's float32 logits of the same rounded weights.

The fixture is written by the generator at test time (write_logits_fixture); Node runs the same comparison for
every model in tests/test_e6_model.py, this is the one check that the browser's JavaScript engine gives the same.
"""
import json

import pytest
from browserlib import WIDE, opened

from generator.data.browser_files import write_logits_fixture
from tests.conftest import ROOT

TOLERANCE = 1e-4  # the bound on |JS logit − torch float32 logit|

REPLAY = """async ({fixture}) => {
  const { Decoder, GPT } = await import(new URL("assets/c13/e6/model.mjs", document.baseURI).href);
  const out = {};
  for (const [name, entry] of Object.entries(fixture.models)) {
    const response = await fetch(new URL(`assets/c13/models/${entry.file}`, document.baseURI).href);
    const decoder = new Decoder(GPT.fromSafetensors(await response.arrayBuffer()));
    const vocab = entry.config.vocab_size;
    let tokens = [], worst = 0, fed = 0;
    for (const step of entry.steps) {
      if ("rollback" in step) { decoder.rollback(step.rollback); continue; }
      tokens = tokens.slice(0, step.start).concat(step.tokens);
      const rows = decoder.logits(tokens, step.last);
      const raw = Uint8Array.from(atob(step.logits), (c) => c.charCodeAt(0));
      const want = new Float32Array(raw.buffer);
      rows.forEach((row, r) => row.forEach((v, i) => { worst = Math.max(worst, Math.abs(v - want[r * vocab + i])); }));
      fed += 1;
    }
    out[name] = { worst, fed };
  }
  return out;
}"""


@pytest.fixture(scope="module")
def fixture(tmp_path_factory, data):
    first = data["prompts"][0]
    sequence = first["tokens"] + data["greedy"]["reference"][first["text"]]
    n = len(first["tokens"])
    feeds = [{"feed": n}, {"feed": 1}, {"feed": 1}, {"feed": 5}, {"rollback": n + 3}, {"feed": 1}, {"feed": 5, "last": 2}]
    out = tmp_path_factory.mktemp("e6-chromium") / "logits.json"
    write_logits_fixture(ROOT / "precomputed" / data["browser"]["dir"], sequence, out, feeds)
    return json.loads(out.read_text(encoding="utf-8"))


def test_the_forward_in_chromium_matches_torch_float32(browser, served, fixture, data):
    with opened(browser, served + "index.html", viewport=WIDE) as (page, _):
        result = page.evaluate(REPLAY, {"fixture": fixture})
    models = [data["constants"]["target"], *data["constants"]["drafts"]]
    assert sorted(result) == sorted(models)
    for name in models:
        fed = sum(1 for s in fixture["models"][name]["steps"] if "logits" in s)
        assert result[name]["fed"] == fed
        assert result[name]["worst"] < TOLERANCE, (name, result[name]["worst"])
