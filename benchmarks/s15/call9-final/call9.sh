#!/usr/bin/env bash
# Session 15, call 9: the final build (DeviceClock::queue_tick shared, Setup::centring): checks and the paper's benchmark end to end.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
N=.gpu30/solver; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/device.txt
$N check euler > $R/check-euler.txt 2>&1; echo "check euler rc $?" | tee -a $R/final.txt
$N check shallow-water > $R/check-swe.txt 2>&1; echo "check shallow-water rc $?" | tee -a $R/final.txt
$N cases euler-riemann-2d > $W/r2d.toml
for lab in exact fast; do
  extra=(); [ $lab = fast ] && extra=(--set 'run.math="fast"')
  for rep in 1 2 3; do
    /usr/bin/time -f "%e" -o $W/t $N run $W/r2d.toml --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' "${extra[@]}" -o $W/r2d-$lab-$rep >$W/err 2>&1 || { echo "run failed $lab"; tail -3 $W/err; }
    python3 -c "
import json; d=json.load(open('$W/r2d-$lab-$rep/summary.json')); t=d.get('timing',{})
print('r2d %-5s rep %d wall %s s  steps %d  stepping %.4f  startup %.3f setup %.3f output %.3f  cells %d' % ('$lab', $rep, open('$W/t').read().strip(), d['steps'], t.get('stepping',-1), t.get('startup',-1), t.get('setup',-1), t.get('output',-1), d['cells']))" | tee -a $R/final.txt
  done
done
$N bench euler --only "riemann-2d hllc" --sizes 1000 --precision f32 --steps 20 --reps 3 --set 'run.math="fast"' 2>&1 | grep "^euler" | tee -a $R/final.txt
$N bench shallow-water --sizes 1000 --precision f32 --steps 20 --reps 3 2>&1 | grep "^shallow" | tee -a $R/final.txt
grep FAIL $R/check-*.txt | head -5
cat $R/final.txt
