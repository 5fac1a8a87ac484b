#!/usr/bin/env bash
# Session 15, call 10: run.math = "fast" for shallow water: its checks against the CPU, the
# benchmark at 1000^2 and 8000^2 (f32), the paper's week projected from the 1000^2 step.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
N=.gpu30/solver; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/device.txt
$N check shallow-water > $R/check-swe.txt 2>&1; echo "check shallow-water rc $?" | tee -a $R/swe-fast.txt
grep -E "fast|FAIL" $R/check-swe.txt | tee -a $R/swe-fast.txt
for m in exact fast; do
  $N bench shallow-water --sizes 1000,8000 --precision f32 --steps 50 --reps 3 --set "run.math=\"$m\"" 2>&1 | grep "^shallow" | sed "s/^/$m /" | tee -a $R/swe-fast.txt
done
$N cases swe-estuary > $W/est.toml
for m in exact fast; do
  $N run $W/est.toml --backend cuda -q --set run.precision=f32 --set "run.math=\"$m\"" -o $W/est-$m > $W/err 2>&1 || { echo "estuary $m failed"; tail -3 $W/err; }
  python3 -c "
import json; d=json.load(open('$W/est-$m/summary.json')); t=d['timing']
print('estuary week %s f32: steps %d stepping %.2f s; %s' % ('$m', d['steps'], t['stepping'], {k: v for k, v in d.items() if k in ('totals', 'pollutant', 'ledger', 'final_range', 'concentration')}))" | tee -a $R/swe-fast.txt
done
cat $R/swe-fast.txt
