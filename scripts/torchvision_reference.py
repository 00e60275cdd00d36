#!/usr/bin/env python3
"""Prints a torchvision model as trainbench's tests compare it: every named parameter's shape,
the parameter count, and the forward FLOPs of one 224x224 image counted by PyTorch's own
torch.utils.flop_counter.FlopCounterMode (2 FLOPs per multiply-add; convolutions and matmuls).

    python scripts/torchvision_reference.py resnet50 > resnet50.json
    python scripts/torchvision_reference.py vit_b_16 > vit_b_16.json

The model runs in train mode with the math attention kernel: in eval mode
nn.MultiheadAttention takes a fused path whose matmuls the counter does not see, and the
counter has no formula for the CPU's fused attention kernels either.

tests/fixtures/reference/<model>_torchvision.json is this output, recorded with torchvision
0.26.0 and torch 2.11.0; tests/training/torch/test_standard_models.cpp compares the native
models with it, and with a fresh run of this script when torchvision is importable.
"""
import json
import sys

import torch
import torchvision
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.flop_counter import FlopCounterMode


def main() -> int:
    if len(sys.argv) != 2 or sys.argv[1] not in ("resnet50", "vit_b_16"):
        print("usage: torchvision_reference.py resnet50|vit_b_16", file=sys.stderr)
        return 2
    name = sys.argv[1]
    # Random weights, 1000 classes: nothing is downloaded.
    model = getattr(torchvision.models, name)()
    model.train()
    with FlopCounterMode(display=False) as counter, sdpa_kernel(SDPBackend.MATH):
        model(torch.zeros(1, 3, 224, 224))
    shapes = {n: list(p.shape) for n, p in model.named_parameters()}
    head = {
        "source": f"torchvision {torchvision.__version__} models.{name}(), torch {torch.__version__}",
        "parameters": sum(p.numel() for p in model.parameters()),
        "forward_flops_224": counter.get_total_flops(),
    }
    # One parameter a line: the recorded file reads (and diffs) like the model.
    lines = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in head.items()]
    lines.append('  "shapes": {\n' + ",\n".join(
        f"    {json.dumps(n)}: {json.dumps(shape)}" for n, shape in shapes.items()) + "\n  }")
    print("{\n" + ",\n".join(lines) + "\n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
