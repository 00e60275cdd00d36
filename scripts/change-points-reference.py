#!/usr/bin/env python3
"""Writes the cross-check fixture for trainbench's change-point detection.

Runs MongoDB's E-Divisive implementation (the PyPI package signal-processing-algorithms, which
Apache Otava/Hunter also builds on) on seeded series of run-to-run step times: A/A stretches, one
step of 5-20% and two steps, in 2% noise. tests/measure/test_change_points.cpp runs
trainbench's own implementation (trainbench/measure/change_points.cpp) on the same series and
checks that the two agree.

    python -m venv /tmp/spa && /tmp/spa/bin/pip install signal-processing-algorithms==2.1.6
    /tmp/spa/bin/python scripts/change-points-reference.py > tests/fixtures/change_points/e_divisive_reference.json
"""
import json
import sys

import numpy as np
from signal_processing_algorithms.energy_statistics import energy_statistics


def series_for(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 81))
    kind = ["none", "one", "one", "two"][seed % 4]
    level = np.full(n, 10.0)
    steps = []
    if kind in ("one", "two"):
        at = int(rng.integers(8, n - 8))
        factor = float(rng.choice([0.85, 0.92, 1.05, 1.08, 1.1, 1.2]))
        level[at:] *= factor
        steps.append(at)
    if kind == "two":
        at2 = int(rng.integers(8, n - 8))
        if abs(at2 - steps[0]) >= 8:
            level[at2:] *= 1.1
            steps.append(at2)
    values = level * (1 + 0.02 * rng.standard_normal(n))
    np.random.seed(seed)  # the package's permutations use numpy's global generator
    found = energy_statistics.e_divisive(values, pvalue=0.05, permutations=199)
    return {"seed": seed, "planted": sorted(steps), "series": [round(float(v), 6) for v in values],
            "reference": sorted(int(i) for i in found)}


def main() -> None:
    json.dump({"generator": "scripts/change-points-reference.py",
               "reference": "signal-processing-algorithms 2.1.6, e_divisive(pvalue=0.05, permutations=199)",
               "cases": [series_for(seed) for seed in range(60)]}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
