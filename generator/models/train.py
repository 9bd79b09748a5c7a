"""Train the tokenizer and the three models from one corpus: same recipe, same data order, fixed seeds.

Writes models/tokenizer.json, one folder per model (config.json + model.safetensors) and the model
card (models/card.json, rendered as models/README.md), and the marker that makes the folder training's own
(output.py: a folder of anything else is refused before training starts). Deterministic on CPU.
"""
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F
from tqdm import tqdm

from .. import atomic
from ..errors import InputError, SettingError
from .checkpoint import DRAFTS, TARGET, save_model, sha256_file, tokenizer_fingerprint
from .checks import check_losses, check_prompts, warn_or_refuse
from .corpus import read_corpus
from .model import GPT, GPTConfig
from .output import check_out, mark
from .tokenizer import VOCAB_SIZE, train_tokenizer

WIDTHS = {TARGET: 256, DRAFTS[0]: 64, DRAFTS[1]: 128}
# Regularisation grows with width: the 3.7M-parameter target sees the ~0.5M training tokens ~14 times
# and overfits first; the 0.3M-parameter draft underfits and needs none.
DROPOUT = {TARGET: 0.2, DRAFTS[0]: 0.0, DRAFTS[1]: 0.1}


@dataclass
class Recipe:
    steps: int = 1800
    batch_size: int = 32
    block_size: int = 128
    n_layer: int = 4
    n_head: int = 4
    lr: float = 2e-3          # peak, after a linear warm-up; cosine decay to min_lr
    min_lr: float = 2e-4
    warmup: int = 100
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    dropout: dict = field(default_factory=lambda: dict(DROPOUT))   # per model, training only
    heldout_fraction: float = 0.05   # the last part of the text
    eval_every: int = 300
    vocab_size: int = VOCAB_SIZE
    init_seed: int = 1337
    data_seed: int = 2024
    threads: int = 2
    widths: dict = field(default_factory=lambda: dict(WIDTHS))

    def __post_init__(self):
        """Refuse an impossible recipe before anything is read or trained (a negative step count trained nothing
        and still wrote the models)."""
        for name in ("steps", "batch_size", "block_size", "n_layer", "n_head", "eval_every", "threads", "vocab_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise SettingError(f"the training recipe's {name} must be a whole number ≥ 1, got {value!r}"
                                   + (" (--steps)" if name == "steps" else ""))
        if not isinstance(self.warmup, int) or self.warmup < 0:
            raise SettingError(f"the training recipe's warmup must be a whole number ≥ 0, got {self.warmup!r}")
        if not 0 < self.heldout_fraction < 1:
            raise SettingError(f"the training recipe's heldout_fraction must lie in (0, 1), got {self.heldout_fraction!r}")
        if not (0 < self.min_lr <= self.lr and math.isfinite(self.lr)):
            raise SettingError(f"the training recipe needs 0 < min_lr ≤ lr (finite), got lr={self.lr!r}, "
                               f"min_lr={self.min_lr!r}")


def lr_at(step, r):
    if step < r.warmup:
        return r.lr * (step + 1) / r.warmup
    progress = (step - r.warmup) / max(1, r.steps - r.warmup)
    return r.min_lr + 0.5 * (r.lr - r.min_lr) * (1 + math.cos(math.pi * progress))


def windows(ids, starts, block):
    x = torch.stack([ids[s:s + block] for s in starts])
    y = torch.stack([ids[s + 1:s + 1 + block] for s in starts])
    return x, y


@torch.no_grad()
def mean_loss(model, ids, starts, block, batch=64):
    model.eval()
    total, count = 0.0, 0
    for i in range(0, len(starts), batch):
        x, y = windows(ids, starts[i:i + batch], block)
        logits = model(x)
        total += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), reduction="sum").item()
        count += y.numel()
    model.train()
    return total / count


def split(pieces, r, source):
    """Train and held-out parts, each a tensor of token ids, with their evaluation windows.

    pieces: the corpus's paragraphs in order, each (text, token ids). The held-out part is the last paragraphs,
    about heldout_fraction of the tokens, less every paragraph whose text also occurs in the training part: a text
    that repeats itself would otherwise be "held out" while the models learn it by heart, and the held-out loss
    would measure memory. Refused, naming the corpus: too few tokens for one window of context, or a held-out part
    that repeats the training text throughout. Returns (train, held, train_starts, held_starts, dropped)."""
    total = sum(len(ids) for _, ids in pieces)
    cut, seen = len(pieces), 0
    while cut > 0 and total - seen - len(pieces[cut - 1][1]) >= total * (1 - r.heldout_fraction):
        cut -= 1
        seen += len(pieces[cut][1])
    trained_texts = {text for text, _ in pieces[:cut]}
    kept = [ids for text, ids in pieces[cut:] if text not in trained_texts]
    dropped = len(pieces) - cut - len(kept)
    train = torch.tensor([i for _, ids in pieces[:cut] for i in ids], dtype=torch.long)
    held = torch.tensor([i for ids in kept for i in ids], dtype=torch.long)
    if cut == len(pieces) and total >= 4 * (r.block_size + 2) / r.heldout_fraction:
        raise InputError(source, None, f"its last paragraph alone holds more than {r.heldout_fraction:.0%} of its "
                                       f"{total:,} tokens, so nothing can be held out whole: separate the text's "
                                       f"paragraphs with blank lines (or indent them with U+3000)")
    if len(held) < r.block_size + 2 or len(train) < r.block_size + 2:
        if dropped and seen >= r.block_size + 2:
            raise InputError(source, None, f"the text repeats itself: {dropped:,} of the last {len(pieces) - cut:,} "
                                           f"paragraphs (the held-out part) also occur earlier, so too little is left "
                                           f"to measure learning on ({len(held):,} tokens): train on a text without "
                                           f"repeats")
        needed = math.ceil((r.block_size + 2) / min(r.heldout_fraction, 1 - r.heldout_fraction))
        raise InputError(source, None, f"yields only {total:,} tokens, too few for a context of {r.block_size} "
                                       f"with {r.heldout_fraction:.0%} held out: train on a longer text "
                                       f"(at least about {needed:,} tokens)")
    held_starts = list(range(0, len(held) - r.block_size - 1, r.block_size))
    stride = (len(train) - r.block_size - 1) / len(held_starts)  # as many train windows, evenly spread
    train_starts = [int(i * stride) for i in range(len(held_starts))]
    return train, held, train_starts, held_starts, dropped


def step_cost(width, r):
    """A model's relative cost per training step (multiply-adds per token): its blocks, its attention over the context
    and its output layer. Only the ratios matter: they turn three models' steps into one estimate for the whole run."""
    return r.n_layer * (12 * width * width + 2 * r.block_size * width) + r.vocab_size * width


def train_one(name, width, train_ids, eval_sets, r, position, overall=None):
    torch.manual_seed(r.init_seed)
    cfg = GPTConfig(vocab_size=r.vocab_size, block_size=r.block_size,
                    n_layer=r.n_layer, n_head=r.n_head, n_embd=width)
    model = GPT(cfg, dropout=r.dropout.get(name, 0.0))
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": r.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=r.lr, betas=(0.9, 0.95))
    data = torch.Generator().manual_seed(r.data_seed)  # the same batches, in the same order, for every model
    curve, start, shown = [], time.time(), {}
    bar = tqdm(range(r.steps), desc=f"{name:>12} (d={width})", position=position, leave=True,
               dynamic_ncols=True, mininterval=1.0)
    for step in bar:
        for g in opt.param_groups:
            g["lr"] = lr_at(step, r)
        starts = torch.randint(0, len(train_ids) - r.block_size - 1, (r.batch_size,), generator=data).tolist()
        x, y = windows(train_ids, starts, r.block_size)
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), r.grad_clip)
        opt.step()
        if (step + 1) % r.eval_every == 0 or step + 1 == r.steps:
            held = mean_loss(model, *eval_sets["heldout"], r.block_size)
            curve.append({"step": step + 1, "heldout_loss": round(held, 4)})
            shown["held-out"] = f"{held:.3f}"
        if overall is not None:
            overall.update(step_cost(width, r))
        if step % 10 == 0 or step + 1 == r.steps:
            shown["loss"] = f"{loss.item():.3f}"
            bar.set_postfix(shown)
    bar.close()
    stats = {
        "width": width,
        "parameters": model.num_params(),
        "train_loss": round(mean_loss(model, *eval_sets["train"], r.block_size), 4),
        "heldout_loss": round(mean_loss(model, *eval_sets["heldout"], r.block_size), 4),
        "heldout_curve": curve,
        "wall_seconds": round(time.time() - start, 1),
    }
    return model.eval(), stats


def train_all(corpus_path, out_dir, recipe=None, prompts=(), force=False):
    """Train the tokenizer and every model, then write them all, or nothing when a check refuses (checks.py).
    prompts: the lesson's prompts, checked against the corpus and its tokenizer; force: warn instead of refusing."""
    r = recipe or Recipe()
    out_dir = Path(out_dir)
    check_out(out_dir)  # before any work: a file, a repository or a folder of other files is refused
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(r.threads)
    started = time.time()
    text, corpus_sha = read_corpus(corpus_path)
    print(f"corpus {corpus_path}: {len(text):,} characters after unwrapping, sha256 {corpus_sha[:12]}…")
    tok = train_tokenizer(text, r.vocab_size, corpus_path)
    lines = text.splitlines(keepends=True)
    pieces = [(line.rstrip("\n"), enc.ids) for line, enc in zip(lines, tok.encode_batch(lines))]
    train_ids, held_ids, train_starts, held_starts, dropped = split(pieces, r, corpus_path)
    total = sum(len(ids) for _, ids in pieces)
    print(f"tokenizer: {tok.get_vocab_size():,} tokens; {total:,} token ids "
          f"({len(train_ids):,} train, {len(held_ids):,} held out"
          + (f"; {dropped:,} held-out paragraphs left out: they repeat training text" if dropped else "") + ")")
    warn_or_refuse(check_prompts(text, tok, prompts), corpus_path, force)
    eval_sets = {"train": (train_ids, train_starts), "heldout": (held_ids, held_starts)}
    fingerprint = tokenizer_fingerprint(tok)
    trained = {}
    # one bar for the whole run, its estimate updated as it goes; each model's own bar below it
    overall = tqdm(total=r.steps * sum(step_cost(w, r) for w in r.widths.values()), desc=f"{'all models':>12}",
                   position=0, leave=True, dynamic_ncols=True, mininterval=1.0,
                   bar_format="{desc}: {percentage:3.0f}%|{bar}| elapsed {elapsed}, about {remaining} left")
    for position, (name, width) in enumerate(r.widths.items(), start=1):
        trained[name] = train_one(name, width, train_ids, eval_sets, r, position, overall)
    overall.close()
    # Nothing is written until every model has trained and passed: a failed run leaves the old models in place.
    warn_or_refuse(check_losses({name: stats for name, (_, stats) in trained.items()}, r.vocab_size), corpus_path,
                   force, what=f"nothing was written to {out_dir}")
    mark(out_dir)
    atomic.write_bytes(out_dir / "tokenizer.json", tok.to_str(pretty=False).encode("utf-8"))
    for name, (model, _) in trained.items():
        save_model(model, out_dir / name, fingerprint)
    card = {
        "recipe": asdict(r),
        "corpus": {"file": Path(corpus_path).name, "sha256": corpus_sha,
                   "characters_unwrapped": len(text), "tokens": total,
                   "train_tokens": len(train_ids), "heldout_tokens": len(held_ids)},
        "tokenizer": {"vocab_size": tok.get_vocab_size(), "sha256": sha256_file(out_dir / "tokenizer.json"),
                      "fingerprint": fingerprint},
        "models": {name: dict(stats, sha256=sha256_file(out_dir / name / "model.safetensors"))
                   for name, (_, stats) in trained.items()},
        "tokens_seen_per_model": r.steps * r.batch_size * r.block_size,
        "wall_seconds_total": round(time.time() - started, 1),
        "torch_version": torch.__version__,
    }
    atomic.write_json(out_dir / "card.json", card)
    atomic.write_bytes(out_dir / "README.md", render_card(card).encode("utf-8"))
    return card


def render_card(card):
    r, c = card["recipe"], card["corpus"]
    rows = "\n".join(
        f"| `{name}` | {m['width']} | {m['parameters']:,} | {m['train_loss']:.4f} | {m['heldout_loss']:.4f} "
        f"| {m['wall_seconds']:.0f} s | `{m['sha256'][:12]}…` |"
        for name, m in card["models"].items())
    return f"""# Model card

Generated by `python -m generator train` — do not edit by hand; `card.json` holds the same facts.

Three GPTs of one recipe (4 layers, 4 heads, MLP 4×, context {r['block_size']}, learned positions,
pre-norm, tied embeddings, no biases), trained on CPU with the same steps, data order and seeds.
`{TARGET}` is the target; `{DRAFTS[0]}` and `{DRAFTS[1]}` are the drafts.

| model | width | parameters | train loss | held-out loss | wall time | safetensors sha256 |
|---|---|---|---|---|---|---|
{rows}

Losses are mean cross-entropy (nats per token) in eval mode, over {len(range(0, c['heldout_tokens'] - r['block_size'] - 1, r['block_size']))}
non-overlapping {r['block_size']}-token windows of the held-out part (the last {r['heldout_fraction']:.0%} of
the text) and as many windows spread over the training part.

- Corpus: `{c['file']}`, sha256 `{c['sha256']}`; {c['characters_unwrapped']:,} characters once its
  hard-wrapped lines are joined into paragraphs; {c['tokens']:,} tokens ({c['train_tokens']:,} train,
  {c['heldout_tokens']:,} held out).
- Tokenizer: byte-level BPE, {card['tokenizer']['vocab_size']:,} tokens, `tokenizer.json` sha256
  `{card['tokenizer']['sha256']}`.
- Recipe: {r['steps']:,} steps × batch {r['batch_size']} × {r['block_size']} tokens
  ({card['tokens_seen_per_model']:,} tokens per model); AdamW (β = 0.9, 0.95), peak learning rate
  {r['lr']} after {r['warmup']} warm-up steps, cosine decay to {r['min_lr']}; weight decay
  {r['weight_decay']}; dropout {', '.join(f"{k} {v}" for k, v in r['dropout'].items())}; gradient clip {r['grad_clip']}; init seed
  {r['init_seed']}, data seed {r['data_seed']}; {r['threads']} CPU threads, deterministic algorithms.
- Wall time for all three: {card['wall_seconds_total']:,.0f} s (torch {card['torch_version']}).
"""
