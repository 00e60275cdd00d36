#!/bin/bash
# 5 bisections of make-repo.sh's repository with the default budget and a 5% gate; each names
# the first slower commit or not. Prints per attempt: exit code, named commit, sessions, wall time.
TB=${TB:-/work/main/build/trainbench}
here=$(cd "$(dirname "$0")" && pwd)
work=${WORK:-/tmp/bisect-planted}
rm -rf "$work" && mkdir -p "$work" && cd "$work"
sh "$here/make-repo.sh" repo
echo "planted at: $(git -C repo rev-parse HEAD~3) (c5)"
for a in 1 2 3 4 5; do
  s=$(date +%s)
  $TB bisect HEAD~8 HEAD --repo repo --matrix bench.json --build true --binary "$TB" --fail-on-regression 5 --out b$a > b$a.log 2>&1
  rc=$?
  echo "attempt $a: rc=$rc $(( $(date +%s)-s )) s; $(grep -E '^first slower commit|^step' b$a.log | tr '\n' ';')"
done
