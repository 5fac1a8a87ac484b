#!/usr/bin/env bash
# Session 22, call 9 (one H100): the final build against base (HEAD before the session), the
# figures of issue 28 that this session moved.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
N=.gpu/solver; B=.gpu/solver-base; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/device.txt
{
for x in $B $N; do echo "== $x"
  $x bench euler --only "riemann-2d hllc" --sizes 1000 --precision f32 --steps 20 --reps 5 --set 'run.math="fast"' 2>&1 | grep "^euler"
  $x bench euler --only "riemann-2d hllc" --sizes 1000 --precision f32 --steps 20 --reps 5 2>&1 | grep "^euler"
  $x bench euler --only "cube hllc" --sizes 512 --precision f32 --steps 10 --reps 3 --set 'run.math="fast"' 2>&1 | grep "^euler"
  $x bench shallow-water --sizes 1000,8000 --precision f32 --steps 200 --reps 3 2>&1 | grep "^shallow"
done
} 2>&1 | tee $R/bench.txt
$N cases euler-riemann-2d > $W/r2d.toml
for b in $B $N; do for m in exact fast; do for k in 1 2 3; do
  /usr/bin/time -f "$b $m wall %e s" $b run $W/r2d.toml --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set "run.math=\"$m\"" -o $W/e2e 2>&1 | tail -1
  python3 -c "import json;t=json.load(open('$W/e2e/summary.json'))['timing'];print('   stepping', t['stepping'], 'total', t['total'])"
done; done; done 2>&1 | tee $R/r2d-e2e.txt
