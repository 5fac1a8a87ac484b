#!/usr/bin/env bash
# Session 22, call 5 (one H100): the sweep with its fused fold (no last-block clock), its blocks
# an SM in f32 and f64, 2D and 3D, exact and fast; the fold as its own kernel for comparison.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
N=.gpu/solver; B=.gpu/solver-base; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/device.txt
b2() { local p=$1; shift; "$@" bench euler --only "riemann-2d hllc" --sizes 1000 --precision $p --steps 20 --reps 5 --set 'run.math="fast"' 2>&1 | grep "^euler"
          "$@" bench euler --only "riemann-2d hllc" --sizes 1000 --precision $p --steps 20 --reps 5 2>&1 | grep "^euler"; }
b3() { local p=$1; shift; "$@" bench euler --only "toro-1 cube hllc" --sizes 256 --precision $p --steps 10 --reps 3 --set 'run.math="fast"' 2>&1 | grep "^euler"
          "$@" bench euler --only "toro-1 cube hllc" --sizes 256 --precision $p --steps 10 --reps 3 2>&1 | grep "^euler"; }
{
for rep in 1 2; do
  echo "== f32 base"; b2 f32 $B
  echo "== f32 new"; b2 f32 $N
  echo "== f32 new, fold kernel"; CFD_EULER_FOLD=kernel b2 f32 $N
done
for k in 5 6 7 8; do echo "== f32 minb $k"; CFD_EULER_SWEEP_MINB=$k b2 f32 $N; CFD_EULER_SWEEP_MINB=$k b3 f32 $N; done
echo "== f32 3D base / new"; b3 f32 $B; b3 f32 $N
echo "== f64 base"; b2 f64 $B; b3 f64 $B
for k in 2 3 4; do echo "== f64 minb $k"; CFD_EULER_SWEEP_MINB=$k b2 f64 $N; CFD_EULER_SWEEP_MINB=$k b3 f64 $N; done
echo "== 512^3 f32 fast: base, minb 6, minb 7"
for x in "$B" "env CFD_EULER_SWEEP_MINB=6 $N" "env CFD_EULER_SWEEP_MINB=7 $N"; do
  $x bench euler --only "toro-1 cube hllc" --sizes 512 --precision f32 --steps 10 --reps 3 --set 'run.math="fast"' 2>&1 | grep "^euler"; done
} 2>&1 | tee $R/bench.txt
$N cases euler-riemann-2d > $W/r2d.toml
for k in 6 7; do for m in exact fast; do for r in 1 2; do
  CFD_EULER_SWEEP_MINB=$k /usr/bin/time -f "minb$k $m wall %e s" $N run $W/r2d.toml --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set "run.math=\"$m\"" -o $W/e2e 2>&1 | tail -1
  python3 -c "import json;t=json.load(open('$W/e2e/summary.json'))['timing'];print('   stepping', t['stepping'], 'total', t['total'])"
done; done; done 2>&1 | tee $R/r2d-e2e.txt
