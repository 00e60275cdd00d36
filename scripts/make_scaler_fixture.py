#!/usr/bin/env python3
"""Record torch.amp.GradScaler trajectories that tests/training/torch/test_grad_scaler.cpp replays.

Regenerate (from the repository root):
    /root/.cache/trainbench/venv/bin/python scripts/make_scaler_fixture.py \
        > tests/fixtures/grad_scaler_trajectory.json

The committed fixture was recorded with torch 2.11.0 on the CPU (the torch version is also
stored in the JSON). No model is involved: every step sets each parameter's .grad by hand to
scaler.scale(g), exactly what backward() of a scaled loss would leave there, so the C++ side can
reproduce the step bit for bit. Steps with inf / nan gradients are injected to exercise skipping,
backoff and the growth tracker reset.

Non-finite numbers are written as the strings "inf", "-inf" and "nan" (JSON has no literal
for them).
"""
import json
import math
import sys

import torch


def encode(x: float):
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def gradient_for_step(step: int, shape, dtype, poison, param_index: int):
    """Deterministic, non-trivial gradient values; poison = (value, index of the parameter)."""
    numel = 1
    for d in shape:
        numel *= d
    base = torch.arange(numel, dtype=torch.float64).reshape(shape)
    g = torch.sin(base * 0.7 + step * 0.3 + param_index) * (0.5 + 0.1 * step)
    g = g.to(dtype)
    if poison is not None and poison[1] == param_index:
        g.view(-1)[step % numel] = float(poison[0])
    return g


def record(name, options, steps, poison_at, explicit_unscale_at, momentum):
    torch.manual_seed(0)
    # Two float32 parameters and one float64 parameter, so unscaling groups by dtype.
    params = [
        torch.nn.Parameter(torch.linspace(-1.0, 1.0, 6, dtype=torch.float32).reshape(2, 3)),
        torch.nn.Parameter(torch.tensor([0.25, -0.5, 0.75, 1.0], dtype=torch.float32)),
        torch.nn.Parameter(torch.tensor([2.0, -3.0, 0.125], dtype=torch.float64)),
    ]
    initial = [p.detach().clone() for p in params]
    optimizer = torch.optim.SGD(params, lr=0.1, momentum=momentum)
    scaler = torch.amp.GradScaler("cpu", **options)

    records = []
    for step in range(steps):
        poison = poison_at.get(step)
        grads = [gradient_for_step(step, p.shape, p.dtype, poison, i) for i, p in enumerate(params)]
        scale_before = scaler.get_scale()
        optimizer.zero_grad(set_to_none=True)
        for p, g in zip(params, grads):
            p.grad = scaler.scale(g).detach()  # what backward() of scaler.scale(loss) yields
        before = [p.detach().clone() for p in params]
        if step in explicit_unscale_at:
            scaler.unscale_(optimizer)  # e.g. gradient clipping between backward and step
        scaler.step(optimizer)
        scaler.update()
        stepped = any(not torch.equal(b, p.detach()) for b, p in zip(before, params))
        records.append({
            "step": step,
            "grads": [[encode(v) for v in g.reshape(-1).tolist()] for g in grads],
            "explicit_unscale": step in explicit_unscale_at,
            "scale_before": scale_before,
            "stepped": stepped,
            "scale_after_update": scaler.get_scale(),
            "params_after": [p.detach().reshape(-1).tolist() for p in params],
        })

    return {
        "name": name,
        "options": options,
        "optimizer": {"type": "sgd", "lr": 0.1, "momentum": momentum},
        "params_initial": [
            {"shape": list(p.shape), "dtype": str(p.dtype).replace("torch.", ""),
             "values": p.reshape(-1).tolist()} for p in initial
        ],
        "steps": records,
    }


def main():
    fixture = {
        "generator": "scripts/make_scaler_fixture.py",
        "torch_version": torch.__version__,
        "device": "cpu",
        "trajectories": [
            record(
                "growth_interval_3",
                {"init_scale": 1024.0, "growth_factor": 2.0, "backoff_factor": 0.5,
                 "growth_interval": 3, "enabled": True},
                steps=20,
                poison_at={4: ("inf", 0), 9: ("nan", 1), 10: ("-inf", 0), 17: ("inf", 2)},
                explicit_unscale_at={6, 12},
                momentum=0.9,
            ),
            record(
                "odd_factors",
                {"init_scale": 3.0, "growth_factor": 3.0, "backoff_factor": 0.25,
                 "growth_interval": 2, "enabled": True},
                steps=10,
                poison_at={1: ("nan", 0), 5: ("inf", 2)},
                explicit_unscale_at=set(),
                momentum=0.0,
            ),
            record(
                "defaults",
                {},
                steps=5,
                poison_at={2: ("inf", 0)},
                explicit_unscale_at=set(),
                momentum=0.0,
            ),
        ],
    }
    json.dump(fixture, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
