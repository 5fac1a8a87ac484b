#!/usr/bin/env bash
# Session 22, call 4 (one H100): the sweep's step end (fold, and the clock by its last block)
# against separate launches, and its blocks an SM; base (HEAD before the session) against new.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
N=.gpu/solver; B=.gpu/solver-base; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/device.txt
$N check euler > $W/check-euler.txt 2>&1; echo "check euler rc $? pass $(grep -c ' PASS' $W/check-euler.txt) fail $(grep -c ' FAIL' $W/check-euler.txt)" | tee $R/checks.txt
same() { local tag=$1; shift
  $B run "$@" -q -o $W/base-$tag >/dev/null 2>&1; $N run "$@" -q -o $W/new-$tag >/dev/null 2>&1
  local d=0; for f in $(cd $W/base-$tag && ls *.vt* 2>/dev/null); do cmp -s $W/base-$tag/$f $W/new-$tag/$f || d=$((d+1)); done
  echo "same $tag: $(ls $W/base-$tag | grep -c vt) files, $d differ; steps $(python3 -c "import json;print(json.load(open('$W/new-$tag/summary.json')).get('steps'))" 2>&1 | tail -1)"
}
{
for c in euler-toro-1 euler-toro-5 euler-density-wave euler-riemann-2d; do
  $N cases $c > $W/$c.toml
  for p in f64 f32; do same $c-$p $W/$c.toml --backend cuda --set run.precision=$p; done
done
same r2d-hllc-f32 $W/euler-riemann-2d.toml --backend cuda --set run.precision=f32 --set 'euler.riemann="hllc"'
same r2d-reflect-periodic-f64 $W/euler-riemann-2d.toml --backend cuda --set run.precision=f64 --set 'euler.boundary={ x = "reflect", y = "periodic", z = "outflow" }' --set grid.dims=[200,100,1] --set time.end_time=0.4
CFD_EULER_SWEEP_MINB=6 same r2d-hllc-f32-minb6 $W/euler-riemann-2d.toml --backend cuda --set run.precision=f32 --set 'euler.riemann="hllc"'
} 2>&1 | tee $R/same.txt
bench() { "$@" bench euler --only "riemann-2d hllc" --sizes 1000 --precision f32 --steps 20 --reps 5 --set 'run.math="fast"' 2>&1 | grep "^euler"
          "$@" bench euler --only "riemann-2d hllc" --sizes 1000 --precision f32 --steps 20 --reps 5 2>&1 | grep "^euler"; }
{
for rep in 1 2; do
  echo "== base"; bench $B
  echo "== new (fold + tick)"; bench $N
  echo "== new, fold, clock kernel"; CFD_EULER_STEP_END=fold bench $N
  echo "== new, kernels"; CFD_EULER_STEP_END=kernels bench $N
done
for k in 5 6 7 8; do echo "== new, sweep minb $k"; CFD_EULER_SWEEP_MINB=$k bench $N; done
echo "== 3D cube hllc fast 256^3 base / new / new minb 6"
$B bench euler --only "toro-1 cube hllc" --sizes 256 --precision f32 --steps 10 --reps 3 --set 'run.math="fast"' 2>&1 | grep "^euler"
$N bench euler --only "toro-1 cube hllc" --sizes 256 --precision f32 --steps 10 --reps 3 --set 'run.math="fast"' 2>&1 | grep "^euler"
CFD_EULER_SWEEP_MINB=6 $N bench euler --only "toro-1 cube hllc" --sizes 256 --precision f32 --steps 10 --reps 3 --set 'run.math="fast"' 2>&1 | grep "^euler"
echo "== 3D cube hllc exact 256^3 base / new / new minb 6"
$B bench euler --only "toro-1 cube hllc" --sizes 256 --precision f32 --steps 10 --reps 3 2>&1 | grep "^euler"
$N bench euler --only "toro-1 cube hllc" --sizes 256 --precision f32 --steps 10 --reps 3 2>&1 | grep "^euler"
CFD_EULER_SWEEP_MINB=6 $N bench euler --only "toro-1 cube hllc" --sizes 256 --precision f32 --steps 10 --reps 3 2>&1 | grep "^euler"
} 2>&1 | tee $R/bench.txt
for b in $B $N; do for m in exact fast; do for k in 1 2; do
  /usr/bin/time -f "$b $m wall %e s" $b run $W/euler-riemann-2d.toml --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set "run.math=\"$m\"" -o $W/e2e 2>&1 | tail -1
  python3 -c "import json;t=json.load(open('$W/e2e/summary.json'))['timing'];print('   stepping', t['stepping'], 'total', t['total'])"
done; done; done 2>&1 | tee $R/r2d-e2e.txt
for m in exact fast; do for k in 1 2; do
  CFD_EULER_SWEEP_MINB=6 /usr/bin/time -f "minb6 $m wall %e s" $N run $W/euler-riemann-2d.toml --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set "run.math=\"$m\"" -o $W/e2e 2>&1 | tail -1
  python3 -c "import json;t=json.load(open('$W/e2e/summary.json'))['timing'];print('   stepping', t['stepping'], 'total', t['total'])"
done; done 2>&1 | tee -a $R/r2d-e2e.txt
