#!/bin/bash
# 10 A/A + 2 planted-slowdown sessions of scenarios/quick.json with trainbench ab (fresh worker pair every round).
cd /work/main
source scripts/setup.sh >/dev/null 2>&1; set +euo pipefail
OUT=/tmp/abseries3
mkdir -p $OUT
B=build/trainbench
run() { # name, extra args
  local s=$(date +%s)
  $B ab scenarios/quick.json --old $B --new $B --out $OUT/$1 --fail-on-regression 5 "${@:2}" > $OUT/$1.txt 2>&1
  echo "$1 rc=$? wall=$(( $(date +%s) - s ))s $(date +%H:%M:%S)" >> $OUT/summary.txt
}
run aa2; run slow1 --new-set test_delay_ms=2; run aa3; run aa4; run aa5; run aa6; run slow2 --new-set test_delay_ms=2; run aa7; run aa8; run aa9; run aa10
echo done >> $OUT/summary.txt
