#!/usr/bin/env python3
"""Step times of the standard workloads, compute only: trainbench against the same model in Python.

    ~/.cache/trainbench/venv/bin/python scripts/crosscheck_standard.py [--rounds 3] [--steps 8]

For ResNet-50 (torchvision's resnet50, 224x224, 1000 classes) and GPT-2 small (the PyTorch
model below, built like transformers' GPT2LMHeadModel and trainbench's gpt2.cpp: 12 pre-norm
blocks, SDPA causal attention, GELU-tanh, dropout 0.1, tied head), fp32, AdamW(lr 3e-4, weight
decay 0.01), batch --batch, data resident in memory (trainbench's dataset_options.placement
"device": a few batches made once and reused, nothing loaded or copied per step):

  python      the model trained for --steps timed steps after 3 warm-up steps (perf_counter
              around forward, backward, AdamW step, zero_grad and one loss.item(), as
              trainbench's step reads its loss), on the resident batches in turn;
  trainbench  scenarios/standard.json narrowed with --set to the same scenario (the plain
              configuration), one round of --steps measured steps after 3 warm-up steps.

The two tools alternate, R rounds, the order flipped each round, so the machine's drift between
minutes hits both. Per model: the median step time of each tool over all its steps, the ratio
python / trainbench with a 95% bootstrap interval (each tool's steps resampled), and whether it is
within --tolerance (default 5%). Threads: torch.set_num_threads to trainbench's own
(environment.cpu.threads_used). Exit 0 when every model agrees, 1 otherwise, 2 on a setup error.
"""
import argparse
import json
import math
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import torchvision
except ImportError as e:  # pragma: no cover - setup error
    print("crosscheck_standard: needs torch and torchvision (the trainbench venv): %s" % e, file=sys.stderr)
    sys.exit(2)

ROOT = Path(__file__).resolve().parent.parent


class Block(nn.Module):
    def __init__(self, width=768, heads=12, dropout=0.1):
        super().__init__()
        self.heads, self.dropout = heads, dropout
        self.ln_1, self.ln_2 = nn.LayerNorm(width, eps=1e-5), nn.LayerNorm(width, eps=1e-5)
        self.c_attn, self.attn_proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.c_fc, self.mlp_proj = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).view(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0, is_causal=True)
        x = x + F.dropout(self.attn_proj(y.transpose(1, 2).reshape(b, t, c)), self.dropout, self.training)
        return x + F.dropout(self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh")), self.dropout,
                             self.training)


class Gpt2(nn.Module):
    """GPT-2 small: 124,439,808 parameters with the head tied to the token embedding."""

    def __init__(self, vocab=50257, context=1024, width=768, layers=12):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, width), nn.Embedding(context, width)
        self.h = nn.ModuleList(Block(width) for _ in range(layers))
        self.ln_f = nn.LayerNorm(width, eps=1e-5)

    def forward(self, tokens):
        x = F.dropout(self.wte(tokens) + self.wpe(torch.arange(tokens.shape[1])), 0.1, self.training)
        for block in self.h:
            x = block(x)
        return F.linear(self.ln_f(x), self.wte.weight)


def python_model(name, batch, seq_len):
    torch.manual_seed(42)
    if name == "resnet50":
        model = torchvision.models.resnet50()
        batches = [(torch.randn(batch, 3, 224, 224), torch.randint(0, 1000, (batch,))) for _ in range(4)]
        loss_of = lambda out, y: F.cross_entropy(out, y)  # noqa: E731
    else:
        model = Gpt2()
        tokens = [torch.randint(0, 50257, (batch, seq_len + 1)) for _ in range(4)]
        batches = [(t[:, :-1].contiguous(), t[:, 1:].contiguous()) for t in tokens]
        loss_of = lambda out, y: F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))  # noqa: E731
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01, foreach=False)
    return model, batches, loss_of, optimizer


def python_steps(state, steps, warmup=3):
    model, batches, loss_of, optimizer = state
    times = []
    for i in range(warmup + steps):
        x, y = batches[i % len(batches)]
        start = time.perf_counter()
        loss = loss_of(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        loss.item()
        if i >= warmup:
            times.append(time.perf_counter() - start)
    return times


def trainbench_steps(binary, name, batch, seq_len, steps, out):
    settings = [
        "device=cpu", 'axes.model=["%s"]' % name, 'axes.precision=["fp32"]', "axes.batch=[%d]" % batch,
        'configurations=[{"name": "plain"}]', "dataset_options.samples=8", "capacity.measure_peak=false",
        'steps={"warmup": 3, "min": %d, "max": %d, "rounds": 1, "time_budget_s": 600}' % (steps, steps),
        "contention.other_cpu_cores=4096", "contention.steal_fraction=1"]
    if name == "gpt2":
        settings.append("model_overrides.gpt2.dataset_options.seq_len=%d" % seq_len)
    cmd = [binary, "run", str(ROOT / "scenarios" / "standard.json"), "--out", out, "--format", "none",
           "--no-history", "--quiet"]
    for s in settings:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    run = json.loads(Path(out, "results.json").read_text())
    (scenario,) = [s for s in run["scenarios"] if s["status"] == "ok"]
    assert scenario["params"]["dataset_options"]["placement"] == "device"
    return scenario["samples"]["step_time_s"], run["environment"]["cpu"]["threads_used"]


def bootstrap_ratio(a, b, draws=2000, seed=1):
    rng = random.Random(seed)
    ratios = sorted(statistics.median(rng.choices(a, k=len(a))) / statistics.median(rng.choices(b, k=len(b)))
                    for _ in range(draws))
    return ratios[int(0.025 * draws)], ratios[int(0.975 * draws) - 1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=str(ROOT / "build" / "trainbench"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--seq-len", type=int, default=64)
    parser.add_argument("--tolerance", type=float, default=0.05)
    parser.add_argument("--models", default="resnet50,gpt2")
    args = parser.parse_args()
    if not Path(args.binary).exists():
        print("crosscheck_standard: no trainbench at %s (build it, or --binary)" % args.binary, file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix="tb-crosscheck-standard-")
    print("crosscheck_standard: torch %s, %d rounds x %d steps, batch %d, GPT-2 seq %d; trainbench runs in %s"
          % (torch.__version__, args.rounds, args.steps, args.batch, args.seq_len, work))
    agree = True
    for name in args.models.split(","):
        py, tb, threads = [], [], None
        state = None
        for r in range(args.rounds):
            for tool in (["python", "trainbench"] if r % 2 == 0 else ["trainbench", "python"]):
                if tool == "trainbench":
                    times, threads = trainbench_steps(args.binary, name, args.batch, args.seq_len, args.steps,
                                                      "%s/%s-r%d" % (work, name, r))
                    tb += times
                    torch.set_num_threads(threads)
                else:
                    if state is None:
                        if threads is not None:
                            torch.set_num_threads(threads)
                        state = python_model(name, args.batch, args.seq_len)
                    py += python_steps(state, args.steps)
            print("  %s round %d/%d: python %.1f ms, trainbench %.1f ms (medians so far)"
                  % (name, r + 1, args.rounds, 1e3 * statistics.median(py), 1e3 * statistics.median(tb)), flush=True)
        ratio = statistics.median(py) / statistics.median(tb)
        low, high = bootstrap_ratio(py, tb)
        within = abs(ratio - 1) <= args.tolerance
        agree = agree and within
        print("%-9s python %8.1f ms  trainbench %8.1f ms  python/trainbench %.3f [%.3f, %.3f]  %s (tolerance %d%%, %d threads)"
              % (name, 1e3 * statistics.median(py), 1e3 * statistics.median(tb), ratio, low, high,
                 "within" if within else "NOT within", round(100 * args.tolerance), threads or 0))
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
