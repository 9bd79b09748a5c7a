"""E6's two forwards (widgets/e6/forwards.mjs: the JavaScript one of model.mjs and the WebAssembly SIMD one of
forward.wat, run by Node through tests/widgets/node/e6_forward.mjs) against torch, each test once per forward.

The fixture is written at test time by the generator (write_logits_fixture): torch's float32 logits of the
float16-rounded weights in precomputed/browser/, fed the way speculative decoding feeds them (a prompt at once,
single tokens, a chunk of k + 1, rollbacks and different tokens after them).
"""
import json
import math
import shutil
import subprocess

import pytest
import torch
from safetensors.torch import save as safetensors_bytes

from generator.data.browser_files import browser_name, safetensors_f16, write_browser_files, write_logits_fixture
from generator.models.family import DRAFTS, TARGET
from tests.conftest import ROOT

BROWSER = ROOT / "precomputed" / "browser"
DRIVER = ROOT / "tests" / "widgets" / "node" / "e6_forward.mjs"
TOLERANCE = 1e-4  # the bound on |JS or WebAssembly logit − torch float32 logit|
ENGINES = ["js", "wasm", "wasm-relaxed"]  # model.mjs; forward.wasm (standard SIMD); forward-relaxed.wasm
KERNELS = {"js": "js", "wasm": "wasm-simd128", "wasm-relaxed": "wasm-simd128"}
SIMD = {"js": None, "wasm": "standard", "wasm-relaxed": "relaxed"}


def node(*args):
    exe = shutil.which("node") or pytest.fail("node is needed (install Node 20)")
    run = subprocess.run([exe, str(DRIVER), *map(str, args)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def feed_plan(prompt_len, k):
    """How speculative decoding feeds a model: the prompt at once, single tokens (the draft's steps), a chunk of
    k + 1 (the target's verification), a rollback to the accepted prefix and a different token after it (the
    replacement), a chunk asking for fewer rows than it feeds, a deep rollback and a long re-feed."""
    accepted = prompt_len + 3 + 1
    return [{"feed": prompt_len}, {"feed": 1}, {"feed": 1}, {"feed": 1}, {"feed": k + 1},
            {"rollback": accepted}, {"tokens": [7, 300]}, {"feed": 1}, {"feed": 1},
            {"feed": k + 1, "last": 2}, {"rollback": prompt_len + 1}, {"feed": 20}, {"feed": 1}]


@pytest.fixture(scope="module")
def fixture_file(tmp_path_factory, data):
    first = data["prompts"][0]
    sequence = first["tokens"] + data["greedy"]["reference"][first["text"]]
    out = tmp_path_factory.mktemp("e6") / "logits.json"
    write_logits_fixture(BROWSER, sequence, out, feed_plan(len(first["tokens"]), 4))
    return out


@pytest.fixture(scope="module", params=ENGINES)
def compared(fixture_file, request):
    result = node("compare", fixture_file, BROWSER, request.param)
    for name, got in result.items():  # the forward asked for, never a fallback
        assert (got["kernel"], got["simd"]) == (KERNELS[request.param], SIMD[request.param]), name
    return result, json.loads(fixture_file.read_text(encoding="utf-8"))


def test_logits_equal_torch_float32_at_every_fed_position(compared):
    result, fixture = compared
    assert set(result) == set(fixture["models"]) == {TARGET, *DRAFTS}
    for name, got in result.items():
        steps = fixture["models"][name]["steps"]
        fed = [s for s in got["steps"] if "maxAbs" in s]
        assert len(fed) == sum(1 for s in steps if "logits" in s) == 11, name
        assert got["maxAbs"] < TOLERANCE, (name, got["maxAbs"])
        after = [s for i, s in enumerate(got["steps"]) if i and "rollback" in got["steps"][i - 1]]
        assert len(after) == 2 and all(s["maxAbs"] < TOLERANCE for s in after), name


def test_the_decoder_feeds_only_what_the_cache_lacks(compared):
    """Before each feed the JS cache holds exactly the positions torch's did (rollbacks included), and each call
    is one forward."""
    result, fixture = compared
    for name, got in result.items():
        steps = fixture["models"][name]["steps"]
        starts = [s["start"] for s in steps if "logits" in s]
        assert [s["cachedBefore"] for s in got["steps"] if "maxAbs" in s] == starts, name
        assert got["forwards"] == len(starts) + 1, name  # the feeds, then one probs call


def test_probs_rows_are_distributions_over_the_vocabulary(compared):
    result, _ = compared
    for name, got in result.items():
        assert got["probsLength"] == [got["config"]["vocab_size"]] * 4, name
        assert all(abs(s - 1) < 1e-12 for s in got["probsSums"]), (name, got["probsSums"])


@pytest.mark.parametrize("engine", ENGINES)
def test_another_shape_of_the_family_runs_from_its_own_config(tiny_family, tmp_path, engine):
    """Nothing of the real models' shape is built in: 2 layers, 2 heads, widths 8/16/32, a context of 32."""
    write_browser_files(tiny_family, tmp_path)
    fixture = tmp_path / "logits.json"
    write_logits_fixture(tmp_path, list(range(3, 30)), fixture, feed_plan(3, 3))
    result = node("compare", fixture, tmp_path, engine)
    for name, got in result.items():
        assert (got["kernel"], got["simd"]) == (KERNELS[engine], SIMD[engine]), name
        assert got["config"]["n_layer"] == 2 and got["config"]["n_head"] == 2, name
        assert got["maxAbs"] < TOLERANCE, (name, got["maxAbs"])


@pytest.mark.parametrize("engine", ENGINES)
def test_a_context_overflow_throws_and_leaves_the_decoder_usable(engine):
    out = node("overflow", BROWSER, engine)
    assert out["kernel"] == KERNELS[engine]
    context = out["context"]
    assert not out["tooLong"]["ok"] and f"context of {context}" in out["tooLong"]["error"]
    assert out["fits"] == {"ok": True, "value": 1}
    assert not out["onePast"]["ok"] and f"{context + 1} tokens" in out["onePast"]["error"]
    assert out["cachedAfter"] == context
    assert out["again"] == {"ok": True, "value": 1}
    assert not out["badToken"]["ok"] and "token 99999 is not in the vocabulary" in out["badToken"]["error"]


def tensors_of(path):
    from safetensors import safe_open
    with safe_open(str(path), framework="pt") as f:
        return f.metadata(), {name: f.get_tensor(name) for name in f.keys()}


def broken_files(tmp_path):
    """(file, read as a GPT?, words the error must contain): each a way a download or a file can be wrong."""
    source = BROWSER / browser_name(DRAFTS[0])
    raw = source.read_bytes()
    meta, tensors = tensors_of(source)
    header_len = int.from_bytes(raw[:8], "little")
    cases = {
        "empty": (b"", False, "truncated"),
        "cut in the data": (raw[: len(raw) // 2], False, "truncated"),
        "cut in the header": (raw[: 8 + header_len // 2], False, "truncated"),
        "header not JSON": (raw[:8] + b"{" * header_len + raw[8 + header_len:], False, "bad header"),
        "header a list": (len(b"[]      ").to_bytes(8, "little") + b"[]      ", False, "bad header"),
        "unknown dtype": (safetensors_bytes({"x": torch.zeros(3, dtype=torch.bfloat16)}), False, "BF16"),
        "tensor missing": (safetensors_f16({n: t for n, t in tensors.items() if n != "blocks.1.mlp.up.weight"},
                                           meta), True, "blocks.1.mlp.up.weight is missing"),
        "shape disagrees": (safetensors_f16(tensors, dict(meta, config=meta["config"].replace('"n_embd":64',
                                                                                            '"n_embd":32'))),
                            True, "tok_emb.weight has shape [2048,64]"),
        "no config": (safetensors_f16(tensors, {"source_sha256": meta["source_sha256"]}), True, "config"),
    }
    for name, (data, as_gpt, words) in cases.items():
        path = tmp_path / (name.replace(" ", "_") + ".safetensors")
        path.write_bytes(data)
        yield name, path, as_gpt, words


@pytest.mark.parametrize("engine", ENGINES)
def test_a_truncated_or_corrupt_file_throws_a_clear_error(tmp_path, engine):
    for name, path, as_gpt, words in broken_files(tmp_path):
        out = node("read", path, "gpt" if as_gpt else "tensors", engine)
        assert not out["ok"], name
        assert words in out["error"], (name, out["error"])


def test_float16_values_convert_exactly_subnormals_infinities_and_nan_included(tmp_path):
    tiny = 2.0 ** -24
    values = [0.0, -0.0, 1.0, -2.5, 65504.0, -65504.0, tiny, 3 * tiny, 1023 * tiny, 2.0 ** -14,
              float("inf"), float("-inf"), float("nan"), 0.1, 1 / 3]
    half = torch.tensor(values, dtype=torch.float16)
    single = torch.tensor([[1.5, -1e-30], [3.4e38, float("nan")]], dtype=torch.float32)
    path = tmp_path / "special.safetensors"
    path.write_bytes(safetensors_bytes({"half": half, "single": single}, metadata={"note": "x"}))
    out = node("read", path)
    assert out["ok"], out
    got = out["value"]["tensors"]
    assert out["value"]["metadata"] == {"note": "x"}
    assert got["half"]["shape"] == [len(values)] and got["single"]["shape"] == [2, 2]
    special = {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}
    for name, t in (("half", half), ("single", single)):
        want = [v if math.isfinite(v) else str(v) for v in t.float().flatten().tolist()]
        assert [special.get(v, v) for v in got[name]["data"]] == want, name


def test_erf_is_accurate_to_float64():
    """GELU is the exact erf form (torch's default), so the module's erf must be a real erf, not tanh's."""
    xs = [i / 100 for i in range(-800, 801)] + [2.4999999, 2.5, 5.9999999, 6.0, 1e-9, -1e-9, 30.0, -30.0]
    got = node("erf", json.dumps(xs))
    worst = max(abs(g - math.erf(x)) for g, x in zip(got, xs))
    assert worst < 1e-14, worst
