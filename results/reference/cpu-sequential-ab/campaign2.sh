#!/bin/bash
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
for x in "saa1:" "sp1:--new-set test_delay_ms=0.1" "saa2:" "sp2:--new-set test_delay_ms=0.1"; do
  name=${x%%:*}; extra=${x#*:}
  s=$(date +%s); $TB ab short.json --old $TB --new $TB $extra --out $name --fail-on-regression 5 --max-rounds 120 --rounds-per-process 10 > $name.log 2>&1; echo "$name rc=$? $(( $(date +%s)-s )) s"; summ $name
done
