#!/bin/bash
# Sequential-gate checks on this VM: A/A and planted 10% sessions of one scenario.
TB=/work/main/build/trainbench
cd /tmp/seq
summ() { python3 - "$1" <<'PY'
import json,sys
c=json.load(open(sys.argv[1]+'/comparison.json'))
for s in c['scenarios']:
    q=s.get('sequential',{})
    print(sys.argv[1], q.get('verdict'), q.get('end'), 'rounds', q.get('rounds'), 'measured', q.get('measured'), 'dropped', q.get('dropped'), 'ratio %.3f [%.3f, %.3f]'%(q.get('ratio',0),q.get('low',0),q.get('high',0)), 'noise %.1f%%'%q.get('noise_pct',0))
PY
}
echo "start $(date +%T)"
s=$(date +%s); $TB ab long.json --old $TB --new $TB --out long-aa --fail-on-regression 5 --max-rounds 12 > long-aa.log 2>&1; echo "long-aa rc=$? $(( $(date +%s)-s )) s"; summ long-aa
for i in 1 2 3 4 5 6; do s=$(date +%s); $TB ab one.json --old $TB --new $TB --out aa$i --fail-on-regression 5 > aa$i.log 2>&1; echo "aa$i rc=$? $(( $(date +%s)-s )) s"; summ aa$i; done
for i in 1 2 3 4 5; do s=$(date +%s); $TB ab one.json --old $TB --new $TB --new-set test_delay_ms=0.43 --out p$i --fail-on-regression 5 > p$i.log 2>&1; echo "p$i rc=$? $(( $(date +%s)-s )) s"; summ p$i; done
echo "end $(date +%T)"
