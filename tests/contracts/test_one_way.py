"""One way through: the page stage reads c13.json only. Building pages works with torch not importable, both
from a file given with --data and through the plain `build` when the data is fresh; the freshness check itself
is torch-free; only the command line chains the stages (it regenerates stale, missing or hand-edited data)."""
import json
import os
import subprocess
import sys

import pytest

from generator import cli, contract
from generator.data.provenance import EDITED_BY_HAND
from generator.errors import InputError
from tests.conftest import MODELS, ROOT


@pytest.fixture(scope="module")
def no_torch(tmp_path_factory):
    """An environment in which `import torch` fails, in this process's children and theirs (mkdocs)."""
    blocker = tmp_path_factory.mktemp("no-torch")
    (blocker / "torch").mkdir()
    (blocker / "torch" / "__init__.py").write_text('raise ImportError("torch is blocked by this test")\n')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(blocker), os.environ.get("PYTHONPATH")])))
    probe = subprocess.run([sys.executable, "-c", "import torch"], env=env, capture_output=True, text=True)
    assert probe.returncode != 0 and "blocked by this test" in probe.stderr, "the blocker does not block torch"
    return env


def run_cli(args, env):
    return subprocess.run([sys.executable, "-m", "generator", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.slow("a site built in a process without torch")
def test_pages_build_from_a_given_file_without_torch(no_torch, fresh_precomputed, tmp_path):
    out = tmp_path / "site"
    run = run_cli(["build", "--data", str(fresh_precomputed / "c13.json"), "--out", str(out)], no_torch)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    assert "no freshness check" in run.stdout
    assert (out / "index.html").is_file() and (out / "provenance.html").is_file()


@pytest.mark.slow("a site built in a process without torch")
def test_the_plain_build_checks_freshness_and_builds_without_torch(no_torch, fresh_precomputed, tmp_path):
    out = tmp_path / "site"
    run = run_cli(["build", "--precomputed", str(fresh_precomputed), "--out", str(out)], no_torch)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    assert "is fresh" in run.stdout and "regenerated" not in run.stdout
    assert (out / "index.html").is_file()
    check = run_cli(["check", "--precomputed", str(fresh_precomputed)], no_torch)
    assert check.returncode == 0, check.stderr


def test_the_page_stage_imports_nothing_of_the_data_stage():
    code = ("import sys; import generator.pages.build, generator.pages.hooks; "
            "print(sorted(m for m in sys.modules if m.startswith(('generator.data', 'generator.models', 'torch'))))")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def hand_edit(precomputed):
    path = precomputed / "c13.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["greedy"]["identical"] -= 1
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_check_reports_a_hand_edit_and_says_to_regenerate(fresh_precomputed):
    hand_edit(fresh_precomputed)
    run = run_cli(["check", "--precomputed", str(fresh_precomputed)], os.environ)
    assert run.returncode == 1
    assert EDITED_BY_HAND in run.stderr and "make data" in run.stderr


def test_the_build_command_regenerates_missing_data_and_refuses_a_hand_edit(fresh_precomputed, monkeypatch):
    calls, logged = [], []
    monkeypatch.setattr(cli, "run_data_stage", lambda *args, **kwargs: calls.append(args) or ({}, 0.0))
    assert cli.fresh_data(MODELS, fresh_precomputed, log=logged.append) == fresh_precomputed / "c13.json"
    assert calls == [] and "is fresh" in logged[-1]
    path = hand_edit(fresh_precomputed)
    edited = path.read_bytes()
    with pytest.raises(InputError, match=r"c13\.json: digest: .*edited by hand.*make data"):
        cli.fresh_data(MODELS, fresh_precomputed, log=logged.append)
    assert calls == [] and path.read_bytes() == edited  # refused, not silently overwritten
    path.unlink()
    cli.fresh_data(MODELS, fresh_precomputed, log=logged.append)
    assert calls == [(MODELS, fresh_precomputed, path)]
    assert any("c13.json (missing)" in line for line in logged)


def test_the_contract_seals_and_verifies(data, tmp_path):
    sealed = contract.seal(data)
    assert contract.verify_digest(sealed, tmp_path / "c13.json") is None
    assert contract.content_digest(json.loads(json.dumps(sealed))) == sealed[contract.DIGEST]
    changed = dict(sealed, schema_version=sealed["schema_version"])
    changed["anchor"] = dict(sealed["anchor"], vocab_size=sealed["anchor"]["vocab_size"] + 1)
    with pytest.raises(Exception, match="edited by hand"):
        contract.verify_digest(changed, tmp_path / "c13.json")
