#!/bin/bash
# 10 A/A + 2 planted-slowdown sessions of scenarios/quick.json with trainbench ab, after the
# one-schedule redesign (issue 27), as cpu-quick-ab-10/series.sh measured them before it.
# Usage: series.sh TRAINBENCH_BINARY OUT
B=${1:?binary}
OUT=${2:?out}
cd "$(dirname "$0")/../../.."
mkdir -p "$OUT"
run() { # name, extra args
  local s=$(date +%s)
  "$B" ab scenarios/quick.json --old "$B" --new "$B" --out "$OUT/$1" --fail-on-regression 5 "${@:2}" > "$OUT/$1.txt" 2>&1
  echo "$1 rc=$? wall=$(( $(date +%s) - s ))s $(date +%H:%M:%S) load=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/summary.txt"
}
run aa1; run aa2; run slow1 --new-set test_delay_ms=2; run aa3; run aa4; run aa5; run aa6
run slow2 --new-set test_delay_ms=2; run aa7; run aa8; run aa9; run aa10
echo done >> "$OUT/summary.txt"
