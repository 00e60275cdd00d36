#!/usr/bin/env python3
"""Cross-check trainbench's speedups against PyTorch itself (issue 8). Not part of the test suite.

Times the same training step of the built-in MLP in Python with torch.utils.benchmark and with
trainbench on the same machine, and compares the speedups of amp_bf16 and of gradient
accumulation over fp32:

    fp32      a1 b64                     (baseline)
    amp_bf16  a1 b64                     autocast to bfloat16 (the CPU mixed-precision mode)
    fp32      a4 b16 x 4 micro-batches   accumulation at a held effective batch of 64

Run from the repository root, after the binary exists (build/trainbench, or --binary):

    ~/.cache/trainbench/venv/bin/python scripts/crosscheck_pytorch.py            # ~3 minutes
    ~/.cache/trainbench/venv/bin/python scripts/crosscheck_pytorch.py --rounds 5 --seconds 4

The Python step is trainbench/training/torch/trainer.cpp's step rebuilt with the same pieces:
  model    trainbench/training/torch/models/mlp.cpp: Linear(512, hidden) ReLU, (depth-1) x [Linear(hidden,
           hidden) ReLU], Linear(hidden, 10); hidden=1024, depth=2; cross-entropy loss.
  data     trainbench/training/torch/datasets/synthetic_dataset.cpp: `samples` x 512 N(0,1) inputs, labels
           from a random linear teacher; a random permutation per epoch, incomplete last batch
           dropped (torch::data RandomSampler, drop_last). trainbench stacks per-sample views
           (torch::data Stack); here one index_select gathers the batch (same bytes copied,
           fewer Python calls).
  step     per micro-batch: autocast(cpu, bfloat16) around forward + loss (loss / k when k > 1),
           backward outside autocast, loss summed on the device; then Adam(lr=1e-3) step,
           zero_grad(set_to_none), and one .item() of the summed loss per step.
  Adam     foreach=True: like LibTorch's C++ Adam, the per-parameter loop runs in C++ rather than
           as Python calls per parameter (same arithmetic).
  threads  torch.set_num_threads = trainbench's at::get_num_threads(), read back from every
           results.json (environment.cpu.threads_used) and checked.

Method: R rounds. In each round every configuration is timed in Python with
Timer.blocked_autorange (min_run_time = --seconds), in a shuffled order, and then trainbench
runs the same three scenarios (one process, its own warm-up and stopping rule, peak
measurement off). Interleaving the two tools round by round means a change of machine load (a
build running beside it) hits both alike. Per tool and configuration the times are pooled over
rounds; the speedup is median(fp32 a1) / median(config) of time per step (the effective batch is
64 in all three, so this is also the ratio of samples/s), with a 95% bootstrap interval (both
pools resampled, 2000 draws). trainbench's own figure with its interval (extra.comparison of each
round's results.json) is printed as well.

Agreement: the two intervals overlap, and |python / trainbench - 1| <= --tolerance (default 10%).
Exit status 0 when every speedup agrees, 1 otherwise, 2 on a setup error.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

VENV_PYTHON = Path.home() / ".cache" / "trainbench" / "venv" / "bin" / "python"

try:
    import torch
    import torch.nn.functional as F
    from torch.utils import benchmark
except ImportError:  # re-run under the project's venv, which has torch 2.11
    if VENV_PYTHON.exists() and Path(sys.executable).resolve() != VENV_PYTHON.resolve():
        os.execv(str(VENV_PYTHON), [str(VENV_PYTHON)] + sys.argv)
    raise

REPO = Path(__file__).resolve().parent.parent
BASELINE = ("fp32", 1)
CONFIGS = [("fp32", 1), ("amp_bf16", 1), ("fp32", 4)]  # (precision, accumulation)


def label(config):
    precision, k = config
    return f"{precision} a{k}"


# ------------------------------------------------------------------ the Python training step


class Synthetic:
    """synthetic_dataset.cpp's data, served like a RandomSampler with drop_last."""

    def __init__(self, samples, features, classes, seed):
        gen = torch.Generator().manual_seed(seed)
        self.inputs = torch.randn(samples, features, generator=gen)
        teacher = torch.randn(features, classes, generator=gen)
        self.labels = (self.inputs @ teacher).argmax(1)
        self.order = torch.randperm(samples)
        self.pos = 0

    def next(self, batch):
        if self.pos + batch > len(self.order):
            self.order = torch.randperm(len(self.order))
            self.pos = 0
        idx = self.order[self.pos:self.pos + batch]
        self.pos += batch
        return self.inputs.index_select(0, idx), self.labels.index_select(0, idx)


def mlp(features, hidden, depth, classes):
    layers, width = [], features
    for _ in range(depth):
        layers += [torch.nn.Linear(width, hidden), torch.nn.ReLU()]
        width = hidden
    layers.append(torch.nn.Linear(width, classes))
    return torch.nn.Sequential(*layers)


def make_step(precision, k, args):
    """A closure that runs one optimizer step of k micro-batches (trainer.cpp's Trainer::step)."""
    torch.manual_seed(args.seed)
    data = Synthetic(args.samples, args.features, args.classes, args.seed)
    model = mlp(args.features, args.hidden, args.depth, args.classes).train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=True)
    loss_sum = torch.zeros(())
    micro = args.batch // k
    amp = precision == "amp_bf16"
    inv_k = 1.0 / k

    def step():
        loss_sum.zero_()
        for _ in range(k):
            x, y = data.next(micro)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
                loss = F.cross_entropy(model(x.flatten(1)), y)
                if k > 1:
                    loss = loss * inv_k
            loss.backward()
            loss_sum.add_(loss.detach())
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss_sum.item()

    return step


# ------------------------------------------------------------------ trainbench


def write_matrix(path, args):
    matrix = {
        "name": "crosscheck-pytorch",
        "model": "mlp",
        "dataset": "synthetic",
        "dataset_options": {"samples": args.samples, "features": args.features, "classes": args.classes},
        "model_options": {"hidden": args.hidden, "depth": args.depth},
        "device": "cpu",
        "optimizer": {"name": "adam", "lr": 1e-3},
        "seed": args.seed,
        "steps": {"warmup": 3, "min": 20, "max": 100000, "target_rel_ci": 0.0001,
                  "time_budget_s": args.seconds},
        "axes": {"precision": ["fp32", "amp_bf16"], "workers": [0], "accumulation": [1, 4],
                 "batch": [args.batch]},
        "hold_effective_batch": True,
        "exclude": [{"precision": "amp_bf16", "accumulation": 4}],
        "baseline": {"precision": "fp32", "workers": 0, "accumulation": 1},
        "capacity": {"measure_peak": False},
    }
    path.write_text(json.dumps(matrix, indent=2))


def run_trainbench(binary, matrix, out, env):
    cmd = [str(binary), "run", str(matrix), "--out", str(out), "--no-history"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    results = out / "results.json"
    if proc.returncode != 0 or not results.exists():
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"crosscheck: trainbench failed (exit {proc.returncode}): {' '.join(cmd)}")
    return json.loads(results.read_text())


# ------------------------------------------------------------------ statistics


def bootstrap_ratio(base, other, draws=2000, seed=1):
    """median(base) / median(other) with a 95% percentile bootstrap interval."""
    rng = random.Random(seed)
    point = statistics.median(base) / statistics.median(other)
    ratios = sorted(
        statistics.median(rng.choices(base, k=len(base))) / statistics.median(rng.choices(other, k=len(other)))
        for _ in range(draws))
    return point, ratios[int(0.025 * draws)], ratios[int(0.975 * draws) - 1]


def fmt(point, lo, hi):
    return f"{point:.3f}x [{lo:.3f}, {hi:.3f}]"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", type=Path, default=None,
                    help="trainbench binary (default: $TRAINBENCH_BUILD/trainbench or build/trainbench)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=3.0,
                    help="per configuration and round: Python min_run_time and trainbench time budget")
    ap.add_argument("--tolerance", type=float, default=0.10, help="agreement bound on |python/trainbench - 1|")
    ap.add_argument("--batch", type=int, default=64, help="effective batch (a4 runs 4 x batch/4)")
    ap.add_argument("--samples", type=int, default=4096)
    ap.add_argument("--features", type=int, default=512)
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--threads", type=int, default=None,
                    help="intra-op threads for both (default: torch's default, checked against trainbench's)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary results folders")
    args = ap.parse_args()

    binary = args.binary or Path(os.environ.get("TRAINBENCH_BUILD", REPO / "build")) / "trainbench"
    if not binary.exists():
        print(f"crosscheck: no trainbench binary at {binary} (build it: scripts/trainbench list, or --binary)",
              file=sys.stderr)
        return 2
    env = dict(os.environ)
    if args.threads:  # trainbench takes OpenMP's default: pin both sides
        torch.set_num_threads(args.threads)
        env["OMP_NUM_THREADS"] = str(args.threads)
    threads = torch.get_num_threads()

    tmp = Path(tempfile.mkdtemp(prefix="tb-crosscheck-"))
    matrix = tmp / "matrix.json"
    write_matrix(matrix, args)
    print(f"crosscheck: torch {torch.__version__}, {threads} threads, MLP {args.features}->"
          f"{args.hidden}x{args.depth}->{args.classes}, effective batch {args.batch}, "
          f"{args.rounds} rounds x {args.seconds:g} s per configuration and tool; results in {tmp}", flush=True)

    steps = {c: make_step(*c, args) for c in CONFIGS}
    for c in CONFIGS:  # warm-up: allocator, oneDNN primitives, Adam state (trainbench: 3 steps)
        for _ in range(3):
            steps[c]()

    py = {c: [] for c in CONFIGS}      # per-block seconds per step
    tb = {c: [] for c in CONFIGS}      # per-step seconds
    tb_reported = {c: [] for c in CONFIGS}
    rng = random.Random(args.seed)
    for r in range(args.rounds):
        round_py = {}
        order = CONFIGS[:]
        rng.shuffle(order)
        for c in order:
            # num_threads: Timer's default is ONE thread, not torch's setting.
            t = benchmark.Timer(stmt="step()", globals={"step": steps[c]}, num_threads=threads,
                                label="crosscheck", description=label(c))
            round_py[c] = t.blocked_autorange(min_run_time=args.seconds).times
            py[c].extend(round_py[c])
        out = tmp / f"round{r}"
        res = run_trainbench(binary, matrix, out, env)
        used = res["environment"].get("cpu", {}).get("threads_used")
        if used != threads:
            print(f"crosscheck: trainbench used {used} threads, Python {threads}: rerun with --threads {used}",
                  file=sys.stderr)
            return 2
        by_config = {(s["params"]["precision"], s["params"]["accumulation"]): s for s in res["scenarios"]}
        line = []
        for c in CONFIGS:
            s = by_config.get(c)
            if s is None or s["status"] != "ok":
                print(f"crosscheck: trainbench scenario {label(c)} did not run ok: "
                      f"{s['message'] if s else 'missing'}", file=sys.stderr)
                return 2
            tb[c].extend(s["samples"]["step_time_s"])
            cmp = s["extra"].get("comparison", {})
            if c != BASELINE and "speedup" in cmp:
                tb_reported[c].append((cmp["speedup"], cmp["ci_low"], cmp["ci_high"]))
            line.append(f"{label(c)} py {statistics.median(round_py[c]) * 1e3:.2f} / "
                        f"tb {statistics.median(s['samples']['step_time_s']) * 1e3:.2f} ms")
        print(f"round {r + 1}/{args.rounds}: " + "; ".join(line), flush=True)

    print()
    print(f"{'config':26s} {'python ms/step':>15s} {'trainbench ms/step':>19s}")
    for c in CONFIGS:
        print(f"{label(c):26s} {statistics.median(py[c]) * 1e3:15.3f} {statistics.median(tb[c]) * 1e3:19.3f}"
              f"   ({len(py[c])} blocks / {len(tb[c])} steps)")
    print()
    header = (f"{'speedup over fp32 a1':22s} {'python [95% CI]':>26s} {'trainbench [95% CI]':>26s} "
              f"{'py/tb':>7s}  {'overlap':7s} {'within ' + format(args.tolerance, '.0%'):10s}  trainbench's own per round")
    print(header)
    print("-" * len(header))
    all_agree = True
    for c in CONFIGS:
        if c == BASELINE:
            continue
        p = bootstrap_ratio(py[BASELINE], py[c])
        t = bootstrap_ratio(tb[BASELINE], tb[c])
        overlap = p[1] <= t[2] and t[1] <= p[2]
        rel = p[0] / t[0]
        within = abs(rel - 1) <= args.tolerance
        all_agree &= overlap and within
        own = ", ".join(f"{s:.2f} [{lo:.2f}, {hi:.2f}]" for s, lo, hi in tb_reported[c]) or "-"
        print(f"{label(c):22s} {fmt(*p):>26s} {fmt(*t):>26s} {rel:7.3f}  {'yes' if overlap else 'NO':7s} "
              f"{'yes' if within else 'NO':10s}  {own}")
    print()
    print("agreement: " + ("every speedup agrees" if all_agree else "NOT every speedup agrees") +
          f" (intervals overlap and within {args.tolerance:.0%})")
    if not args.keep:
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if all_agree else 1


if __name__ == "__main__":
    sys.exit(main())
