#!/usr/bin/env bash
# The GPU check, run on the device machine from the repository root (see README "GPU check"):
#   1. builds trainbench against that machine's torch (python3), with the carried .debs,
#   2. runs every test (the GPU tests run there instead of skipping),
#   3. runs scenarios/seed.json and scenarios/gpu-profile.json (CUPTI) on the GPU,
#   4. runs the capacity search (largest / fastest batch, fp32 and amp_bf16, MFU),
#   5. measures the harness overhead benchmark,
#   6. runs data-parallel world size 1 with and without DDP's reducer on NCCL (scenarios/ddp-cpu.json
#      on the GPU: world size 2 needs a second GPU and is skipped with the reason),
#   7. runs the optimisation axes (scenarios/field.json: channels_last, pinned memory, fused
#      optimizers, cuDNN autotuning, CUDA graphs) and the standard workloads (scenarios/standard.json:
#      ResNet-50, GPT-2 small),
# and writes everything under $OUT (at most 8 files come back: one tarball plus summaries).
# Prepare here first: scripts/fetch-device-debs.sh; then call the device tool with
#   command: "bash scripts/device-check.sh"   carry: [".device"]
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-$ROOT/device-out}
mkdir -p "$OUT"
cd "$ROOT"
log() { echo "[device-check $(date +%T)] $*" | tee -a "$OUT/summary.txt"; }

DEV=$ROOT/.device/root
mkdir -p "$DEV"
for deb in .device/debs/*.deb; do dpkg -x "$deb" "$DEV"; done
export TRAINBENCH_PYTHON=${TRAINBENCH_PYTHON:-python3}
export TRAINBENCH_SKIP_APT=1
export TRAINBENCH_BUILD=$ROOT/build-device
export TRAINBENCH_JOBS=$(nproc)
export TRAINBENCH_EXTRA_PREFIX="$DEV/usr"
export TRAINBENCH_CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Release -DCMAKE_INCLUDE_PATH=$DEV/usr/include -DCMAKE_LIBRARY_PATH=$DEV/usr/lib/x86_64-linux-gnu"
export LD_LIBRARY_PATH="$DEV/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TRAINBENCH_CHARTJS="$DEV/usr/share/javascript/chart.js/chart.min.js"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee -a "$OUT/summary.txt"
"$TRAINBENCH_PYTHON" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.is_available())' | tee -a "$OUT/summary.txt"

log "build"
source scripts/setup.sh
if ! tb_configure_and_build > "$OUT/build.log" 2>&1; then
  log "BUILD FAILED"; tail -50 "$OUT/build.log"; exit 1
fi
BIN=$TRAINBENCH_BUILD/trainbench

log "tests"
(cd "$TRAINBENCH_BUILD" && ctest -j 8 --output-on-failure --timeout 600 > "$OUT/ctest.log" 2>&1)
tail -15 "$OUT/ctest.log" | tee -a "$OUT/summary.txt"

RES=$ROOT/device-results
rm -rf "$RES"; mkdir -p "$RES"
log "seed matrix on the GPU"
"$BIN" run scenarios/seed.json --out "$RES/seed" --no-history > "$RES/seed.console.txt" 2>&1
tail -25 "$RES/seed.console.txt" | tee -a "$OUT/summary.txt"

log "CUPTI profiling matrix"
"$BIN" run scenarios/gpu-profile.json --out "$RES/gpu-profile" --no-history > "$RES/gpu-profile.console.txt" 2>&1
tail -12 "$RES/gpu-profile.console.txt" | tee -a "$OUT/summary.txt"

log "capacity search"
"$BIN" capacity scenarios/capacity.json --out "$RES/capacity" \
  --set 'dataset_options.samples=32768' --set 'capacity.max_batch=32768' > "$RES/capacity.console.txt" 2>&1
tail -20 "$RES/capacity.console.txt" | tee -a "$OUT/summary.txt"

log "data-parallel: world size 1 with and without the reducer (NCCL)"
"$BIN" run scenarios/ddp-cpu.json --out "$RES/ddp-gpu" --no-history --set device=cuda \
  --set 'steps.time_budget_s=6' > "$RES/ddp-gpu.console.txt" 2>&1
tail -15 "$RES/ddp-gpu.console.txt" | tee -a "$OUT/summary.txt"

log "optimisation axes (field.json)"
"$BIN" run scenarios/field.json --out "$RES/field" --no-history --set 'steps.time_budget_s=3' \
  > "$RES/field.console.txt" 2>&1
tail -45 "$RES/field.console.txt" | tee -a "$OUT/summary.txt"

log "standard workloads (standard.json)"
# Bounded for the device budget: 24 scenarios at a few seconds each.
"$BIN" run scenarios/standard.json --out "$RES/standard" --no-history --set 'steps.time_budget_s=4' \
  --set 'steps.rounds=2' > "$RES/standard.console.txt" 2>&1
tail -20 "$RES/standard.console.txt" | tee -a "$OUT/summary.txt"

log "harness overhead benchmark"
if [ -x "$TRAINBENCH_BUILD/bench_harness_overhead" ]; then
  "$TRAINBENCH_BUILD/bench_harness_overhead" --benchmark_repetitions=5 \
    --benchmark_report_aggregates_only=true > "$RES/bench_harness_overhead.txt" 2>&1
  tail -8 "$RES/bench_harness_overhead.txt" | tee -a "$OUT/summary.txt"
fi

# Kineto traces are large on a GPU: keep the first two (host traces are bounded by the window).
ls "$RES"/seed/traces/*.kineto.json 2>/dev/null | tail -n +3 | xargs -r rm -f
tar -C "$RES" -czf "$OUT/device-results.tar.gz" .
cp "$RES/seed/results.json" "$OUT/seed-results.json" 2>/dev/null
cp "$RES/gpu-profile/results.json" "$OUT/gpu-profile-results.json" 2>/dev/null
cp "$RES/capacity/results.json" "$OUT/capacity-results.json" 2>/dev/null
cp "$RES/ddp-gpu/results.json" "$OUT/ddp-gpu-results.json" 2>/dev/null
# field/ and standard/ results travel in the tarball: at most 8 files come back.
log "done"
