"""Python twins of trainbench's built-in ``mlp`` and ``transformer`` models and their datasets.

For cross-checks: the same model run as a C++ scenario and as a Python one. Shapes and defaults
follow the C++ sources:

  * :func:`mlp`: trainbench/training/torch/models/mlp.cpp: flatten, ``depth`` x [Linear, ReLU]
    of width ``hidden`` (1024, 2), Linear to ``classes``; cross-entropy.
  * :class:`TransformerLM`: models/transformer_lm.cpp: token + position embeddings, ``layers``
    pre-norm blocks (LayerNorm, qkv Linear, causal scaled-dot-product attention, proj;
    LayerNorm, Linear ``ff`` (4 x d_model), GELU, Linear), final LayerNorm and a vocab head;
    defaults d_model 128, heads 4, layers 2; cross-entropy over every position.
  * :func:`synthetic_classification`: datasets/synthetic_dataset.cpp: ``samples`` (4096) x
    ``features`` (512) N(0, 1) inputs, labels = argmax of a random linear teacher (10 classes),
    drawn from ``torch.Generator().manual_seed(seed)`` in the C++ order.
  * :func:`markov_tokens`: datasets/token_dataset.cpp's kind of stream (each token has 4 likely
    successors, 10% noise), windows of ``seq_len`` (64) over a ``vocab`` (256); the C++ side draws
    it with std::mt19937_64, so the tokens differ but not their statistics.
  * :class:`EpochBatches`: batches as torch::data's RandomSampler with drop_last serves them: a new
    random permutation per pass, the incomplete last batch dropped. Re-iterable.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F


def mlp(features: int = 512, hidden: int = 1024, depth: int = 2, classes: int = 10) -> torch.nn.Module:
    layers, width = [torch.nn.Flatten(1)], features
    for _ in range(depth):
        layers += [torch.nn.Linear(width, hidden), torch.nn.ReLU()]
        width = hidden
    layers.append(torch.nn.Linear(width, classes))
    return torch.nn.Sequential(*layers)


class Block(torch.nn.Module):
    def __init__(self, d_model: int, heads: int, ff: int):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(d_model)
        self.qkv = torch.nn.Linear(d_model, 3 * d_model)
        self.proj = torch.nn.Linear(d_model, d_model)
        self.ln2 = torch.nn.LayerNorm(d_model)
        self.fc1 = torch.nn.Linear(d_model, ff)
        self.fc2 = torch.nn.Linear(ff, d_model)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = x + self.proj(attn.transpose(1, 2).reshape(b, t, d))
        return y + self.fc2(F.gelu(self.fc1(self.ln2(y))))


class TransformerLM(torch.nn.Module):
    def __init__(self, vocab: int = 256, seq_len: int = 64, d_model: int = 128, heads: int = 4, layers: int = 2,
                 ff: int | None = None):
        super().__init__()
        if d_model % heads:
            raise ValueError(f"d_model ({d_model}) must be divisible by heads ({heads})")
        self.vocab = vocab
        self.tok = torch.nn.Embedding(vocab, d_model)
        self.pos = torch.nn.Embedding(seq_len, d_model)
        self.blocks = torch.nn.ModuleList(Block(d_model, heads, ff or 4 * d_model) for _ in range(layers))
        self.ln_f = torch.nn.LayerNorm(d_model)
        self.head = torch.nn.Linear(d_model, vocab)

    def forward(self, tokens):
        x = self.tok(tokens) + self.pos(torch.arange(tokens.size(1), device=tokens.device))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


def lm_loss(logits, target):
    """Cross-entropy over every position (transformer_lm.cpp's loss)."""
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), target.reshape(-1))


def synthetic_classification(samples: int = 4096, features: int = 512, classes: int = 10, seed: int = 42):
    """(inputs, labels) of the synthetic dataset."""
    gen = torch.Generator().manual_seed(seed)
    inputs = torch.randn(samples, features, generator=gen)
    teacher = torch.randn(features, classes, generator=gen)
    return inputs, (inputs @ teacher).argmax(1)


def markov_tokens(samples: int = 4096, seq_len: int = 64, vocab: int = 256, seed: int = 42):
    """(inputs, targets): windows of a sparse Markov token stream, targets shifted by one."""
    gen = torch.Generator().manual_seed(seed)
    length = samples * seq_len + 1
    successors = torch.randint(0, vocab, (vocab, 4), generator=gen)
    pick = torch.randint(0, 4, (length,), generator=gen)
    noise = torch.rand(length, generator=gen) < 0.1
    random_tokens = torch.randint(0, vocab, (length,), generator=gen)
    stream = torch.empty(length, dtype=torch.long)
    stream[0] = random_tokens[0]
    s, p, n, r = stream.tolist(), pick.tolist(), noise.tolist(), random_tokens.tolist()
    table = successors.tolist()
    for i in range(1, length):
        s[i] = r[i] if n[i] else table[s[i - 1]][p[i]]
    stream = torch.tensor(s, dtype=torch.long)
    windows = stream[:samples * seq_len].view(samples, seq_len)
    targets = stream[1:samples * seq_len + 1].view(samples, seq_len)
    return windows, targets


class EpochBatches:
    """Batches of (inputs[idx], targets[idx]) over a fresh permutation per pass, drop_last."""

    def __init__(self, inputs, targets, batch: int, seed: int = 42):
        if batch > len(inputs):
            raise ValueError(f"batch {batch} is larger than the dataset ({len(inputs)} samples)")
        self.inputs, self.targets, self.batch = inputs, targets, batch
        self.generator = torch.Generator().manual_seed(seed)

    def __len__(self):
        return len(self.inputs) // self.batch

    def __iter__(self):
        order = torch.randperm(len(self.inputs), generator=self.generator)
        for start in range(0, len(self) * self.batch, self.batch):
            idx = order[start:start + self.batch]
            yield self.inputs.index_select(0, idx), self.targets.index_select(0, idx)
