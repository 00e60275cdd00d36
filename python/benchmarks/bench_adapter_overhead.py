#!/usr/bin/env python3
"""The Python side's own cost per step, against a bare Python loop doing the same step (issue 28).

Workload: the smallest built-in one, trainbench's MLP (512 -> 1024 x 2 -> 10, ReLU), batch 64,
cross-entropy, Adam (lr 1e-3, foreach), fp32, CPU; data: 64 pre-made micro-batches of synthetic
N(0, 1) inputs with labels from a random linear teacher (scripts/crosscheck_pytorch.py's data),
iterated again when exhausted.

Arms (the same model, optimizer and data; they take turns stepping it):
  trainbench  trainbench.step_runner.ComponentsRunner.step with a CpuStepTimer and the phase
              recorder set, i.e. what a measured step of a segment runs (timer made and finished
              inside the block, as a segment does); no protocol round trip inside the timed region.
  bare        next(iterator) (restart when exhausted), model, loss, backward, Adam step,
              zero_grad(set_to_none=True), loss.item(): what a user's own loop does.

Method (bench_harness_overhead's): R rounds; in each round both arms run a block of N steps in a
shuffled order; per arm and round the time per step is the block's wall time / N. The per-round
ratio trainbench / bare pairs the arms under the same machine load. A third arm runs the bare loop
again (A/A): its ratio to the bare arm shows the method's noise floor on this machine. Reported: the median ratio with
a 95% bootstrap interval (rounds resampled, 4000 draws), the overhead as a percent of the bare step,
and the same for a trivial model (Linear(1, 1)), whose step is almost all overhead, to show the
adapter's fixed cost in microseconds.

    ~/.cache/trainbench/venv/bin/python python/benchmarks/bench_adapter_overhead.py            # ~3 min
    ~/.cache/trainbench/venv/bin/python python/benchmarks/bench_adapter_overhead.py --json out.json
"""
import argparse
import json
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from trainbench import Components, Settings, builtin  # noqa: E402
from trainbench.phases import set_recorder  # noqa: E402
from trainbench.step_runner import ComponentsRunner  # noqa: E402
from trainbench.timing import CpuStepTimer  # noqa: E402


def synthetic_batches(features, classes, batch, count, seed):
    inputs, labels = builtin.synthetic_classification(batch * count, features, classes, seed)
    return [(inputs[i:i + batch].clone(), labels[i:i + batch].clone()) for i in range(0, batch * count, batch)]


def make_arms(workload, batch, seed):
    """(trainbench block, bare block): each runs n steps and returns seconds per step."""
    features = 512 if workload == "mlp" else 1
    classes = 10 if workload == "mlp" else 1
    make_model = builtin.mlp if workload == "mlp" else (lambda: torch.nn.Linear(1, 1))
    if workload == "mlp":
        batches = synthetic_batches(features, classes, batch, 64, seed)
        loss_fn = F.cross_entropy
    else:
        batches = [(torch.randn(batch, 1), torch.randn(batch, 1)) for _ in range(64)]
        loss_fn = F.mse_loss
    settings = Settings(batch=batch, optimizer="adam", optimizer_impl="foreach", learning_rate=1e-3, seed=seed)

    torch.manual_seed(seed)
    runner = ComponentsRunner(Components(model=make_model(), loss_fn=loss_fn, batches=batches), settings,
                              torch.device("cpu"))

    def trainbench_block(n):
        start = time.perf_counter()
        timer = CpuStepTimer(n)
        set_recorder(timer)
        step = runner.step
        for _ in range(n):
            step(timer)
        set_recorder(None)
        timer.finish()
        return (time.perf_counter() - start) / n

    # The bare loop steps the same model with the same optimizer: the arms differ only in who
    # drives the step (no placement or allocator difference between two copies of the model).
    model, opt = runner.model, runner.optimizer
    state = {"it": iter(batches)}

    def bare_block(n):
        start = time.perf_counter()
        it = state["it"]
        for _ in range(n):
            try:
                x, y = next(it)
            except StopIteration:
                it = iter(batches)
                x, y = next(it)
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            loss.item()
        state["it"] = it
        return (time.perf_counter() - start) / n

    return {"trainbench": trainbench_block, "bare": bare_block, "bare_again": bare_block}


def bootstrap_median(values, draws=4000, seed=1):
    rng = random.Random(seed)
    meds = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(draws))
    return statistics.median(values), meds[int(0.025 * draws)], meds[int(0.975 * draws) - 1]


def measure(workload, rounds, steps, batch, seed, warmup):
    arms = make_arms(workload, batch, seed)
    for block in arms.values():
        block(warmup)
    rng = random.Random(seed)
    per_round = {name: [] for name in arms}
    for _ in range(rounds):
        order = list(arms)
        rng.shuffle(order)
        for name in order:
            per_round[name].append(arms[name](steps))
    ratios = [t / b for t, b in zip(per_round["trainbench"], per_round["bare"])]
    diffs = [t - b for t, b in zip(per_round["trainbench"], per_round["bare"])]
    # A/A: the bare loop against itself, the same pairing; its spread is the noise floor.
    aa = bootstrap_median([a / b for a, b in zip(per_round["bare_again"], per_round["bare"])])
    ratio = bootstrap_median(ratios)
    diff = bootstrap_median(diffs)
    bare = statistics.median(per_round["bare"])
    return {"workload": workload, "rounds": rounds, "steps_per_block": steps, "batch": batch,
            "bare_step_s": bare, "trainbench_step_s": statistics.median(per_round["trainbench"]),
            "ratio": ratio[0], "ratio_ci": [ratio[1], ratio[2]],
            "overhead_pct": (ratio[0] - 1) * 100, "overhead_pct_ci": [(ratio[1] - 1) * 100, (ratio[2] - 1) * 100],
            "overhead_s": diff[0], "overhead_s_ci": [diff[1], diff[2]],
            "aa_ratio": aa[0], "aa_ratio_ci": [aa[1], aa[2]]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("--steps", type=int, default=25, help="steps per block (MLP)")
    ap.add_argument("--tiny-rounds", type=int, default=40)
    ap.add_argument("--tiny-steps", type=int, default=400, help="steps per block (trivial model)")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: torch's default)")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"bench_adapter_overhead: torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"MLP 512->1024x2->10 batch {args.batch}, Adam foreach, fp32, CPU", flush=True)
    results = [measure("mlp", args.rounds, args.steps, args.batch, args.seed, warmup=10),
               measure("trivial", args.tiny_rounds, args.tiny_steps, args.batch, args.seed, warmup=50)]
    print(f"{'workload':9s} {'bare ms/step':>12s} {'tb ms/step':>11s} {'ratio tb/bare [95% CI]':>30s} "
          f"{'overhead % of step':>26s} {'overhead us/step [95% CI]':>28s} {'A/A bare/bare [95% CI]':>28s}")
    for r in results:
        lo, hi = r["ratio_ci"]
        plo, phi = r["overhead_pct_ci"]
        dlo, dhi = r["overhead_s_ci"]
        print(f"{r['workload']:9s} {r['bare_step_s'] * 1e3:12.4f} {r['trainbench_step_s'] * 1e3:11.4f} "
              f"{r['ratio']:10.4f} [{lo:.4f}, {hi:.4f}]  {r['overhead_pct']:+9.2f} [{plo:+.2f}, {phi:+.2f}]"
              f"  {r['overhead_s'] * 1e6:+9.2f} [{dlo * 1e6:+.2f}, {dhi * 1e6:+.2f}]"
              f"  {r['aa_ratio']:10.4f} [{r['aa_ratio_ci'][0]:.4f}, {r['aa_ratio_ci'][1]:.4f}]")
    mlp_result = results[0]
    fixed = results[1]["overhead_s"]
    print(f"\nadapter cost on the MLP step: {mlp_result['overhead_pct']:+.2f}% (95% CI "
          f"{mlp_result['overhead_pct_ci'][0]:+.2f} to {mlp_result['overhead_pct_ci'][1]:+.2f}); fixed cost "
          f"{fixed * 1e6:.1f} us/step = {fixed / mlp_result['bare_step_s'] * 100:.3f}% of the MLP step "
          f"(bound: 1%)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": torch.get_num_threads(), "torch": torch.__version__, "results": results,
                       "fixed_cost_pct_of_mlp_step": fixed / mlp_result["bare_step_s"] * 100}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
