#!/usr/bin/env bash
# The planted-slowdown check of `trainbench history --changes` on real runs of this machine:
# RUNS recorded runs of two small matrices, one "commit" each (--commit c00, c01, ...). From run
# FROM on, drift-slowed.json's steps wait DELAY ms longer for each batch (test_delay_ms, as a
# slower input pipeline would: about +8% on its two scenarios at 0.2 ms); drift-steady.json never
# changes (the A/A series). Whatever the machine drifts meanwhile stays in. Then lists the
# change points and the gate's verdict.
#
#   scripts/history-check/run.sh OUT [RUNS=60] [FROM=40] [DELAY=0.2]
#
# About 10 s per run on a 2-core CPU. OUT gets history.sqlite, changes.txt (history --changes),
# gate.txt (--fail-on-change 5) and the runs' results folders.
set -euo pipefail
out=${1:?usage: scripts/history-check/run.sh OUT [RUNS] [FROM] [DELAY]}
runs=${2:-60}
from=${3:-40}
delay=${4:-0.2}
here=$(cd "$(dirname "$0")" && pwd)
tb=${TRAINBENCH:-$here/../trainbench}
mkdir -p "$out"
db=$out/history.sqlite
for ((i = 0; i < runs; i++)); do
  commit=$(printf 'c%02d' "$i")
  for m in drift-slowed drift-steady; do
    planted=()
    [[ $m == drift-slowed ]] && ((i >= from)) && planted=(--set "test_delay_ms=$delay")
    "$tb" run "$here/$m.json" --out "$out/runs/$commit-$m" --force --quiet --format none \
      --history "$db" --commit "$commit" "${planted[@]}" >/dev/null
  done
  echo "run $((i + 1))/$runs ($commit) recorded"
done
"$tb" history --history "$db" --changes | tee "$out/changes.txt"
set +e
"$tb" history --history "$db" --changes --fail-on-change 5 >"$out/gate.txt"
echo "gate exit code: $?" | tee -a "$out/gate.txt"
