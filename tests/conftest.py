import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODELS = ROOT / "models"
CORPUS = ROOT.parent / "shared" / "corpus" / "sanguozhiyanyi.txt"


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
