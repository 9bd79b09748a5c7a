"""Bad input is one line naming the file and the field, never a traceback, and leaves every earlier output as it
was: non-finite numbers in any JSON the generator reads, c13.json records of the wrong shape or kind, counts that
contradict each other, E6's files outside their folder, a broken measured.json, a tokenizer that is not byte-level.

A "re-sealed" file plays a hand edit that kept the digest right (contract.seal after the edit): only the contract's
checks stand between it and the page."""
import copy
import hashlib
import json
import shutil
import subprocess
import sys
import types

import pytest

from generator import contract
from generator.errors import InputError
from generator.pages import hooks
from generator.pages.data_file import DataError
from generator.pages.measured import measured_context
from generator.models.family import DRAFTS, TARGET
from tests.conftest import MODELS, ROOT

PRE = ROOT / "precomputed"
PREFIX = "卻說曹操"  # one of the prefixes of distributions
DRAFT = DRAFTS[0]


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "generator", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def refused(run, path, field=None):
    """The command exited 2 with one line `error: path: field: …` and no traceback. Returns the line."""
    assert run.returncode == 2, (run.returncode, run.stdout[-2000:], run.stderr[-2000:])
    assert "Traceback" not in run.stderr + run.stdout
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: {field + ': ' if field else ''}"), run.stderr
    return lines[0]


def reseal(path, edit):
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(contract.seal(data), ensure_ascii=False), encoding="utf-8")
    return path


def refused_by_check_and_build(precomputed, tmp_path, field):
    """`check` and `build --data` both refuse the c13.json in precomputed, naming the field; neither changes it,
    and the build writes no site."""
    path = precomputed / "c13.json"
    before = path.read_bytes()
    refused(run_cli("check", "--precomputed", precomputed), path, field)
    out = tmp_path / "site"
    refused(run_cli("build", "--data", path, "--out", out, "--quiet"), path, field)
    assert path.read_bytes() == before and not out.exists()


# ---------------------------------------------------------------------------------------------
# A. non-finite numbers, in every JSON the generator reads
# ---------------------------------------------------------------------------------------------


def test_an_infinite_anchor_figure_is_refused_by_name(tmp_path):
    path = tmp_path / "anchor-model.json"
    text = (PRE / "anchor-model.json").read_text(encoding="utf-8")
    assert text.count('"peak_bf16_dense_flops": 989000000000000,') == 1
    path.write_text(text.replace('"peak_bf16_dense_flops": 989000000000000,', '"peak_bf16_dense_flops": 1e400,'),
                    encoding="utf-8")
    with pytest.raises(InputError) as err:
        contract.load_anchor(path)
    assert str(err.value).startswith(f"{path}: hardware.peak_bf16_dense_flops: must be a finite number, got inf")


NAN, INF = float("nan"), float("inf")  # json.dumps writes them as NaN and Infinity, which Python's json reads back


@pytest.mark.parametrize("name, load, edit, field", [
    ("c13.json", contract.load, lambda d: d["browser"]["float16_error"].update(max_abs_dp=NAN),
     "browser.float16_error.max_abs_dp"),
    ("papers.json", contract.load_papers, lambda d: d["entries"][0]["figures"][0].update(high=INF),
     "entries[0].figures[0].high"),
    ("measured.json", contract.load_measured, lambda d: d["speedup"]["seeds"].__setitem__(1, NAN),
     "speedup.seeds[1]"),
    ("anchor-model.json", contract.load_anchor, lambda d: d["assumptions"].update(flops_per_param_per_position=-INF),
     "assumptions.flops_per_param_per_position"),
])
def test_every_input_of_the_contract_refuses_non_finite_numbers(tmp_path, name, load, edit, field):
    data = json.loads((PRE / name).read_text(encoding="utf-8"))
    edit(data)
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load(path)
    assert str(err.value).startswith(f"{path}: {field}: must be a finite number")


@pytest.mark.parametrize("text, problem", [
    ('{"a": 1e400}', "a: must be a finite number, got inf"),
    ('{"a": [1, {"b": -Infinity}]}', "a[1].b: must be a finite number, got -inf"),
    ('{"a": %s}' % ("1" * 5000), "not valid JSON (Exceeds the limit"),
    ('{"a": %s}' % ("[" * 100_000 + "]" * 100_000), "not valid JSON (nested too deeply"),
])
def test_read_json_refuses_what_no_reader_can_use(tmp_path, text, problem):
    from generator.jsonio import read_json
    path = tmp_path / "in.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_json(path, "a test file", "fix it")
    assert str(err.value).startswith(f"{path}: {problem}") and str(err.value).endswith("; fix it")


def test_nan_in_c13_json_is_refused_by_check_and_build(fresh_precomputed, tmp_path):
    path = fresh_precomputed / "c13.json"
    text = path.read_text(encoding="utf-8")
    old = f'"max_abs_dp": {json.loads(text)["browser"]["float16_error"]["max_abs_dp"]}'
    assert old in text
    path.write_text(text.replace(old, '"max_abs_dp": NaN'), encoding="utf-8")
    refused_by_check_and_build(fresh_precomputed, tmp_path, "browser.float16_error.max_abs_dp")


@pytest.mark.parametrize("file, old, new, field", [
    ("card.json", '"heldout_loss": ', '"heldout_loss": NaN, "was": ', "heldout_loss"),
    (f"{TARGET}/config.json", '"n_embd": 256', '"n_embd": 1e400', "n_embd"),
])
def test_the_models_command_refuses_non_finite_numbers(tmp_path, file, old, new, field):
    models = tmp_path / "models"
    shutil.copytree(MODELS, models)
    path = models / file
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    line = refused(run_cli("models", "--models", models), path)
    assert field in line and "must be a finite number" in line


# ---------------------------------------------------------------------------------------------
# B. c13.json records of the wrong shape or kind: refused by `check` and `build`, named
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("edit, field", [
    (lambda d: d.update(provenance="gen_c13_precomputed"), "provenance"),
    (lambda d: d["provenance"].update(inputs=[]), "provenance.inputs"),
    (lambda d: d["browser"].update(dir=5), "browser.dir"),
    (lambda d: d["distributions"][PREFIX]["p"].__setitem__(0, -0.25), f"distributions[{PREFIX}].p[0]"),
    (lambda d: d["accounting"]["drafts"][DRAFT]["rows"][0].update(speedup="1.4"),
     f"accounting.drafts.{DRAFT}.rows[0].speedup"),
    (lambda d: d["greedy"].update(identical=d["greedy"]["total"] + 1), "greedy.identical"),
    (lambda d: d["browser"].update(dir="/tmp"), "browser.dir"),
    (lambda d: d["browser"].update(dir=".."), "browser.dir"),
])
def test_a_resealed_fault_is_refused_by_check_and_build(fresh_precomputed, tmp_path, edit, field):
    reseal(fresh_precomputed / "c13.json", edit)
    refused_by_check_and_build(fresh_precomputed, tmp_path, field)


@pytest.mark.parametrize("edit", [lambda d: d.update(provenance="x"), lambda d: d["browser"].update(dir=5)])
def test_check_reports_a_hand_edit_that_broke_what_it_compares(fresh_precomputed, edit):
    """Not re-sealed: the edit itself is what `check` reports (exit 1, regenerate), however little else it can read."""
    path = fresh_precomputed / "c13.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    run = run_cli("check", "--precomputed", fresh_precomputed)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "edited by hand" in run.stderr and "make data" in run.stderr


def test_an_extra_browser_file_is_refused_not_copied(fresh_precomputed, tmp_path):
    """A file listed in browser.files is copied into the site: one that is not E6's is refused, even when it lies
    in the folder with the recorded sha256 (so that the freshness check finds nothing changed)."""
    extra = fresh_precomputed / "browser" / "evil.js"
    extra.write_text("alert(1)\n", encoding="utf-8")
    entry = {"sha256": hashlib.sha256(extra.read_bytes()).hexdigest(), "bytes": extra.stat().st_size}
    reseal(fresh_precomputed / "c13.json", lambda d: d["browser"]["files"].update({"evil.js": entry}))
    refused_by_check_and_build(fresh_precomputed, tmp_path, "browser.files.evil.js")


def test_the_page_hook_names_the_field_of_a_resealed_fault(data, tmp_path, monkeypatch):
    """hooks.on_config reads the data inside its error handling: a negative probability stops MkDocs with the field,
    not as a figure that cannot be derived."""
    bad = copy.deepcopy(data)
    bad["distributions"][PREFIX]["p"][0] = -0.25
    path = tmp_path / "c13.json"
    path.write_text(json.dumps(contract.seal(bad), ensure_ascii=False), encoding="utf-8")
    monkeypatch.setenv("C13_DATA", str(path))
    with pytest.raises(DataError) as err:
        hooks.on_config(types.SimpleNamespace(extra={}))
    assert str(err.value).startswith(f"{path}: distributions[{PREFIX}].p[0]: must be a probability")


# ---------------------------------------------------------------------------------------------
# C. what the contract refuses that it accepted before: wrong kinds, contradicting counts, E6's folder
# ---------------------------------------------------------------------------------------------


def row(d, j=0, draft=DRAFT):
    return d["accounting"]["drafts"][draft]["rows"][j]


@pytest.mark.parametrize("edit, field", [
    (lambda d: d["greedy"].update(identical=d["greedy"]["total"] + 1), "greedy.identical: is 17, more than"),
    (lambda d: d["greedy"]["runs"][0].update(identical=False), "greedy.identical: is 16, but 15 of greedy.runs"),
    (lambda d: d["greedy"].update(total=True), "greedy.total: must be a count"),
    (lambda d: row(d).update(accepted=row(d)["positions_tested"] + 1), f"accounting.drafts.{DRAFT}.rows[0].accepted"),
    (lambda d: row(d, 2).update(tokens=4 * row(d, 2)["target_forwards"] + 1),
     f"accounting.drafts.{DRAFT}.rows[2].tokens"),
    (lambda d: row(d, 1).update(draft_forwards=2 * row(d, 1)["target_forwards"] + 1),
     f"accounting.drafts.{DRAFT}.rows[1].draft_forwards"),
    (lambda d: row(d, 1).update(acceptance_rate=1.2), f"accounting.drafts.{DRAFT}.rows[1].acceptance_rate: must be"),
    (lambda d: row(d, 1).update(acceptance_rate=0.5), f"accounting.drafts.{DRAFT}.rows[1].acceptance_rate: is 0.5"),
    (lambda d: d["accounting"]["drafts"][DRAFT].update(accepted=d["accounting"]["drafts"][DRAFT]["accepted"] + 1),
     f"accounting.drafts.{DRAFT}.accepted"),
    (lambda d: d["accounting"]["drafts"][DRAFT].update(best_k=9), f"accounting.drafts.{DRAFT}.best_k"),
    (lambda d: d["replay"]["rounds"][0].update(**{"yield": d["replay"]["rounds"][0]["yield"] + 1}),
     "replay.rounds[0].yield"),
    (lambda d: d["replay"].update(target_forwards=d["replay"]["target_forwards"] + 1), "replay.target_forwards"),
    (lambda d: d["replay"]["tokens"].__setitem__(0, d["tokenizer"]["vocab_size"]), "replay.tokens[0]: must be a token"),
    (lambda d: d["alpha_positions"]["drafts"][DRAFT].update(positions=129),
     f"alpha_positions.drafts.{DRAFT}.positions"),
    (lambda d: d["browser"]["float16_error"].update(argmax_agree=601), "browser.float16_error.argmax_agree"),
    (lambda d: d["offline"]["results"][PREFIX][DRAFT]["correct"].update(n=10),
     f"offline.results[{PREFIX}].{DRAFT}.correct.n"),
    (lambda d: d["browser"]["files"].update({"evil.js": {"sha256": "0" * 64, "bytes": 3}}), "browser.files.evil.js"),
    (lambda d: d["browser"].update(dir="/tmp"), "browser.dir"),
    (lambda d: d["browser"].update(dir=".."), "browser.dir"),
    (lambda d: d["browser"].update(dir="browser/../.."), "browser.dir"),
    (lambda d: d["browser"].update(dir=""), "browser.dir"),
])
def test_the_contract_refuses_what_no_run_can_make(data, tmp_path, edit, field):
    bad = copy.deepcopy(data)
    edit(bad)
    with pytest.raises(InputError) as err:
        contract.validate(contract.seal(bad), tmp_path / "c13.json")
    assert f"c13.json: {field}" in str(err.value) and "make data" in str(err.value)


@pytest.mark.parametrize("edit, field", [
    (lambda fig: fig.update(high="3.4"), "entries[0].figures[0].high: must be a positive finite number"),
    (lambda fig: fig.update(low=4.0), "entries[0].figures[0].low: a range needs both low and high, low ≤ high"),
    (lambda fig: fig.pop("high"), "entries[0].figures[0].low: a range needs both"),
])
def test_a_paper_figure_that_is_no_number_is_refused(tmp_path, edit, field):
    papers = json.loads((PRE / "papers.json").read_text(encoding="utf-8"))
    edit(papers["entries"][0]["figures"][0])
    path = tmp_path / "papers.json"
    path.write_text(json.dumps(papers, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(InputError) as err:
        contract.load_papers(path)
    assert str(err.value).startswith(f"{path}: {field}")


def test_the_committed_files_pass_the_stricter_checks():
    contract.load(PRE / "c13.json")
    contract.load_measured(PRE / "measured.json")
    contract.load_anchor(PRE / "anchor-model.json")
    contract.load_papers(PRE / "papers.json")


# ---------------------------------------------------------------------------------------------
# D. measured.json: its faults are its own, named, and an absurd timing is no measurement
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def measured():
    return json.loads((PRE / "measured.json").read_text(encoding="utf-8"))


def with_measured(folder, measured, edit):
    folder.mkdir(exist_ok=True)
    bad = copy.deepcopy(measured)
    edit(bad)
    (folder / "measured.json").write_text(json.dumps(bad), encoding="utf-8")
    return folder / "measured.json"


def extra_row(rows, k):
    rows.append(dict(copy.deepcopy(rows[-1]), k=k))


@pytest.mark.parametrize("edit, field", [
    (lambda m: m.update(drafts=[]), "drafts"),
    (lambda m: m.update(drafts=[{"a": 1}]), "drafts[0]"),
    (lambda m: m.update(drafts=[m["target"]]), "drafts[0]"),
    (lambda m: extra_row(m["speedup"]["drafts"][m["drafts"][0]], 9), "speedup.drafts.{draft}[8].k"),
    (lambda m: extra_row(m["forward"]["v"], 9), "forward.v[8].k"),
    (lambda m: m["speedup"]["drafts"][m["drafts"][0]][0]["speedup"].update(
        {key: 1e300 for key in ("min", "q1", "median", "q3", "max")}), "speedup.drafts.{draft}[k=1].speedup.median"),
    (lambda m: m["forward"]["c"][m["drafts"][0]].update(max=150.0), "forward.c.{draft}.max"),
    (lambda m: m["speedup"]["drafts"][m["drafts"][0]][0].update(tokens=10 ** 6), "speedup.drafts.{draft}[k=1].tokens"),
])
def test_a_broken_measured_json_is_named_not_blamed_on_c13_json(data, measured, tmp_path, edit, field):
    path = with_measured(tmp_path / "precomputed", measured, edit)
    with pytest.raises(DataError) as err:
        measured_context(data, path.parent / "c13.json")
    message = str(err.value)
    assert message.startswith(f"{path}: {field.format(draft=measured['drafts'][0])}: ") and "make measure" in message
    assert "c13.json" not in message


def test_the_build_names_measured_json_and_keeps_no_site(fresh_precomputed, measured, tmp_path):
    path = with_measured(fresh_precomputed, measured, lambda m: m.update(drafts=[]))
    out = tmp_path / "site"
    run = run_cli("build", "--data", fresh_precomputed / "c13.json", "--out", out, "--quiet")
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert f"{path}: drafts: is empty" in run.stderr and "cannot derive" not in run.stderr
    assert not out.exists()


# ---------------------------------------------------------------------------------------------
# E. a tokenizer that is not byte-level
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow("the models command started with torch on a copy of the models")
def test_a_token_outside_the_byte_alphabet_is_named(tmp_path):
    models = tmp_path / "models"
    shutil.copytree(MODELS, models)
    path = models / "tokenizer.json"
    tokenizer = json.loads(path.read_text(encoding="utf-8"))
    vocab = tokenizer["model"]["vocab"]
    last = max(vocab, key=vocab.get)  # the last merge's token: renamed, with that merge dropped, it still loads
    vocab["中"] = vocab.pop(last)
    tokenizer["model"]["merges"].pop()
    path.write_text(json.dumps(tokenizer, ensure_ascii=False), encoding="utf-8")
    line = refused(run_cli("models", "--models", models), path, "model.vocab")
    assert "'中' (id 2047)" in line and "byte alphabet" in line and "make train" in line
