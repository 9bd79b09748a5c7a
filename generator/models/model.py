"""A small GPT: learned positions, pre-norm, tied embeddings, no biases."""
import math
from dataclasses import asdict, dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class GPTConfig:
    vocab_size: int = 2048
    block_size: int = 128   # context length
    n_layer: int = 4
    n_head: int = 4
    n_embd: int = 256       # width: 256 target, 64 and 128 drafts

    def to_dict(self):
        return asdict(self)


class KVCache:
    """Keys and values of the tokens already seen, per layer, so decoding feeds only the new tokens.

    truncate(n) forgets everything after the first n positions: a rejected draft is undone this way.
    """

    def __init__(self, n_layer):
        self.kv = [None] * n_layer

    def __len__(self):
        return 0 if self.kv[0] is None else self.kv[0][0].shape[2]

    def extend(self, layer, k, v):
        if self.kv[layer] is not None:
            k = torch.cat([self.kv[layer][0], k], dim=2)
            v = torch.cat([self.kv[layer][1], v], dim=2)
        self.kv[layer] = (k, v)
        return k, v

    def truncate(self, n):
        self.kv = [None if kv is None or n == 0 else (kv[0][:, :, :n], kv[1][:, :, :n]) for kv in self.kv]


class RowsKVCache:
    """The KV caches of B independent sequences (rows) of different lengths, for decoding them in one batch.

    lengths[b] is how many leading positions of row b hold valid keys and values; the slots after it are
    never written or hold rejected drafts, and GPT.forward_ragged masks them out, so rolling a row back only
    lowers its length. keep(rows) drops the rows that are done.
    """

    def __init__(self, n_layer, batch, capacity=0):
        self.kv = [None] * n_layer
        self.lengths = torch.zeros(batch, dtype=torch.long)
        self.capacity = capacity  # positions allocated at the first write (the context: then it never grows)

    def _room(self, layer, like, span):
        """Make sure layer's storage holds `span` positions per row, allocated like `like` (heads, head size)."""
        if self.kv[layer] is None or self.kv[layer][0].shape[2] < span:  # grow (rarely: by a round's tokens)
            B, (H, D) = len(self.lengths), (like.shape[1], like.shape[3])
            grown = [like.new_zeros(B, H, max(span + 16, self.capacity), D) for _ in range(2)]
            if self.kv[layer] is not None:
                for new, old in zip(grown, self.kv[layer]):
                    new[:, :, :old.shape[2]] = old
            self.kv[layer] = tuple(grown)

    def write_ragged(self, layer, row, pos, k, v, span):
        """Put the new keys and values (1, heads, N, head size) of N tokens, ragged (without padding), at
        (row[i], pos[i]); return every row's keys and values over the first `span` positions."""
        self._room(layer, k, span)
        for stored, new in zip(self.kv[layer], (k, v)):
            stored[row, :, pos] = new[0].transpose(0, 1)  # indexed by token: (N, heads, head size)
        return self.kv[layer][0][:, :, :span], self.kv[layer][1][:, :, :span]

    def keep(self, rows):
        """Keep only the given rows (a list of indices), in that order."""
        index = torch.tensor(rows, dtype=torch.long)
        self.kv = [None if kv is None else (kv[0][index], kv[1][index]) for kv in self.kv]
        self.lengths = self.lengths[index]


class SelfAttention(nn.Module):
    def __init__(self, cfg, dropout):
        super().__init__()
        self.n_head, self.dropout = cfg.n_head, dropout
        self.qkv = nn.Linear(cfg.n_embd, 3 * cfg.n_embd, bias=False)
        self.proj = nn.Linear(cfg.n_embd, cfg.n_embd, bias=False)

    def forward(self, x, cache=None, layer=0):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        if cache is not None:
            k, v = cache.extend(layer, k, v)
        past = k.shape[2] - T
        if past == 0:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                               dropout_p=self.dropout if self.training else 0.0)
        else:  # new token i sees every cached position and the new ones up to itself
            mask = torch.ones(T, past + T, dtype=torch.bool).tril(diagonal=past)
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return F.dropout(self.proj(y.transpose(1, 2).reshape(B, T, C)), self.dropout, self.training)


class MLP(nn.Module):
    def __init__(self, cfg, dropout):
        super().__init__()
        self.dropout = dropout
        self.up = nn.Linear(cfg.n_embd, 4 * cfg.n_embd, bias=False)
        self.down = nn.Linear(4 * cfg.n_embd, cfg.n_embd, bias=False)

    def forward(self, x):
        return F.dropout(self.down(F.gelu(self.up(x))), self.dropout, self.training)


class Block(nn.Module):
    def __init__(self, cfg, dropout):
        super().__init__()
        self.ln1 = nn.LayerNorm(cfg.n_embd, bias=False)
        self.attn = SelfAttention(cfg, dropout)
        self.ln2 = nn.LayerNorm(cfg.n_embd, bias=False)
        self.mlp = MLP(cfg, dropout)

    def forward(self, x, cache=None, layer=0):
        x = x + self.attn(self.ln1(x), cache, layer)
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, cfg, dropout=0.0):
        """dropout is a training setting only: it acts in train mode and is not part of the checkpoint."""
        super().__init__()
        self.cfg = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.pos_emb = nn.Embedding(cfg.block_size, cfg.n_embd)
        self.blocks = nn.ModuleList(Block(cfg, dropout) for _ in range(cfg.n_layer))
        self.ln_f = nn.LayerNorm(cfg.n_embd, bias=False)
        self.apply(self._init)
        for name, p in self.named_parameters():  # residual branches start small (GPT-2)
            if name.endswith(("proj.weight", "down.weight")):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * cfg.n_layer))

    @staticmethod
    def _init(m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)

    def num_params(self):
        return sum(p.numel() for p in self.parameters())

    def forward(self, idx, cache=None):
        """Token ids (B, T) → logits (B, T, vocab): a next-token distribution at every position.

        With a KVCache, idx holds only the tokens after the cached ones (batch 1), and the cache grows.
        """
        past = len(cache) if cache is not None else 0
        T = idx.shape[1]
        if past + T > self.cfg.block_size:
            raise ValueError(f"sequence of {past + T} tokens exceeds the context of {self.cfg.block_size}")
        if T == 1 and past > 0 and not self.training:
            return self._cached_step(idx, cache, past)
        x = self.tok_emb(idx) + self.pos_emb(torch.arange(past, past + T, device=idx.device))
        for i, block in enumerate(self.blocks):
            x = block(x, cache, i)
        return self.ln_f(x) @ self.tok_emb.weight.T  # tied output embedding

    def _cached_step(self, idx, cache, past):
        """forward() for one new token after a non-empty cache, in eval mode: the same operations on the same
        tensors in the same order, hence the same logits bit for bit, without the per-module call overhead, the
        dropout calls (no-ops in eval) and the attention mask (one query attends to every cached key anyway).
        Decoding runs this once per drafted token, so its overhead is most of a small draft's forward."""
        emb, pos = self.tok_emb.weight, self.pos_emb.weight
        x = F.embedding(idx, emb) + F.embedding(torch.arange(past, past + 1, device=idx.device), pos)
        return self._lean_blocks(x, lambda i, q, k, v: F.scaled_dot_product_attention(q, *cache.extend(i, k, v)))

    def forward_ragged(self, idx, row, pos, cache, out):
        """Many sequences' new tokens at once in eval mode, ragged (without padding): token i of idx (N,) belongs to
        cache row row[i] at position pos[i] of its sequence (its own learned position); a row's tokens are
        consecutive, from cache.lengths[row] on, and attend to their row's positions up to their own. The linear
        layers see only the N real tokens; attention pads them per row. Returns the logits of the tokens at
        indices `out` only (len(out), vocab). The caller advances cache.lengths by what each row fed."""
        start = cache.lengths
        slot = pos - start[row]  # each token's place among its row's new tokens
        T, span = int(slot.max()) + 1, int(pos.max()) + 1
        where = start[:, None] + torch.arange(T)  # (B, T): padded slots only see their row's keys; never read
        mask = (torch.arange(span) <= where[:, :, None])[:, None]  # (B, 1, T, span)
        x = F.embedding(idx, self.tok_emb.weight) + F.embedding(pos, self.pos_emb.weight)

        def attend(i, q, k, v):
            keys, values = cache.write_ragged(i, row, pos, k, v, span)
            padded = q.new_zeros(len(start), T, *q.shape[1:2], q.shape[3])
            padded[row, slot] = q[0].transpose(0, 1)
            y = F.scaled_dot_product_attention(padded.transpose(1, 2), keys, values, attn_mask=mask)
            return y.transpose(1, 2)[row, slot].transpose(0, 1)[None]
        return self._lean_blocks(x[None], attend, out)[0]

    def _lean_blocks(self, x, attend, out=None):
        """The blocks, final norm and output embedding on embedded tokens x, in eval mode, as plain tensor
        operations (the modules' own, in their order); attend(layer, q, k, v) caches the new keys and values and
        returns the attention output. With `out` (indices along T), only those tokens get logits."""
        emb, final, final_eps, layers = self._step_tensors()
        B, T, C = x.shape
        for i, (ln1, eps1, qkv, n_head, proj, ln2, eps2, up, down) in enumerate(layers):
            h = torch.layer_norm(x, (C,), ln1, None, eps1)
            q, k, v = F.linear(h, qkv).split(C, dim=2)
            q, k, v = (t.view(B, T, n_head, C // n_head).transpose(1, 2) for t in (q, k, v))
            y = attend(i, q, k, v)
            x = x + F.linear(y.transpose(1, 2).reshape(B, T, C), proj)
            h = torch.layer_norm(x, (C,), ln2, None, eps2)
            x = x + F.linear(F.gelu(F.linear(h, up)), down)
        if out is not None:
            x = x[:, out]
        x = torch.layer_norm(x, (C,), final, None, final_eps)
        return x @ emb.T

    def _step_tensors(self):
        """What _lean_blocks reads, gathered once (a module attribute lookup costs as much as a small op).
        The parameters are held by reference, so conversions like .double() that replace their data show."""
        tensors = self.__dict__.get("_step_cache")
        if tensors is None or tensors[0] is not self.tok_emb.weight:
            layers = tuple((b.ln1.weight, b.ln1.eps, b.attn.qkv.weight, b.attn.n_head, b.attn.proj.weight,
                            b.ln2.weight, b.ln2.eps, b.mlp.up.weight, b.mlp.down.weight) for b in self.blocks)
            tensors = (self.tok_emb.weight, self.ln_f.weight, self.ln_f.eps, layers)
            self.__dict__["_step_cache"] = tensors
        return tensors
