#!/usr/bin/env bash
# Session 15, call 6: ours beside the peers of call 5 (same machine kind): RT 3D PLM + RK3 at
# 256^3 and 512^3 f32 (HLL and HLLC, exact and fast), the square dam break TRITON ran (1000^2 over
# 10 m, 60 s), the Rayleigh-Taylor growth with exact and fast math, and check euler (the sweep
# fills only its axis's ghosts).
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
N=.gpu30/solver; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/device.txt
bench() { local l=$1; shift; $N bench "$@" 2>&1 | grep -E "^(euler|shallow)" | sed "s/^/$l /" | tee -a $R/ours.txt; }
for rs in hll hllc; do
  bench exact euler --only "rt-3d plm-rk3 hll" --sizes 256,512 --precision f32 --steps 20 --reps 2 --set "euler.riemann=\"$rs\""
  bench fast euler --only "rt-3d plm-rk3 hll" --sizes 256,512 --precision f32 --steps 20 --reps 2 --set "euler.riemann=\"$rs\"" --set 'run.math="fast"'
done
bench exact euler --only "riemann-2d hllc" --sizes 1000 --precision f32 --steps 20 --reps 3
bench fast euler --only "riemann-2d hllc" --sizes 1000 --precision f32 --steps 20 --reps 3 --set 'run.math="fast"'
$N cases swe-dam-break-wet > $W/dw.toml
$N cases swe-dam-break-dry > $W/dd.toml
for c in dw dd; do for p in f64 f32; do
  $N run $W/$c.toml --backend cuda -q --set run.precision=$p --set 'grid.dims=[1000,1000,1]' --set 'grid.extent=[10.0,10.0,1.0]' \
    --set time.end_time=60 -o $W/$c-$p > $W/err 2>&1 || { echo "$c $p failed"; tail -3 $W/err; }
  python3 -c "
import json; d=json.load(open('$W/$c-$p/summary.json')); t=d.get('timing',{})
print('ours %s 1000^2 10 m 60 s %s: steps %d  stepping %.3f s  %.3e s/step  %.3e cell-updates/s' % ('$c', '$p', d['steps'], t['stepping'], t['stepping']/d['steps'], 1e6*d['steps']/t['stepping']))" | tee -a $R/ours.txt
done; done
OUT=$R bash .gpu30/rt_fast.sh
$N check euler > $R/check-euler.txt 2>&1; echo "check euler rc $?" | tee -a $R/ours.txt
grep FAIL $R/check-euler.txt | head -5
echo "== summary"; cat $R/ours.txt $R/rt-growth.txt
