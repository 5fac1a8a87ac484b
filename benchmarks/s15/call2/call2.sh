#!/usr/bin/env bash
# Session 15, call 2: the device clock for Euler (batches of steps), the shared clock.cuh (SWE).
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
N=.gpu30/solver; B=.gpu30/solver-base; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/device.txt
bench() { local l=$1 b=$2 fam=$3; shift 3
  $b bench $fam --precision f32 --steps 20 --reps 3 "$@" 2>&1 | grep -E "^(euler|shallow)" | sed "s/^/$l /" | tee -a $R/bench.txt; }
bench base $B euler --only "riemann-2d hllc" --sizes 1000
bench new $N euler --only "riemann-2d hllc" --sizes 1000
bench fast $N euler --only "riemann-2d hllc" --sizes 1000 --set 'run.math="fast"'
CFD_EULER_SWEEP=32,8 bench fast-32x8 $N euler --only "riemann-2d hllc" --sizes 1000 --set 'run.math="fast"'
CFD_EULER_SWEEP=32,8 bench fast-32x8 $N euler --only "cube hllc" --sizes 512 --set 'run.math="fast"'
CFD_EULER_SWEEP=64,4 bench fast-64x4 $N euler --only "cube hllc" --sizes 512 --set 'run.math="fast"'
bench fast $N euler --only "cube hllc" --sizes 512 --set 'run.math="fast"'
bench fast $N euler --only "rt-3d plm-rk3 hll" --sizes 512 --set 'run.math="fast"'
bench base $B shallow-water --sizes 1000
bench new $N shallow-water --sizes 1000
echo "== r2d end to end (f32 hllc)"
$N cases euler-riemann-2d > $W/r2d.toml
for lab in base new fast; do
  b=$N; [ $lab = base ] && b=$B; extra=(); [ $lab = fast ] && extra=(--set 'run.math="fast"')
  for rep in 1 2 3; do
    /usr/bin/time -f "%e" -o $W/t $b run $W/r2d.toml --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' "${extra[@]}" -o $W/r2d-$lab-$rep >$W/err 2>&1 || { echo "run failed $lab"; tail -3 $W/err; }
    python3 -c "
import json; d=json.load(open('$W/r2d-$lab-$rep/summary.json')); t=d.get('timing',{})
print('r2d %-5s rep %d wall %s s  steps %d  stepping %.4f  startup %.3f setup %.3f output %.3f' % ('$lab', $rep, open('$W/t').read().strip(), d['steps'], t.get('stepping',-1), t.get('startup',-1), t.get('setup',-1), t.get('output',-1)))" | tee -a $R/r2d.txt
  done
done
echo "== same answers: base vs new (exact), whole runs"
$N cases euler-rt-3d > $W/rt3.toml
$N cases swe-thacker > $W/th.toml
for b in B N; do eval bin=\$$b
  $bin run $W/rt3.toml --backend cuda -q --set run.precision=f32 --set "grid.dims=[48,40,120]" --set time.end_time=1.0 -o $W/rt3-$b >/dev/null 2>&1 || echo "rt3 $b failed"
  $bin run $W/th.toml --backend cuda -q -o $W/th-$b >/dev/null 2>&1 || echo "thacker $b failed"
done
python3 - <<PY | tee -a $R/same.txt
import sys, json
sys.path.insert(0, 'scripts')
import vti, numpy as np
def cmp(tag, a, b, names):
    fa, fb = list(vti.frames(a)), list(vti.frames(b))
    print(tag, 'frames', len(fa), len(fb), 'steps', json.load(open(a+'/summary.json'))['steps'], json.load(open(b+'/summary.json'))['steps'])
    for (ta, pa), (tb, pb) in zip(fa, fb):
        for k in names:
            x, y = vti.read_cell_array(pa, k)[0], vti.read_cell_array(pb, k)[0]
            if not np.array_equal(x, y): print(tag, 't', ta, k, 'DIFFER max', np.max(np.abs(x-y)))
    print(tag, 'compared')
cmp('r2d base/new', '$W/r2d-base-1', '$W/r2d-new-1', ['density', 'pressure', 'velocity'])
cmp('rt3 48x40x120 base/new', '$W/rt3-B', '$W/rt3-N', ['density', 'pressure', 'velocity'])
cmp('thacker base/new', '$W/th-B', '$W/th-N', ['depth', 'velocity'])
PY
echo "== checks"
$N check euler > $R/check-euler.txt 2>&1; echo "check euler rc $?" | tee -a $R/same.txt
$N check shallow-water > $R/check-swe.txt 2>&1; echo "check shallow-water rc $?" | tee -a $R/same.txt
grep -c PASS $R/check-euler.txt $R/check-swe.txt; grep FAIL $R/check-*.txt | head
echo "== summary"; awk '{print $1, $3, $4, $5, $6, $8, $9, $11}' $R/bench.txt; grep wall $R/r2d.txt; cat $R/same.txt
