#!/usr/bin/env bash
# scripts/device-check.sh as a dry run (no device here, or DEVICE_CHECK_DRY_RUN=1): every stage
# says it is skipped and what it would run, the goals are "not checked", exit 0; and the goals
# script on the H200 session's real results (results/reference/gpu-h200) states each goal's verdict.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
OUT=$out DEVICE_CHECK_DRY_RUN=1 TRAINBENCH_BINARY=${TRAINBENCH_BINARY:-$root/build/trainbench} \
  bash "$root/scripts/device-check.sh" > "$out/console.txt" 2>&1 || fail "dry run exited $?: $(tail -5 "$out/console.txt")"
for stage in seed gpu-profile capacity ddp-gpu field standard bench_harness_overhead; do
  grep -q "] $stage (limit [0-9]*s): skipped (DEVICE_CHECK_DRY_RUN is set); would run: " "$out/summary.txt" ||
    fail "stage $stage did not say it was skipped"
done
grep -q "GPT-2 small >= 375000 tokens/s, one GPU, eager C++: not checked" "$out/summary.txt" || fail "GPT-2 goal line"
grep -q "done (dry run)" "$out/summary.txt" || fail "no end line"
goals=$(python3 "$root/scripts/device-goals.py" "$root/results/reference/gpu-h200") || fail "device-goals.py exited $?"
echo "$goals" | grep -q "GPT-2 small .*: NOT met: 218606 tokens/s" || fail "GPT-2 verdict on the H200 results: $goals"
echo "$goals" | grep -q "ResNet-50 bf16 .*: NOT met: 841 images/s" || fail "ResNet-50 verdict on the H200 results: $goals"
echo "ok: dry run skipped every stage; goals on the H200 results stated"
