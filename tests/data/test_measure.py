"""make measure → precomputed/measured.json: a short real measurement (--quick) validates, records the models it
timed by sha256 and every figure the page needs (c, v(k), speedup per draft × k, medians within their spread); bad
models and bad files are refused by name; c13.json and `make site` neither depend on it nor on its code.
No test asserts a timing: timings vary by machine."""
import copy
import hashlib
import json
import shutil
import subprocess
import sys

import pytest

from generator import cli, contract
from generator.data import provenance
from generator.errors import InputError
from generator.models.family import DRAFTS, TARGET
from tests.conftest import MODELS, ROOT

MODEL_NAMES = (TARGET, *DRAFTS)


def run_measure(*args):
    return subprocess.run([sys.executable, "-m", "generator", "measure", "--quiet", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """One --quick measurement of the committed models, through the command line."""
    out = tmp_path_factory.mktemp("measured") / "measured.json"
    run = run_measure("--quick", "--out", out)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "ms per forward" in run.stdout and "speedup by k" in run.stdout
    return out


@pytest.mark.slow("a short real measurement of the models (torch and Node)")
def test_the_measurement_validates_and_describes_its_machine(measured):
    data = contract.load_measured(measured)
    m = data["machine"]
    assert m["cpu"] and m["cores"] >= 1 and m["threads"] >= 1 and m["date_utc"].endswith("Z")
    assert m["torch_version"].startswith("2.") and m["python_version"].startswith("3.")
    method = data["method"]
    assert method["quick"] is True and method["repeats"] == 2 and method["dtype"] == "float32"
    assert method["forward_samples"] == method["repeats"] * len(data["speedup"]["prompts"]) * len(
        data["speedup"]["seeds"])


@pytest.mark.slow("a short real measurement of the models (torch and Node)")
def test_every_model_is_recorded_by_the_sha256_of_its_files(measured):
    data = contract.load_measured(measured)
    assert sorted(data["models"]) == sorted(MODEL_NAMES)
    for name in MODEL_NAMES:
        for key, file in (("sha256", "model.safetensors"), ("config_sha256", "config.json")):
            assert data["models"][name][key] == hashlib.sha256((MODELS / name / file).read_bytes()).hexdigest()
    assert data["tokenizer_sha256"] == hashlib.sha256((MODELS / "tokenizer.json").read_bytes()).hexdigest()
    assert contract.changed_models(data, MODELS) == []


def within_spread(stat):
    return stat["min"] <= stat["q1"] <= stat["median"] <= stat["q3"] <= stat["max"] and stat["n"] >= 1


@pytest.mark.slow("a short real measurement of the models (torch and Node)")
def test_c_v_of_every_k_and_a_speedup_for_every_draft_and_k(measured, data):
    m = contract.load_measured(measured)
    ks, drafts = data["constants"]["ks"], data["constants"]["drafts"]  # the lesson's k range and drafts
    assert m["ks"] == ks and m["drafts"] == drafts and m["target"] == data["constants"]["target"]
    assert m["speedup"]["prompts"] == data["accounting"]["prompts"]
    assert set(m["speedup"]["seeds"]) <= set(data["accounting"]["seeds"])
    stats = [m["models"][name]["ms_per_forward"] for name in MODEL_NAMES]
    stats += [m["forward"]["c"][draft] for draft in drafts]
    assert [v["k"] for v in m["forward"]["v"]] == ks
    stats += m["forward"]["v"]
    for draft in drafts:
        rows = m["speedup"]["drafts"][draft]
        assert [r["k"] for r in rows] == ks
        for r in rows:
            stats += [r["speedup"], r["target_only_ms_per_token"], r["speculative_ms_per_token"]]
            assert r["tokens"] >= m["speedup"]["n_new"] * len(m["speedup"]["prompts"]) * len(m["speedup"]["seeds"])
            assert r["draft_forwards"] == r["k"] * r["target_forwards"]
    assert stats and all(within_spread(s) for s in stats)


@pytest.mark.slow("a short real measurement of the models (torch and Node)")
def test_e6s_forwards_are_timed_in_node_beside_torch_and_torchs_overhead_is_counted(measured, data):
    """make measure also times E6's own forwards (WebAssembly SIMD and plain JavaScript) in Node, on the float16
    files the site serves (their sha256 recorded: those c13.json lists), and counts torch's ATen calls per step."""
    m = contract.load_measured(measured)
    browser = m["browser_forwards"]
    assert browser["node"].startswith("v") and set(browser["engines"]) == {"wasm-simd128", "js"}
    assert browser["files"] == {name: entry["sha256"] for name, entry in data["browser"]["files"].items()}
    for entry in browser["engines"].values():
        stats = [entry["ms_per_forward"][name] for name in MODEL_NAMES] + [entry["c"][d] for d in m["drafts"]]
        assert [v["k"] for v in entry["v"]] == m["ks"]
        assert all(within_spread(s) for s in stats + entry["v"])
    # the same model, the two forwards: the WebAssembly one is the faster (a ratio, not a timing: >4× expected)
    wasm, js = (browser["engines"][k]["ms_per_forward"][m["target"]]["median"] for k in ("wasm-simd128", "js"))
    assert wasm < js
    for name in MODEL_NAMES:
        overhead = m["torch_overhead"][name]
        assert overhead["aten_calls_per_step"] > 4 * data["models"][name]["layers"]
        assert 0 < overhead["outside_matmul_share"] < 1


@pytest.mark.slow("a short real measurement of the models (torch and Node)")
def test_a_corrupt_model_is_named_and_the_earlier_file_kept(measured, tmp_path):
    models = tmp_path / "models"
    shutil.copytree(MODELS, models)
    weights = models / TARGET / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    out = tmp_path / "measured.json"
    shutil.copy(measured, out)
    before = out.read_bytes()
    run = run_measure("--quick", "--models", models, "--out", out)
    assert run.returncode != 0
    assert f"{TARGET}/model.safetensors" in run.stderr and "corrupt or truncated" in run.stderr
    assert "Traceback" not in run.stderr
    assert out.read_bytes() == before


def test_a_missing_model_is_named_before_anything_is_written(tmp_path):
    from generator.data.measure import measure
    models = tmp_path / "models"
    shutil.copytree(MODELS, models)
    (models / DRAFTS[0] / "model.safetensors").unlink()
    out = tmp_path / "measured.json"
    with pytest.raises(InputError, match=rf"{DRAFTS[0]}/model\.safetensors: file is missing"):
        measure(models, out, quick=True, progress=False)
    assert not out.exists()
    with pytest.raises(InputError, match="--repeats"):
        measure(MODELS, out, repeats=0, quick=True, progress=False)


def broken(data, edit):
    bad = copy.deepcopy(data)
    edit(bad)
    return bad


@pytest.mark.slow("a short real measurement of the models (torch and Node)")
@pytest.mark.parametrize("edit, field", [
    (lambda d: d["speedup"]["drafts"][DRAFTS[0]].pop(2), rf"speedup\.drafts\.{DRAFTS[0]}\[k=3\]: missing"),
    (lambda d: d["forward"]["v"].pop(), r"forward\.v: no v\(k\) for k = 8"),
    (lambda d: d["forward"]["c"][DRAFTS[1]].update(median=1e9), rf"forward\.c\.{DRAFTS[1]}: min ≤ q1"),
    (lambda d: d["models"][TARGET].update(sha256="abc"), rf"models\.{TARGET}\.sha256"),
    (lambda d: d["machine"].pop("cpu"), r"machine\.cpu: missing"),
    (lambda d: d["machine"].update(date_utc="yesterday"), r"machine\.date_utc"),
    (lambda d: d["speedup"]["drafts"][DRAFTS[1]][0]["speedup"].update(min=float("nan")),
     rf"speedup\.drafts\.{DRAFTS[1]}\[0\]\.speedup\.min: must be a finite number"),  # refused as it is read
    (lambda d: d["models"][DRAFTS[0]]["ms_per_forward"].update(n=1), rf"models\.{DRAFTS[0]}\.ms_per_forward\.n"),
    (lambda d: d.update(kind="c13"), r": kind: expected kind"),
    (lambda d: d["browser_forwards"]["engines"]["wasm-simd128"]["v"].pop(0),
     r"browser_forwards\.engines\.wasm-simd128\.v: no v\(k\) for k = 1"),
    (lambda d: d["torch_overhead"][DRAFTS[0]].update(outside_matmul_share=1.5),
     rf"torch_overhead\.{DRAFTS[0]}\.outside_matmul_share"),
])
def test_the_contract_names_the_field_of_a_malformed_file(measured, tmp_path, edit, field):
    path = tmp_path / "measured.json"
    path.write_text(json.dumps(broken(json.loads(measured.read_text(encoding="utf-8")), edit)), encoding="utf-8")
    with pytest.raises(InputError, match=field) as err:
        contract.load_measured(path)
    assert str(path) in str(err.value)


def test_an_unreadable_file_is_named(tmp_path):
    path = tmp_path / "measured.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match="not valid JSON") as err:
        contract.load_measured(path)
    assert str(path) in str(err.value) and "make measure" in str(err.value)


def test_the_measure_code_is_not_part_of_c13_code_hash(tmp_path):
    """measure.py writes measured.json only: adding or changing it must not make c13.json stale."""
    names = [p.relative_to(ROOT).as_posix() for p in provenance.code_files()]
    assert "generator/data/measure.py" not in names and "generator/data/timing.py" not in names
    assert "generator/data/speculative.py" in names  # what the measurement runs still counts for c13.json
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    before = provenance.code_hash(tmp_path)
    for name in provenance.NOT_GENERATOR_CODE:
        (tmp_path / name).write_text("CHANGED = 1\n", encoding="utf-8")
    assert provenance.code_hash(tmp_path) == before
    (tmp_path / "generator/data/measure_helper.py").write_text("X = 1\n", encoding="utf-8")
    assert provenance.code_hash(tmp_path) != before  # only the two named files are left out
    assert not [name for name in provenance.input_files(MODELS, ROOT / "precomputed") if "measured" in name]


@pytest.mark.slow("a short real measurement of the models (torch and Node)")
def test_the_site_builds_without_measured_json_and_never_measures(fresh_precomputed, tmp_path, monkeypatch):
    from generator.data import measure
    from generator.pages.build import build

    def refuse(*args, **kwargs):
        raise AssertionError("make site must never measure")

    monkeypatch.setattr(measure, "measure", refuse)
    assert not (fresh_precomputed / "measured.json").exists()
    data = cli.fresh_data(MODELS, fresh_precomputed, log=lambda *a: None)
    result = build(data, out=tmp_path / "site", log=lambda *a: None)
    assert (result["site"] / "index.html").is_file()
    assert not (fresh_precomputed / "measured.json").exists()
