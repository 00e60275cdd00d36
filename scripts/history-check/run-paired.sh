#!/usr/bin/env bash
# The drift-proof CI mode (`ab --history` against a pinned build) checked on real sessions of this
# machine: RUNS `trainbench ab` sessions of drift-slowed.json, one "commit" each (--commit c00,
# c01, ...), OLD and NEW the same build (OLD plays the pinned reference), NEW's steps waiting
# DELAY ms longer for each batch from session FROM on (test_delay_ms: a slower input pipeline).
# Each session records NEW with its paired ratios NEW/OLD. Then the change points of the two
# series the same sessions give: NEW's absolute step times (what separate runs would record, the
# machine's drift included) and the paired ratios (drift cancelled round by round).
#
#   scripts/history-check/run-paired.sh OUT [RUNS=30] [FROM=20] [DELAY=0.2]
#
# About 20 s per session on a 2-core CPU. OUT gets history.sqlite, changes-step-time.txt,
# changes-paired.txt, gate-step-time.txt and gate-paired.txt (--fail-on-change 5), sessions.txt
# (each session's exit code and wall time) and the sessions' folders.
set -uo pipefail
out=${1:?usage: scripts/history-check/run-paired.sh OUT [RUNS] [FROM] [DELAY]}
runs=${2:-30}
from=${3:-20}
delay=${4:-0.2}
here=$(cd "$(dirname "$0")" && pwd)
# The built binary (scripts/trainbench --version builds it): ab starts it as both workers.
bin=${TRAINBENCH_BINARY:-$here/../../build/trainbench}
mkdir -p "$out/sessions"
db=$out/history.sqlite
for ((i = 0; i < runs; i++)); do
  commit=$(printf 'c%02d' "$i")
  planted=()
  ((i >= from)) && planted=(--new-set "test_delay_ms=$delay")
  start=$(date +%s)
  "$bin" ab "$here/drift-slowed.json" --old "$bin" --new "$bin" --out "$out/sessions/$commit" \
    --history "$db" --commit "$commit" "${planted[@]}" >"$out/sessions/$commit.txt" 2>&1
  echo "$commit rc=$? wall=$(($(date +%s) - start))s" | tee -a "$out/sessions.txt"
done
for metric in step_time paired_ratio; do
  name=${metric/_ratio/}
  name=${name/step_time/step-time}
  "$bin" history --history "$db" --changes --metric "$metric" | tee "$out/changes-$name.txt"
  "$bin" history --history "$db" --changes --metric "$metric" --fail-on-change 5 >"$out/gate-$name.txt"
  echo "gate exit code: $?" | tee -a "$out/gate-$name.txt"
done
