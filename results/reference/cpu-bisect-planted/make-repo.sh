#!/bin/sh
# A repository of 9 commits, c0 .. c8, of one matrix on trainbench's own MLP loop. Every commit
# changes the matrix's description; c5 also widens the hidden layers from 512 to 576 (a realistic
# regression: more FLOPs per step, about +19% step time on a 2-core CPU). Usage: make-repo.sh DIR
set -e
dir=${1:?make-repo.sh DIR}
git init -q "$dir"
cd "$dir"
for i in 0 1 2 3 4 5 6 7 8; do
  hidden=512; if [ "$i" -ge 5 ]; then hidden=576; fi
  cat > bench.json <<JSON
{"name": "planted", "description": "commit c$i", "model": "mlp", "device": "cpu", "seed": 42,
 "dataset_options": {"samples": 2048, "features": 256}, "model_options": {"hidden": $hidden},
 "steps": {"warmup": 5, "min": 20, "max": 2000, "time_budget_s": 0.3, "rounds": 3},
 "axes": {"batch": [64]}}
JSON
  git add bench.json
  git -c user.name=you -c user.email=you@example.org commit -q -m "c$i"
done
