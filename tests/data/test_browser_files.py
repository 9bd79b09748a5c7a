"""The files E6's browser loads (generator/data/browser_files.py): float16 weights and the tokenizer, written by the
data stage to precomputed/browser/, deterministic, traceable to their float32 sources, and close enough."""
import copy
import hashlib
import json

import pytest
import torch
from safetensors import safe_open

from generator.data.browser_files import (CONFIG_KEYS, MODELS, browser_name, float16_error, load_browser_model,
                                          safetensors_f16, write_browser_files, write_logits_fixture)
from generator.errors import InputError
from generator.models.family import DRAFTS, TARGET
from tests.conftest import MODELS as MODELS_DIR, ROOT

BROWSER = ROOT / "precomputed" / "browser"
FILES = [browser_name(name) for name in MODELS] + ["tokenizer.json"]
HALF_ROUNDOFF = 2.0 ** -11  # float16's unit roundoff: 10 stored mantissa bits, round to nearest
SINGLE_EPS = 2.0 ** -23


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("browser")
    return out, write_browser_files(MODELS_DIR, out)


def read(path):
    with safe_open(str(path), framework="pt") as f:
        return f.metadata(), {name: f.get_tensor(name) for name in f.keys()}


@pytest.mark.slow("the browser files written again from the models")
def test_the_writer_is_deterministic_and_the_committed_files_are_its_output(written, tmp_path):
    out, result = written
    again = write_browser_files(MODELS_DIR, tmp_path)
    assert again == result
    assert sorted(result["files"]) == sorted(FILES) and result["dtype"] == "float16"
    for file in FILES:
        data = (out / file).read_bytes()
        assert data == (tmp_path / file).read_bytes(), file
        assert result["files"][file] == {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}, file
        assert (BROWSER / file).read_bytes() == data, f"precomputed/browser/{file} is stale: run the data stage"


def test_the_metadata_carries_the_config_and_the_source_sha256(written):
    out, _ = written
    for name in MODELS:
        meta, _ = read(out / browser_name(name))
        assert set(meta) == {"config", "source_sha256"}
        config = json.loads((MODELS_DIR / name / "config.json").read_text(encoding="utf-8"))
        assert json.loads(meta["config"]) == {key: config[key] for key in CONFIG_KEYS}, name
        assert list(json.loads(meta["config"])) == list(CONFIG_KEYS)
        source = (MODELS_DIR / name / "model.safetensors").read_bytes()
        assert meta["source_sha256"] == hashlib.sha256(source).hexdigest(), name
    assert (out / "tokenizer.json").read_bytes() == (MODELS_DIR / "tokenizer.json").read_bytes()


def test_the_f16_tensors_are_the_float32_ones_rounded(written):
    out, _ = written
    for name in MODELS:
        _, source = read(MODELS_DIR / name / "model.safetensors")
        _, half = read(out / browser_name(name))
        assert sorted(half) == sorted(source), name
        for key, t in source.items():
            assert half[key].dtype == torch.float16 and half[key].shape == t.shape, (name, key)
            assert torch.equal(half[key], t.half()), (name, key)
            rel = ((half[key].float() - t).abs() / t.abs().clamp_min(2.0 ** -14)).max()
            assert rel <= HALF_ROUNDOFF, (name, key, float(rel))


def test_the_header_is_ours_metadata_keys_sorted_and_8_byte_aligned(written):
    out, _ = written
    raw = (out / browser_name(DRAFTS[0])).read_bytes()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    assert n % 8 == 0 and list(header)[0] == "__metadata__"
    assert list(header["__metadata__"]) == sorted(header["__metadata__"])
    names = list(header)[1:]
    assert names == sorted(names)
    ends = [0] + [header[name]["data_offsets"][1] for name in names]
    assert [header[name]["data_offsets"][0] for name in names] == ends[:-1] and 8 + n + ends[-1] == len(raw)


def test_a_missing_checkpoint_raises_naming_the_file_and_writes_nothing(tiny_family, tmp_path):
    weights = tiny_family / DRAFTS[0] / "model.safetensors"
    weights.unlink()
    out = tmp_path / "out"
    with pytest.raises(InputError) as err:
        write_browser_files(tiny_family, out)
    assert err.value.path == str(weights) and "missing" in str(err.value)
    assert not out.exists() or not any(out.iterdir())


def test_a_bad_config_raises_naming_the_field(tiny_family, tmp_path):
    path = tiny_family / TARGET / "config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    del config["n_head"]
    path.write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(InputError) as err:
        write_browser_files(tiny_family, tmp_path / "out")
    assert err.value.path == str(path) and err.value.field == "n_head"


def test_a_browser_file_with_a_bad_config_or_none_raises_naming_it(tiny_family, tmp_path):
    write_browser_files(tiny_family, tmp_path)
    path = tmp_path / browser_name(DRAFTS[0])
    meta, tensors = read(path)
    bad = dict(meta, config=meta["config"].replace('"n_head":2', '"n_head":3'))
    path.write_bytes(safetensors_f16(tensors, bad))
    with pytest.raises(InputError) as err:
        load_browser_model(path)
    assert err.value.path == str(path) and err.value.field == "__metadata__.config.n_head"
    path.unlink()
    with pytest.raises(InputError) as err:
        write_logits_fixture(tmp_path, [1, 2, 3], tmp_path / "fixture.json", [{"feed": 3}])
    assert err.value.path == str(path) and "missing" in str(err.value)


def sequences(data):
    return [p["tokens"] + data["greedy"]["reference"][p["text"]] for p in data["prompts"]]


@pytest.mark.slow("the browser files written again from the models")
def test_float16_changes_the_distributions_by_about_its_precision_and_keeps_the_top_token(data):
    """Each weight moves by at most HALF_ROUNDOFF of itself; through the network that moves a logit by a few of
    those at most, and a probability p by about p·Δlogit ≤ Δlogit. The bound is a few roundoffs, the floor is
    float32's own precision (the rounding must change something, else the comparison compared nothing)."""
    from generator.models.checkpoint import load_family
    _, models = load_family(MODELS_DIR)
    seqs = sequences(data)
    result = float16_error(models, seqs)
    assert result["positions"] == len(MODELS) * sum(len(s) for s in seqs)
    assert SINGLE_EPS < result["max_abs_dp"] < 8 * HALF_ROUNDOFF, result
    assert result["argmax_agree"] == result["positions"], result


def test_float16_error_is_zero_for_weights_float16_holds_exactly(tiny_family):
    from generator.models.checkpoint import load_family
    _, models = load_family(tiny_family)
    exact = {name: copy.deepcopy(m).half().double() for name, m in models.items()}  # .half() converts in place
    result = float16_error(exact, [list(range(1, 20))])
    assert result == {"max_abs_dp": 0.0, "positions": 3 * 19, "argmax_agree": 3 * 19}
    assert float16_error(models, [list(range(1, 20))])["max_abs_dp"] > 0


def test_float16_error_runs_both_twins_in_float64(tiny_family, monkeypatch):
    """Only the weights' rounding may show, not the order in which a CPU's float32 kernels sum (they moved the
    4th printed digit between machines): the float32 weights and their float16 twin both run in float64."""
    from generator.models.checkpoint import load_family
    from generator.models.model import GPT
    _, models = load_family(tiny_family)
    seen, forward = [], GPT.forward
    monkeypatch.setattr(GPT, "forward", lambda self, *args, **kw: seen.append(forward(self, *args, **kw)) or seen[-1])
    float16_error(models, [list(range(1, 20))])
    assert seen and {logits.dtype for logits in seen} == {torch.float64}
