#!/usr/bin/env bash
# Session 15, call 1: issue 28's Euler kernels (evolve once, the z march, run.math = "fast").
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
N=.gpu30/solver; B=.gpu30/solver-base; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | tee $R/device.txt
bench() { # label bin args...
  local l=$1 b=$2; shift 2
  $b bench euler --precision f32 --steps 10 --reps 2 "$@" 2>&1 | grep -E "^euler" | sed "s/^/$l /" | tee -a $R/bench.txt
}
for only in "rt-3d plm-rk3 hll" "cube hllc"; do
  bench base $B --only "$only" --sizes 512
  bench new $N --only "$only" --sizes 512
  bench fast $N --only "$only" --sizes 512 --set 'run.math="fast"'
done
CFD_EULER_MARCH=0 bench nomarch $N --only "rt-3d plm-rk3 hll" --sizes 512
bench base $B --only "riemann-2d hllc" --sizes 1000
bench new $N --only "riemann-2d hllc" --sizes 1000
bench fast $N --only "riemann-2d hllc" --sizes 1000 --set 'run.math="fast"'
bench base64 $B --only "rt-3d plm-rk3 hll" --sizes 256 --precision f64
bench new64 $N --only "rt-3d plm-rk3 hll" --sizes 256 --precision f64
echo "== r2d end to end (f32 hllc), warm cache second"
$N cases euler-riemann-2d > $W/r2d.toml
for lab in base new fast; do
  b=$N; [ $lab = base ] && b=$B; extra=(); [ $lab = fast ] && extra=(--set 'run.math="fast"')
  for rep in 1 2 3; do
    /usr/bin/time -f "%e" -o $W/t $b run $W/r2d.toml --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' "${extra[@]}" -o $W/r2d-$lab-$rep >/dev/null 2>&1 || echo "run failed $lab"
    python3 -c "
import json; d=json.load(open('$W/r2d-$lab-$rep/summary.json')); t=d.get('timing',{})
print('r2d %-5s rep %d wall %s s  steps %d  stepping %.4f  startup %.3f setup %.3f output %.3f' % ('$lab', $rep, open('$W/t').read().strip(), d['steps'], t.get('stepping',-1), t.get('startup',-1), t.get('setup',-1), t.get('output',-1)))" | tee -a $R/r2d.txt
  done
done
python3 - <<PY | tee -a $R/r2d.txt
import sys
sys.path.insert(0, 'scripts')
import vti
import numpy as np
last = lambda d: list(vti.frames(d))[-1][1]
a, b, c = last('$W/r2d-base-1'), last('$W/r2d-new-1'), last('$W/r2d-fast-1')
for k in ['density', 'pressure', 'velocity']:
    x, y, z = (vti.read_cell_array(f, k)[0] for f in (a, b, c))
    print('final frame %-10s base==new %s  max|fast-new|/max|new| %.3e' % (k, np.array_equal(x, y), np.max(np.abs(z - y)) / max(np.max(np.abs(y)), 1e-300)))
PY
echo "== checks"
$N check euler > $R/check-euler.txt 2>&1; echo "check euler rc $?"
grep -E "FAIL|fast|37x21" $R/check-euler.txt | head -40
echo "== summary"; cat $R/bench.txt | awk '{print $1, $3, $4, $5, $6, $8, $9, $11}'; grep wall $R/r2d.txt
