#!/usr/bin/env bash
# Session 15, call 4: launch bounds (4 blocks of the f32 sweep, 3 of the f32 march, 2 of the f64
# march) and the scheme compiled in, against call 3's binary (c3), same call.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
N=.gpu30/solver; C=.gpu30/solver-c3; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/device.txt
bench() { local l=$1 b=$2; shift 2
  $b bench euler --steps 20 --reps 3 "$@" 2>&1 | grep -E "^euler" | sed "s/^/$l /" | tee -a $R/bench.txt; }
F='run.math="fast"'
for only in "riemann-2d hllc" "cube hllc" "rt-3d plm-rk3 hll"; do
  sz=512; [ "$only" = "riemann-2d hllc" ] && sz=1000
  bench c3 $C --only "$only" --sizes $sz --precision f32 --set "$F"
  bench new $N --only "$only" --sizes $sz --precision f32 --set "$F"
  CFD_EULER_GENERIC=1 bench generic $N --only "$only" --sizes $sz --precision f32 --set "$F"
  bench c3-exact $C --only "$only" --sizes $sz --precision f32
  bench new-exact $N --only "$only" --sizes $sz --precision f32
done
bench c3-f64 $C --only "rt-3d plm-rk3 hll" --sizes 256 --precision f64
bench new-f64 $N --only "rt-3d plm-rk3 hll" --sizes 256 --precision f64
bench c3-f64 $C --only "cube hllc" --sizes 256 --precision f64
bench new-f64 $N --only "cube hllc" --sizes 256 --precision f64
echo "== r2d end to end (f32 hllc)"
$N cases euler-riemann-2d > $W/r2d.toml
for lab in exact fast; do
  extra=(); [ $lab = fast ] && extra=(--set "$F")
  for rep in 1 2 3; do
    /usr/bin/time -f "%e" -o $W/t $N run $W/r2d.toml --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' "${extra[@]}" -o $W/r2d-$lab-$rep >$W/err 2>&1 || { echo "run failed $lab"; tail -3 $W/err; }
    python3 -c "
import json; d=json.load(open('$W/r2d-$lab-$rep/summary.json')); t=d.get('timing',{})
print('r2d %-5s rep %d wall %s s  steps %d  stepping %.4f  startup %.3f setup %.3f output %.3f' % ('$lab', $rep, open('$W/t').read().strip(), d['steps'], t.get('stepping',-1), t.get('startup',-1), t.get('setup',-1), t.get('output',-1)))" | tee -a $R/r2d.txt
  done
done
echo "== checks"
$N check euler > $R/check-euler.txt 2>&1; echo "check euler rc $?" | tee -a $R/r2d.txt
grep -c PASS $R/check-euler.txt; grep FAIL $R/check-euler.txt | head
echo "== summary"; awk '{print $1, $3, $4, $5, $6, $7, $8, $9}' $R/bench.txt; cat $R/r2d.txt
