#!/bin/bash
# 20 A/A and 10 planted (~10%) sequential sessions: one MLP scenario, 0.1 s segments,
# --max-rounds 100, a fresh worker pair every 10 rounds, gate 5%.
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
for i in $(seq 1 20); do
  s=$(date +%s); $TB ab short.json --old $TB --new $TB --out c-aa$i --fail-on-regression 5 --max-rounds 100 --rounds-per-process 10 > c-aa$i.log 2>&1; echo "c-aa$i rc=$? $(( $(date +%s)-s )) s"; summ c-aa$i
  if [ $i -le 10 ]; then
  s=$(date +%s); $TB ab short.json --old $TB --new $TB --new-set test_delay_ms=0.12 --out c-p$i --fail-on-regression 5 --max-rounds 100 --rounds-per-process 10 > c-p$i.log 2>&1; echo "c-p$i rc=$? $(( $(date +%s)-s )) s"; summ c-p$i
  fi
done
echo "end $(date +%T)"
