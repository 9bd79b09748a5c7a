import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import tiers  # noqa: E402  (the suite's tiers and its time per folder)

MODELS = ROOT / "models"
CORPUS = ROOT.parent / "shared" / "corpus" / "sanguozhiyanyi.txt"


def pytest_configure(config):
    tiers.configure(config)


def pytest_collection_modifyitems(items):
    tiers.check_marks(items)


def pytest_runtest_logreport(report):
    tiers.record(report)


def pytest_terminal_summary(terminalreporter, config):
    tiers.summary(terminalreporter, config)


@pytest.fixture(scope="session")
def tok():
    from generator.models.tokenizer import load_tokenizer
    return load_tokenizer(MODELS / "tokenizer.json")


@pytest.fixture
def tiny_family(tmp_path, tok):
    """A valid models folder: the committed tokenizer and three small random models made for it."""
    import torch
    from generator.models.checkpoint import DRAFTS, TARGET, save_model, tokenizer_fingerprint
    from generator.models.model import GPT, GPTConfig
    shutil.copy(MODELS / "tokenizer.json", tmp_path / "tokenizer.json")
    fp = tokenizer_fingerprint(tok)
    torch.manual_seed(0)
    for name, width in ((TARGET, 32), (DRAFTS[0], 8), (DRAFTS[1], 16)):
        cfg = GPTConfig(vocab_size=tok.get_vocab_size(), block_size=32, n_layer=2, n_head=2, n_embd=width)
        save_model(GPT(cfg), tmp_path / name, fp)
    return tmp_path


@pytest.fixture(scope="session")
def data():
    """The c13.json the site tests build from ($C13_DATA, else the committed one), parsed."""
    import json
    from tests.sitelib import data_file
    path = data_file()
    assert path.is_file(), f"{path} is missing: make it with `python -m generator data` (or set C13_DATA)"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def page_ctx(data):
    """The template context the site tests' pages are built with (the same c13.json, the measured.json beside it):
    the blanks and decisions the prose reads, by name (generator/pages/blanks.py, decisions.py)."""
    from generator.pages.context import build_context
    return build_context(data)


@pytest.fixture(scope="session")
def small_draft(data):
    """The draft with fewer parameters, the page's 小草稿."""
    from tests.sitelib import drafts_by_size
    return drafts_by_size(data)[0]


@pytest.fixture(scope="session")
def large_draft(data):
    """The draft with more parameters, the page's 大草稿."""
    from tests.sitelib import drafts_by_size
    return drafts_by_size(data)[-1]


@pytest.fixture(scope="session")
def site(tmp_path_factory, data):
    """The site built once per session by the page stage (generator.pages.build.build) into a temporary folder."""
    from generator.pages.build import build
    from tests.sitelib import data_file, quiet
    out = tmp_path_factory.mktemp("site") / "site"
    result = build(data_file(), out=out, log=quiet)
    assert result["site"] == out.resolve()
    return out


@pytest.fixture
def fresh_precomputed(tmp_path, data):
    """A precomputed folder whose c13.json is fresh for the committed models and this code: the site's data
    with every input's sha256 recorded as it is now, sealed as the data stage seals it."""
    import copy
    from generator import atomic, contract
    from generator.data.provenance import input_hashes
    pre = tmp_path / "precomputed"
    pre.mkdir()
    for name in ("anchor-model.json", "papers.json", "lesson.toml"):
        shutil.copy(ROOT / "precomputed" / name, pre / name)
    shutil.copytree(ROOT / "precomputed" / data["browser"]["dir"], pre / data["browser"]["dir"])  # E6's files
    fresh = copy.deepcopy(data)
    fresh["provenance"]["inputs"] = input_hashes(MODELS, pre)
    atomic.write_json(pre / "c13.json", contract.seal(fresh))
    return pre
