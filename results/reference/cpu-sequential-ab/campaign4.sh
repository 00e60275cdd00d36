#!/bin/bash
# After e3cd638 (balanced pair order, precise test_delay_ms, a fresh worker pair every round as
# the gate requires): 20 A/A and 10 planted sessions, one MLP scenario (~4 ms step), 0.1 s
# segments, the default budget (--max-rounds 100, --time-budget 20m), gate 5%. The plant is
# test_delay_ms=0.4 per micro-batch: 10% of the step.
TB=${TB:-/work/main/build/trainbench}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/seq4 && cd /tmp/seq4 && cp "$here/short.json" .
summ() { python3 - "$1" <<'PY'
import json,sys
c=json.load(open(sys.argv[1]+'/comparison.json'))
for s in c['scenarios']:
    q=s.get('sequential',{})
    print(sys.argv[1], q.get('verdict'), q.get('end'), 'rounds', q.get('rounds'), 'measured', q.get('measured'), 'dropped', q.get('dropped'), 'ratio %.3f [%.3f, %.3f]'%(q.get('ratio',0),q.get('low',0),q.get('high',0)), 'noise %.1f%%'%q.get('noise_pct',0))
PY
}
echo "start $(date +%T)"
for i in $(seq 1 20); do
  s=$(date +%s); $TB ab short.json --old $TB --new $TB --out d-aa$i --fail-on-regression 5 > d-aa$i.log 2>&1; echo "d-aa$i rc=$? $(( $(date +%s)-s )) s"; summ d-aa$i
  if [ $((i % 2)) -eq 0 ]; then
  s=$(date +%s); $TB ab short.json --old $TB --new $TB --new-set test_delay_ms=0.4 --out d-p$i --fail-on-regression 5 > d-p$i.log 2>&1; echo "d-p$i rc=$? $(( $(date +%s)-s )) s"; summ d-p$i
  fi
done
echo "end $(date +%T)"
