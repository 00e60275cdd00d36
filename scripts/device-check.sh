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
# Prepare here first: scripts/fetch-device-debs.sh, and scripts/device-pack.sh after a build of
# this commit (then nothing is built there: the lease is 15 minutes); call the device tool with
#   command: "bash scripts/device-check.sh"   carry: [".device"]
# Every stage has its own time limit (interrupted with SIGINT, so its results.json is kept) and
# the results are packed after each stage, so a run cut short still brings back what it measured.
#
# Without a CUDA device (no nvidia-smi, or torch sees no GPU), or with DEVICE_CHECK_DRY_RUN=1, it
# is a dry run: nothing is built or measured, every stage says it is skipped and why, and the
# summary says which goal each stage would check; exit 0. The test suite runs it that way
# (ctest device_check_dry_run), so a change that breaks the script shows before a device is lent.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-$ROOT/device-out}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)  # absolute: the check runs from the repository root
cd "$ROOT"
log() { echo "[device-check $(date +%T)] $*" | tee -a "$OUT/summary.txt"; }

DRY_REASON=""
if [ -n "${DEVICE_CHECK_DRY_RUN:-}" ]; then
  DRY_REASON="DEVICE_CHECK_DRY_RUN is set"
elif ! nvidia-smi -L > /dev/null 2>&1; then
  DRY_REASON="no CUDA device (nvidia-smi finds no GPU)"
fi
if [ -n "$DRY_REASON" ]; then
  log "dry run: $DRY_REASON; every stage is skipped with what it would run"
  RES=$OUT/dry-run
  mkdir -p "$RES"
  BIN=${TRAINBENCH_BINARY:-$ROOT/build/trainbench}
  stage() {  # stage NAME SECONDS COMMAND...: in a dry run, says what it would run and why not
    local name=$1 limit=$2; shift 2
    log "$name (limit ${limit}s): skipped ($DRY_REASON); would run: $*"
  }
fi

DEV=$ROOT/.device/root
if [ -z "$DRY_REASON" ]; then
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

# Builds stay where the test binaries expect them (TB_SOURCE_DIR and the RUNPATH name /work/main).
if [ ! -e /work/main ]; then mkdir -p /work && ln -s "$ROOT" /work/main; fi
RES=$ROOT/device-results
rm -rf "$RES"; mkdir -p "$RES"
pack() {  # results so far -> $OUT (a stage cut short still comes back)
  tar -C "$RES" --exclude='*.pt.trace.json' -czf "$OUT/device-results.tar.gz" . 2>/dev/null
  for m in seed gpu-profile capacity ddp-gpu; do
    [ -f "$RES/$m/results.json" ] && cp "$RES/$m/results.json" "$OUT/$m-results.json"
  done
  return 0
}
stage() {  # stage NAME SECONDS COMMAND...: bounded, interrupted like Ctrl-C so results are kept
  local name=$1 limit=$(( $2 * ${DEVICE_CHECK_LIMIT_PERCENT:-100} / 100 )); shift 2
  log "$name (limit ${limit}s)"
  timeout -s INT -k 15 "$limit" "$@" > "$RES/$name.console.txt" 2>&1
  log "$name: exit $?"
  tail -30 "$RES/$name.console.txt" >> "$OUT/summary.txt"
  pack
}

if [ -x .device/bin/trainbench ]; then
  log "prebuilt binaries of $(cat .device/bin/COMMIT 2>/dev/null) (scripts/device-pack.sh)"
  [ -e "$ROOT/build" ] || ln -s "$ROOT/.device/bin" "$ROOT/build"
  TORCH_LIB=$("$TRAINBENCH_PYTHON" -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
  NV_LIB=$("$TRAINBENCH_PYTHON" -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13", "lib"))' 2>/dev/null)
  export LD_LIBRARY_PATH="$ROOT/.device/bin:$TORCH_LIB:${NV_LIB:+$NV_LIB:}$LD_LIBRARY_PATH"
  TRAINBENCH_BUILD=$ROOT/.device/bin
  BIN=$TRAINBENCH_BUILD/trainbench
  "$BIN" --version 2>&1 | tee -a "$OUT/summary.txt"
  for t in "$TRAINBENCH_BUILD"/test_*; do
    (cd "$TRAINBENCH_BUILD" && timeout -k 5 120 "$t" --gtest_brief=1) > "$RES/$(basename "$t").log" 2>&1
    echo "$(basename "$t"): exit $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$RES/$(basename "$t").log" | tr '\n' ' ')" \
      | tee -a "$OUT/summary.txt"
  done
else
  log "build"
  source scripts/setup.sh
  if ! tb_configure_and_build > "$OUT/build.log" 2>&1; then
    log "BUILD FAILED"; tail -50 "$OUT/build.log"; exit 1
  fi
  BIN=$TRAINBENCH_BUILD/trainbench
  log "tests"
  (cd "$TRAINBENCH_BUILD" && ctest -j 8 --output-on-failure --timeout 600 > "$RES/ctest.log" 2>&1)
  tail -15 "$RES/ctest.log" | tee -a "$OUT/summary.txt"
fi
pack
fi  # not a dry run

stage seed 110 "$BIN" run scenarios/seed.json --out "$RES/seed" --no-history --set 'steps.time_budget_s=2'
stage gpu-profile 60 "$BIN" run scenarios/gpu-profile.json --out "$RES/gpu-profile" --no-history \
  --set 'steps.time_budget_s=2'
stage capacity 90 "$BIN" capacity scenarios/capacity.json --out "$RES/capacity" \
  --set 'dataset_options.samples=32768' --set 'capacity.max_batch=32768'
# World size 1 with and without DDP's reducer on NCCL; world size 2 needs a second GPU (skipped).
stage ddp-gpu 35 "$BIN" run scenarios/ddp-cpu.json --out "$RES/ddp-gpu" --no-history --set device=cuda \
  --set 'steps.time_budget_s=3' --set 'steps.rounds=3'
stage field 90 "$BIN" run scenarios/field.json --out "$RES/field" --no-history \
  --set 'steps.time_budget_s=1.5' --set 'steps.rounds=3'
# The standard workloads, compute only (the matrix's default: batches resident on the GPU), at
# the published batch sizes the goals name (docs/gpu-check.md#goals).
stage standard 100 "$BIN" run scenarios/standard.json --out "$RES/standard" --no-history \
  --set 'steps.time_budget_s=2' --set 'steps.rounds=2' --set 'axes.precision=["amp_bf16"]' --set 'axes.batch=[32]'
if [ -n "$DRY_REASON" ]; then
  stage bench_harness_overhead 75 bench_harness_overhead --benchmark_repetitions=3
  python3 scripts/device-goals.py "$RES" | tee -a "$OUT/summary.txt"
  log "done (dry run)"
  exit 0
fi
if [ -x "$TRAINBENCH_BUILD/bench_harness_overhead" ]; then
  # The harness's own cost on the GPU (CUDA events, loss handles, GradScaler at fp16) and on this
  # host's CPU, at micro-batch 64 and accumulation 1 and 4: three repetitions, each row shown.
  stage bench_harness_overhead 75 "$TRAINBENCH_BUILD/bench_harness_overhead" --benchmark_repetitions=3 \
    --benchmark_filter='Part|PairedOverheadCuda|PairedOverhead/batch:64|PairedAA'
fi
# Kineto traces are large on a GPU: the first two travel.
mkdir -p "$RES/kineto"; ls "$RES"/seed/traces/*.pt.trace.json 2>/dev/null | head -2 | xargs -r -I{} cp {} "$RES/kineto/"
tar -C "$RES" -czf "$OUT/device-results.tar.gz" --exclude='seed/traces/*.pt.trace.json' .
python3 scripts/device-goals.py "$RES" | tee -a "$OUT/summary.txt"
log "done"
