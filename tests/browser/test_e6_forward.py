"""E6's two forwards in Chromium, as the site serves them (assets/c13/e6/forwards.mjs: the JavaScript one of
model.mjs and the WebAssembly SIMD one, forward.wasm fetched beside it), on the float16 weights the site serves
(assets/c13/models/), against torch's float32 logits of the same rounded weights; and the loader's fallback when
forward.wasm cannot be fetched.

The fixture is written by the generator at test time (write_logits_fixture); Node runs the same comparison for
every model in tests/widgets/test_e6_model.py, this is the one check that the browser's engine gives the same.
"""
import json

import pytest
from browserlib import WIDE, opened

from generator.data.browser_files import write_logits_fixture
from generator.models.family import DRAFTS
from tests.conftest import ROOT

TOLERANCE = 1e-4  # the bound on |JS or WebAssembly logit − torch float32 logit|
# the loader's options → (kernel, simd): Chromium has relaxed SIMD, so by default forward-relaxed.wasm
ENGINES = {"js": ({"engine": "js"}, ("js", None)), "auto": ({}, ("wasm-simd128", "relaxed")),
           "standard": ({"relaxed": False}, ("wasm-simd128", "standard"))}

REPLAY = """async ({fixture, options}) => {
  const { Decoder, loadGPT } = await import(new URL("assets/c13/e6/forwards.mjs", document.baseURI).href);
  const out = {};
  for (const [name, entry] of Object.entries(fixture.models)) {
    const response = await fetch(new URL(`assets/c13/models/${entry.file}`, document.baseURI).href);
    const gpt = await loadGPT(await response.arrayBuffer(), options);
    const decoder = new Decoder(gpt);
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
    out[name] = { worst, fed, kernel: gpt.kernel, simd: gpt.simd ?? null, note: gpt.kernelNote ?? null };
  }
  return out;
}"""

# forward.wasm that cannot be fetched (answered 404 below): E6 goes on with the JavaScript forward, saying why
MISSING = """async (name) => {
  const { loadGPT } = await import(new URL("assets/c13/e6/forwards.mjs", document.baseURI).href);
  const response = await fetch(new URL(`assets/c13/models/${name}.safetensors`, document.baseURI).href);
  const gpt = await loadGPT(await response.arrayBuffer());
  return { kernel: gpt.kernel, note: gpt.kernelNote ?? null };
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


@pytest.mark.slow("the models' forward in Chromium against torch")
@pytest.mark.parametrize("engine", ENGINES)
def test_the_forward_in_chromium_matches_torch_float32(browser, served, fixture, data, engine):
    options, kernel = ENGINES[engine]
    with opened(browser, served + "lab.html", viewport=WIDE) as (page, _):
        result = page.evaluate(REPLAY, {"fixture": fixture, "options": options})
    models = [data["constants"]["target"], *data["constants"]["drafts"]]
    assert sorted(result) == sorted(models)
    for name in models:
        fed = sum(1 for s in fixture["models"][name]["steps"] if "logits" in s)
        assert result[name]["fed"] == fed
        assert (result[name]["kernel"], result[name]["simd"], result[name]["note"]) == (*kernel, None), name
        assert result[name]["worst"] < TOLERANCE, (name, result[name]["worst"])


@pytest.mark.slow("the models' forward in Chromium against torch")
def test_a_forward_wasm_that_cannot_be_fetched_falls_back_to_javascript(browser, served):
    routes = [("**/assets/c13/e6/forward*.wasm", lambda route: route.fulfill(status=404, body="missing"))]
    with opened(browser, served + "lab.html", allow_errors=[r"status of 404"], routes=routes,
                viewport=WIDE) as (page, _):
        got = page.evaluate(MISSING, DRAFTS[0])
    assert got["kernel"] == "js" and "改用 JavaScript" in got["note"] and "HTTP 404" in got["note"], got
