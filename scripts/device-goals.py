#!/usr/bin/env python3
"""Which GPU goal each figure of a device check meets (issue 30; docs/gpu-check.md#goals).

    scripts/device-goals.py RESULTS_DIR [--published data/published_throughputs.json]

RESULTS_DIR is the device check's results folder (device-results/, or the dry run's). Prints one
line per goal: the figure, the goal, and "met", "NOT met" or "not checked" with the reason (no
standard results: a dry run or a stage that did not finish). Reads results.json files only; exits
0 whatever the verdicts (the summary reports, the device check does not gate).
"""
import argparse
import json
import os
import sys

GPT2_TOKENS_GOAL = 375_000  # tokens/s on one H200 from eager C++ (about 32% of the bf16 datasheet peak)
RESNET_WITHIN = 0.15  # of the best published eager-PyTorch figure, scaled to the measured peak


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def best_ok(run, model, precision):
    """The ok scenario of `model` at `precision` with the highest samples/s, or None."""
    best = None
    for s in (run or {}).get("scenarios", []):
        p = s.get("params", {})
        if s.get("status") != "ok" or p.get("model") != model or p.get("precision") != precision:
            continue
        if best is None or s["metrics"].get("samples_per_s", 0) > best["metrics"].get("samples_per_s", 0):
            best = s
    return best


def measured_peak(run, precision):
    for entry in (run or {}).get("extra", {}).get("peaks", []) or []:
        if entry.get("precision") == precision:
            return entry.get("peak", {}).get("flops_per_s")
    return None


def gpt2_goal(run):
    s = best_ok(run, "gpt2", "amp_bf16")
    if s is None:
        return "not checked: no ok GPT-2 amp_bf16 scenario in the standard results"
    tokens = s["metrics"].get("tokens_per_s", 0)
    verdict = "met" if tokens >= GPT2_TOKENS_GOAL else "NOT met"
    return "%s: %.0f tokens/s (%s) vs goal %d" % (verdict, tokens, s["id"], GPT2_TOKENS_GOAL)


def resnet_goal(run, published):
    s = best_ok(run, "resnet50", "amp_bf16")
    if s is None:
        return "not checked: no ok ResNet-50 amp_bf16 scenario in the standard results"
    peak = measured_peak(run, "amp_bf16")
    # Mixed-precision eager PyTorch figures (their GPUs' fp16 and bf16 tensor peaks are equal).
    eager = [e for e in published.get("entries", []) if e.get("workload") == "resnet50"
             and e.get("precision") in ("amp", "bf16", "fp16")
             and "eager" in e.get("framework", "").lower() and e.get("datasheet_peak_tflops")]
    if peak is None or not eager:
        return "not checked: %s" % ("no measured bf16 matmul peak" if peak is None
                                    else "no published eager figure with a datasheet peak")
    # Each published figure scaled by the measured peak over its GPU's datasheet peak.
    scaled = max(e["throughput_per_gpu"] * peak / (e["datasheet_peak_tflops"] * 1e12) for e in eager)
    got = s["metrics"].get("samples_per_s", 0)
    verdict = "met" if got >= (1 - RESNET_WITHIN) * scaled else "NOT met"
    return "%s: %.0f images/s (%s) vs %.0f, the best published eager figure scaled to the measured peak" % (
        verdict, got, s["id"], scaled)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--published", default=os.path.join(here, "..", "data", "published_throughputs.json"))
    args = parser.parse_args()
    published = load(args.published) or {}
    standard = load(os.path.join(args.results, "standard", "results.json"))
    print("goals (docs/gpu-check.md#goals):")
    print("  GPT-2 small >= %d tokens/s, one GPU, eager C++: %s" % (GPT2_TOKENS_GOAL, gpt2_goal(standard)))
    print("  ResNet-50 bf16 within %d%% of published eager PyTorch (scaled): %s" % (
        RESNET_WITHIN * 100, resnet_goal(standard, published)))
    # The paths that had never run on a device: which stage covers each, and whether it left results.
    for path, stage in [("CUPTI records and their overhead", "gpu-profile"), ("Kineto traces with kernels", "seed"),
                        ("memory timeline", "gpu-profile"), ("NVML energy", "seed"),
                        ("NCCL data-parallel, one rank", "ddp-gpu"), ("compute-only standard matrix", "standard")]:
        ran = os.path.exists(os.path.join(args.results, stage, "results.json"))
        print("  %s (stage %s): %s" % (path, stage, "results written" if ran else "not run"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
