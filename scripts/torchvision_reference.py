#!/usr/bin/env python3
"""Prints torchvision's ResNet-50 as trainbench's tests compare it: every named parameter's shape,
the parameter count, and the forward FLOPs of one 224x224 image counted by PyTorch's own
torch.utils.flop_counter.FlopCounterMode (2 FLOPs per multiply-add, convolutions and matmuls).

    python scripts/torchvision_reference.py > resnet50.json

tests/fixtures/reference/resnet50_torchvision.json is this output, recorded with torchvision
0.26.0 and torch 2.11.0; tests/training/torch/test_standard_models.cpp compares the native model
with it, and with a fresh run of this script when torchvision is importable.
"""
import json
import sys

import torch
import torchvision
from torch.utils.flop_counter import FlopCounterMode


def main() -> int:
    model = torchvision.models.resnet50()  # random weights, 1000 classes: nothing is downloaded
    model.eval()
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        model(torch.zeros(1, 3, 224, 224))
    shapes = {name: list(p.shape) for name, p in model.named_parameters()}
    head = {
        "source": f"torchvision {torchvision.__version__} models.resnet50(), torch {torch.__version__}",
        "parameters": sum(p.numel() for p in model.parameters()),
        "forward_flops_224": counter.get_total_flops(),
    }
    # One parameter a line: the recorded file reads (and diffs) like the model.
    lines = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in head.items()]
    lines.append('  "shapes": {\n' + ",\n".join(
        f"    {json.dumps(name)}: {json.dumps(shape)}" for name, shape in shapes.items()) + "\n  }")
    print("{\n" + ",\n".join(lines) + "\n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
