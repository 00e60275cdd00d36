#!/usr/bin/env bash
# Run HERE (not on the GPU machine), after a build of this commit: copies the CLI, its libraries,
# the harness-overhead benchmark and the test binaries that exercise CUDA into .device/bin,
# stripped of debug info so they fit the device tool's 64 MiB carry. The GPU machine has the same
# torch (2.11.0+cu130), so scripts/device-check.sh then runs them there instead of spending
# minutes of a 15-minute lease on a build. Without .device/bin it builds on the device as before.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${TRAINBENCH_BUILD:-$ROOT/build}
BIN=$ROOT/.device/bin
# One test executable per folder (CMakeLists.txt): the folders whose tests exercise CUDA (CUPTI,
# Kineto, GradScaler, precision, peak FLOPs, optimisation settings, multi-tensor optimizers, GPU
# monitor, NVTX, energy, memory timeline, profile pass, trace structure).
GPU_TESTS=(test_profiling_torch test_training_torch test_capacity_torch test_measure test_profiling)
rm -rf "$BIN"; mkdir -p "$BIN"
for f in trainbench bench_harness_overhead "${GPU_TESTS[@]}" "$BUILD"/libtrainbench_*.so; do
  src=$f; [[ $f == /* ]] || src=$BUILD/$f
  [ -e "$src" ] || { echo "device-pack: $src is missing: build it first" >&2; exit 1; }
  strip --strip-debug -o "$BIN/$(basename "$src")" "$src"
done
git -C "$ROOT" rev-parse HEAD > "$BIN/COMMIT"
du -sh "$BIN"
