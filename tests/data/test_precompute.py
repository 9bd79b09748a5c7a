"""gen_c13_precomputed: the committed c13.json is fresh, reproducible and self-consistent; bad input is refused."""
import json
import math
import os
import shutil
import subprocess
import sys

import pytest

from generator.errors import InputError
from generator.data.provenance import stale_inputs
from generator.contract import load_anchor
from generator.data.roofline import roofline
from generator.shared_sampler import sampler
from generator.models.family import DRAFTS, TARGET
from tests.conftest import MODELS, ROOT

PRECOMPUTED = ROOT / "precomputed"
C13 = PRECOMPUTED / "c13.json"


@pytest.fixture(scope="module")
def data():
    return json.loads(C13.read_text(encoding="utf-8"))


def test_committed_json_is_fresh():
    assert stale_inputs(C13, MODELS, PRECOMPUTED) == []


def test_check_names_what_changed(tmp_path):
    pre = tmp_path / "pre"
    shutil.copytree(PRECOMPUTED, pre)
    anchor = json.loads((pre / "anchor-model.json").read_text(encoding="utf-8"))
    anchor["hardware"]["hbm_bandwidth_bytes_per_s"] *= 2
    (pre / "anchor-model.json").write_text(json.dumps(anchor), encoding="utf-8")
    assert stale_inputs(pre / "c13.json", MODELS, pre) == ["precomputed/anchor-model.json"]
    run = subprocess.run([sys.executable, "-m", "generator", "check", "--precomputed", str(pre)],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 1 and "precomputed/anchor-model.json" in run.stderr


def test_greedy_speculative_equals_target_greedy_in_all_16_runs(data):
    g = data["greedy"]
    assert g["total"] == len(data["prompts"]) * 2 * len(g["ks"]) == 16
    assert g["identical"] == g["total"]
    for run in g["runs"]:
        assert run["tokens"] == g["reference"][run["prompt"]]


def test_roofline_recomputed_from_anchor_file(data):
    lesson_k = data["constants"]["lesson_k"]
    fresh = roofline(load_anchor(PRECOMPUTED / "anchor-model.json"), lesson_k + 1)
    assert fresh == data["anchor"]
    # the lesson's figures for the anchor (LESSON.md §3), recomputed
    assert round(fresh["compute_ms_per_token"], 3) == 0.052
    assert round(fresh["weight_read_ms_per_token"], 2) == 15.30
    assert round(fresh["compute_ms_for_positions"], 2) == 0.26
    assert fresh["positions_verified"] == lesson_k + 1 == data["replay"]["k"] + 1  # E1, E3 and E4 share the k
    assert fresh["linear_attention_state_mib"] == 144 and round(fresh["linear_attention_state_mb"]) == 151


def test_prefix_figures_follow_from_the_stored_distributions(data):
    for prefix in ("孔明曰：「", "卻說曹操"):
        entry = data["distributions"][prefix]
        assert len(entry["p"]) == data["tokenizer"]["vocab_size"]
        for draft in DRAFTS:
            pair = sampler.Pair(entry["p"], entry["q"][draft])
            assert entry["alpha"][draft] == pair.alpha
            assert entry["sum_pq"][draft] == pair.sum_pq
            assert entry["tv_resample_p_closed_form"][draft] == sampler.resample_p_tv(pair.p, pair.q)
            assert pair.sum_pq < pair.alpha  # the naive scheme accepts far less than the min rule


def test_the_stacked_parts_are_split_from_full_precision_and_rounded_only_when_shown(data):
    """E2's parts: min(p, q), (p − q)⁺ and (q − p)⁺ of the models' own values, stored unrounded, so that a
    difference shown on the page is rounded once; each column's p and q round to the stored 4-digit p and q."""
    from generator.data.settings import rounded
    more_digits = 0
    for entry in data["distributions"].values():
        for draft, col in entry["columns"].items():
            for j, token in enumerate(col["tokens"]):
                p, q = col["p"][j], col["q"][j]
                assert rounded(p) == entry["p"][token] and rounded(q) == entry["q"][draft][token]
                assert col["overlap"][j] == min(p, q) and col["residual"][j] == max(0.0, p - q)
                assert col["excess"][j] == max(0.0, q - p)
                more_digits += rounded(p) != p
    assert more_digits, "every column holds the 4-digit values: its differences were made of rounded numbers"


def test_the_resample_p_deficit_is_the_samplers_own_output_distribution(data):
    assert data["constants"]["schemes"] == list(sampler.RUNNABLE)
    for prefix, entry in data["distributions"].items():
        for draft in data["constants"]["drafts"]:
            pair = sampler.Pair(entry["p"], entry["q"][draft])
            wrong = sampler.output_distribution(pair, "resample_p")
            deficit = entry["resample_p_deficit"][draft]
            token = deficit["token"]
            assert (deficit["p"], deficit["q"], deficit["output"]) == (pair.p[token], pair.q[token], wrong[token])
            assert deficit["p"] - deficit["output"] == max(a - b for a, b in zip(pair.p, wrong)) > 0


def test_offline_figures_are_reproduced_by_the_sampler_and_tell_the_story(data):
    off = data["offline"]
    for prefix, per_draft in off["results"].items():
        for draft, res in per_draft.items():
            pair = sampler.Pair(data["distributions"][prefix]["p"], data["distributions"][prefix]["q"][draft])
            for scheme in ("correct", "direct"):
                assert res[scheme]["n"] == off["n"] == 200_000
            again = sampler.summary(sampler.run(pair, off["n"], res["correct"]["seed"], "correct"), pair)
            assert again["tv"] == res["correct"]["tv"]  # the same file and seed give the same figure
            floor = res["direct"]["tv"]
            assert res["correct"]["tv"] < 1.25 * floor
            closed = data["distributions"][prefix]["tv_resample_p_closed_form"][draft]
            assert res["resample_p"]["tv"] > 2 * floor
            assert abs(res["resample_p"]["tv"] - closed) < 1.5 * floor


def test_replay_rounds_add_up(data):
    rep = data["replay"]
    assert rep["draft"] == DRAFTS[0] and rep["k"] == 4 and rep["temperature"] == 1
    assert len(rep["tokens"]) >= rep["n_new"] == 32
    produced = []
    for r in rep["rounds"]:
        assert 1 <= r["yield"] == r["accepted"] + 1 <= rep["k"] + 1
        produced += r["draft"][: r["accepted"]] + [r["token"]]
        for a, u in zip(r["accept_prob"], r["u"]):
            assert 0 <= u < 1 and 0 < a <= 1
    assert produced == rep["tokens"]
    yields = {r["yield"] for r in rep["rounds"]}
    assert 1 in yields and rep["k"] + 1 in yields  # the lesson points at both ends of the range
    assert rep["first_seed_tried"] <= rep["seed"]
    assert rep["target_forwards"] == len(rep["rounds"])
    assert rep["draft_forwards"] == rep["k"] * len(rep["rounds"])


def test_accounting_rows_are_consistent(data):
    acc = data["accounting"]
    runs = len(acc["prompts"]) * len(acc["seeds"])
    assert runs == 12
    for draft, d in acc["drafts"].items():
        assert d["c"] == data["models"][draft]["parameters"] / data["models"][TARGET]["parameters"]
        assert [r["k"] for r in d["rows"]] == list(range(1, 9))
        # one α per draft for the formula: every k's tested positions pooled
        assert d["accepted"] == sum(r["accepted"] for r in d["rows"])
        assert d["positions_tested"] == sum(r["positions_tested"] for r in d["rows"])
        a = d["alpha"]
        assert a == d["accepted"] / d["positions_tested"] and d["alpha_low"] < a < d["alpha_high"]
        assert d["alpha_k_min"] == min(r["acceptance_rate"] for r in d["rows"])
        assert d["alpha_k_max"] == max(r["acceptance_rate"] for r in d["rows"])
        for r in d["rows"]:
            k = r["k"]
            assert r["tokens"] >= runs * acc["n_new"]
            assert r["tokens_per_target_forward"] == r["tokens"] / r["target_forwards"]
            assert 1 <= r["tokens_per_target_forward"] <= k + 1
            assert r["acceptance_rate"] == r["accepted"] / r["positions_tested"]
            assert r["alpha_low"] < r["acceptance_rate"] < r["alpha_high"]
            assert math.isclose(r["formula"], (1 - a ** (k + 1)) / (1 - a), rel_tol=1e-12)
            assert math.isclose(r["speedup"], r["formula"] / (d["c"] * k + 1), rel_tol=1e-12)
            assert math.isclose(r["measured_speedup"], r["tokens_per_target_forward"] / (d["c"] * k + 1), rel_tol=1e-12)
        assert d["best_k"] == max(d["rows"], key=lambda r: r["speedup"])["k"]
        assert d["measured_best_k"] == max(d["rows"], key=lambda r: r["measured_speedup"])["k"]


def test_the_interval_is_wilsons():
    from generator.data.runs import wilson
    low, high = wilson(50, 100)
    assert math.isclose(low, 0.4038, abs_tol=1e-4) and math.isclose(high, 0.5962, abs_tol=1e-4)
    low, high = wilson(0, 10)
    assert low == pytest.approx(0, abs=1e-12) and 0 < high < 0.35


def test_alpha_positions_cover_at_least_64_positions(data):
    for draft, s in data["alpha_positions"]["drafts"].items():
        assert s["positions"] == len(s["values"]) >= 64
        assert s["min"] == min(s["values"]) and s["max"] == max(s["values"])
        assert all(0 <= v <= 1 for v in s["values"])
    # each position's token, after its prompt: the prompts in order, positions_per_prompt tokens each
    positions = data["alpha_positions"]
    assert positions["prompts"] == [p["text"] for p in data["prompts"]]
    assert len(positions["tokens"]) == len(positions["prompts"]) * positions["positions_per_prompt"]
    vocab = data["tokenizer"]["vocab_size"]
    assert all(isinstance(t, int) and 0 <= t < vocab for t in positions["tokens"])


def test_provenance_records_every_input(data):
    inputs = data["provenance"]["inputs"]
    for name in ("models/tokenizer.json", "precomputed/anchor-model.json", "precomputed/papers.json",
                 "precomputed/lesson.toml", "widgets/sampler.py", "generator"):
        assert name in inputs
    for model in (TARGET, *DRAFTS):
        assert f"models/{model}/model.safetensors" in inputs
    from generator.data.provenance import SCHEMA_VERSION
    assert data["schema_version"] == SCHEMA_VERSION
    assert len(data["tokenizer"]["labels"]) == data["tokenizer"]["vocab_size"]


# ----------------------------------------------------------------------------- bad inputs

def generate_into(tmp_path, models_dir, pre_dir):
    """Run the data command against (possibly broken) inputs; the output starts as a known old file."""
    out = tmp_path / "out.json"
    out.write_text('{"old": true}\n', encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "generator", "data", "--quiet", "--models", str(models_dir),
                          "--precomputed", str(pre_dir), "--out", str(out)],
                         cwd=ROOT, capture_output=True, text=True)
    assert out.read_text(encoding="utf-8") == '{"old": true}\n', "the old JSON must stay untouched"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.json")] == []  # no temp leftovers
    return run


def copy_models(tmp_path):
    dst = tmp_path / "models"
    shutil.copytree(MODELS, dst)
    return dst


@pytest.mark.slow("the data stage started as a command on broken inputs")
def test_missing_model_folder_is_refused(tmp_path):
    models = copy_models(tmp_path)
    shutil.rmtree(models / DRAFTS[1])
    run = generate_into(tmp_path, models, PRECOMPUTED)
    assert run.returncode == 2 and DRAFTS[1] in run.stderr and "missing" in run.stderr


@pytest.mark.slow("the data stage started as a command on broken inputs")
def test_draft_with_another_vocabulary_is_refused(tmp_path):
    from safetensors.torch import load_file, save_file
    models = copy_models(tmp_path)
    cfg_path = models / DRAFTS[0] / "config.json"
    cfg = json.loads(cfg_path.read_text())
    cfg["vocab_size"] = 2047
    cfg_path.write_text(json.dumps(cfg))
    tensors = load_file(models / DRAFTS[0] / "model.safetensors")
    tensors["tok_emb.weight"] = tensors["tok_emb.weight"][:2047].clone()
    save_file(tensors, models / DRAFTS[0] / "model.safetensors")
    run = generate_into(tmp_path, models, PRECOMPUTED)
    assert run.returncode == 2 and f"{DRAFTS[0]}/config.json: vocab_size" in run.stderr


@pytest.mark.slow("the data stage started as a command on broken inputs")
@pytest.mark.parametrize("broken, field", [
    ("{ not json", "not valid JSON"),
    ('{"model": {}, "hardware": {}, "assumptions": {}}', "model.name"),
    (None, "hardware.hbm_bandwidth_bytes_per_s"),
])
def test_malformed_anchor_file_is_refused(tmp_path, broken, field):
    pre = tmp_path / "pre"
    shutil.copytree(PRECOMPUTED, pre)
    if broken is None:
        anchor = json.loads((pre / "anchor-model.json").read_text(encoding="utf-8"))
        anchor["hardware"]["hbm_bandwidth_bytes_per_s"] = "fast"
        broken = json.dumps(anchor)
    (pre / "anchor-model.json").write_text(broken, encoding="utf-8")
    run = generate_into(tmp_path, MODELS, pre)
    assert run.returncode == 2 and "anchor-model.json" in run.stderr and field in run.stderr


@pytest.mark.parametrize("stage", ["greedy identity", "accounting: 次日，"])
def test_a_failure_midway_leaves_the_old_json_and_stops_the_worker(tmp_path, monkeypatch, stage):
    """A stage fails in this process while the worker process (jobs.py) runs the others: the old c13.json stays,
    nothing else is written, and the worker is stopped, not left computing to the end."""
    import generator.data.precompute as pc
    out = tmp_path / "c13.json"
    out.write_text("old\n")
    started = []

    class Recorded(pc.SharedJobs):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            started.append(self)

    def boom(*a, **k):
        raise RuntimeError("interrupted")
    monkeypatch.setitem(pc.JOBS, stage, (1e9, boom))  # first in line, so this process takes it
    monkeypatch.setattr(pc, "SharedJobs", Recorded)
    with pytest.raises(RuntimeError, match="interrupted"):
        pc.generate(MODELS, PRECOMPUTED, out, progress=False)
    assert out.read_text() == "old\n" and sorted(os.listdir(tmp_path)) == ["c13.json"]
    [pool] = started
    if pool.process is not None:
        assert not pool.process.is_alive()


def test_an_impossible_setting_is_refused(tmp_path, monkeypatch):
    import generator.data.precompute as pc
    from generator.errors import SettingError
    monkeypatch.setitem(pc.ACCOUNTING, "n_new", 200)
    out = tmp_path / "c13.json"
    with pytest.raises(SettingError, match="more than the context"):
        pc.generate(MODELS, PRECOMPUTED, out, progress=False)
    assert not out.exists()


def test_input_error_names_the_anchor_section(tmp_path):
    path = tmp_path / "anchor.json"
    path.write_text(json.dumps({"model": {"name": "x"}}))
    with pytest.raises(InputError, match="hardware: section is missing|model.vocab_size"):
        load_anchor(path)


def test_the_stages_bar_moves_with_each_stage_by_its_weight(capsys):
    """make data's bar: a stage's reported share moves it by that share of the stage's estimated seconds, never
    back; a finished stage counts whole and is named."""
    import generator.data.precompute as pc
    names = ["greedy identity", "replay"]
    bar = pc.JobsBar(names, enabled=True)
    total = pc.JOBS["greedy identity"][0] + pc.JOBS["replay"][0]
    bar.moved("greedy identity", 0.5)
    assert bar.bar.n == pytest.approx(pc.JOBS["greedy identity"][0] / 2)
    bar.moved("greedy identity", 0.25)  # a late report never moves it back
    assert bar.bar.n == pytest.approx(pc.JOBS["greedy identity"][0] / 2)
    bar.done("replay")
    bar.done("greedy identity")
    assert bar.bar.n == pytest.approx(total)
    bar.close()
    shown = capsys.readouterr().err
    assert "100%" in shown and "2/2 jobs, last: greedy identity" in shown


def test_inputs_saved_while_the_data_stage_runs_are_refused_before_anything_is_written(tmp_path, monkeypatch):
    """Figures are recorded only against the inputs they came from: a lesson.toml saved after this process read its
    settings, or any input changed after it was hashed, stops the write and names the file."""
    from generator.data import precompute
    from generator.data.provenance import input_hashes
    from generator.errors import SettingError
    pre = tmp_path / "pre"
    shutil.copytree(PRECOMPUTED, pre)
    hashes = input_hashes(MODELS, pre)
    monkeypatch.setattr(precompute, "LESSON_SHA256", hashes["precomputed/lesson.toml"])
    precompute.unchanged_since(hashes, MODELS, pre)  # nothing changed: nothing said
    monkeypatch.setattr(precompute, "LESSON_SHA256", "0" * 64)  # read before an author's save, hashed after it
    with pytest.raises(SettingError, match=r"^precomputed/lesson.toml changed while the data stage ran"):
        precompute.unchanged_since(hashes, MODELS, pre)
    monkeypatch.setattr(precompute, "LESSON_SHA256", hashes["precomputed/lesson.toml"])
    papers = pre / "papers.json"
    papers.write_text(papers.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # saved while the jobs ran
    with pytest.raises(SettingError, match=r"^precomputed/papers.json changed while the data stage ran"):
        precompute.unchanged_since(hashes, MODELS, pre)
