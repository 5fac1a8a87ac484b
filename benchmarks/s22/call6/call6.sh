#!/usr/bin/env bash
# Session 22, call 6: the final build against base (HEAD before the session), same machine:
# CPU = CUDA, same files, the sweep's blocks an SM, the Euler and shallow-water benchmarks, the
# paper's Euler benchmark end to end.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
N=.gpu/solver; B=.gpu/solver-base; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/device.txt
for f in euler shallow-water heat; do
  $N check $f > $W/check-$f.txt 2>&1; echo "check $f rc $? pass $(grep -c ' PASS' $W/check-$f.txt) fail $(grep -c ' FAIL' $W/check-$f.txt)"
  grep " FAIL" $W/check-$f.txt | head -5
done 2>&1 | tee $R/checks.txt
same() { local tag=$1; shift
  $B run "$@" -q -o $W/base-$tag >/dev/null 2>&1; $N run "$@" -q -o $W/new-$tag >/dev/null 2>&1
  local d=0; for f in $(cd $W/base-$tag && ls *.vt* 2>/dev/null); do cmp -s $W/base-$tag/$f $W/new-$tag/$f || d=$((d+1)); done
  echo "same $tag: $(ls $W/base-$tag | grep -c vt) files, $d differ; steps $(python3 -c "import json;print(json.load(open('$W/new-$tag/summary.json')).get('steps'))" 2>&1 | tail -1)"
}
{
for c in euler-toro-1 euler-toro-3 euler-density-wave euler-riemann-2d euler-rt-2d swe-thacker swe-column swe-estuary heat-erfc heat-gaussian; do
  $N cases $c > $W/$c.toml 2>/dev/null || continue
  for p in f64 f32; do same $c-$p $W/$c.toml --backend cuda --set run.precision=$p; done
done
same r2d-hllc-f32 $W/euler-riemann-2d.toml --backend cuda --set run.precision=f32 --set 'euler.riemann="hllc"'
same r2d-reflect-periodic-f64 $W/euler-riemann-2d.toml --backend cuda --set run.precision=f64 --set 'euler.boundary={ x = "reflect", y = "periodic", z = "outflow" }' --set grid.dims=[200,100,1] --set time.end_time=0.4
same r2d-periodic-reflect-f32 $W/euler-riemann-2d.toml --backend cuda --set run.precision=f32 --set 'euler.boundary={ x = "periodic", y = "reflect", z = "outflow" }' --set grid.dims=[100,200,1] --set time.end_time=0.4
same cube-f32 $W/euler-toro-1.toml --backend cuda --set run.precision=f32 --set grid.dims=[64,48,40] --set time.end_time=0.1
} 2>&1 | tee $R/same.txt
b2() { local p=$1; shift; "$@" bench euler --only "riemann-2d hllc" --sizes 1000 --precision $p --steps 20 --reps 5 --set 'run.math="fast"' 2>&1 | grep "^euler"
          "$@" bench euler --only "riemann-2d hllc" --sizes 1000 --precision $p --steps 20 --reps 5 2>&1 | grep "^euler"; }
b3() { local p=$1; shift; "$@" bench euler --only "toro-1 cube hllc" --sizes 256 --precision $p --steps 10 --reps 3 --set 'run.math="fast"' 2>&1 | grep "^euler"
          "$@" bench euler --only "toro-1 cube hllc" --sizes 256 --precision $p --steps 10 --reps 3 2>&1 | grep "^euler"; }
{
for p in f32 f64; do echo "== $p base"; b2 $p $B; b3 $p $B; echo "== $p new"; b2 $p $N; b3 $p $N; done
for k in 6 8; do echo "== f32 minb $k"; CFD_EULER_SWEEP_MINB=$k b2 f32 $N; CFD_EULER_SWEEP_MINB=$k b3 f32 $N; done
echo "== f64 minb 2"; CFD_EULER_SWEEP_MINB=2 b2 f64 $N; CFD_EULER_SWEEP_MINB=2 b3 f64 $N
echo "== 512^3 f32 base / new"
for x in $B $N; do $x bench euler --only "cube hllc" --sizes 512 --precision f32 --steps 10 --reps 3 --set 'run.math="fast"' 2>&1 | grep "^euler"; done
echo "== shallow water base / new"
for x in $B $N; do $x bench shallow-water --sizes 1000,8000 --precision f32 --steps 200 --reps 3 2>&1 | grep "^shallow"; done
} 2>&1 | tee $R/bench.txt
for b in $B $N; do for m in exact fast; do for k in 1 2 3; do
  /usr/bin/time -f "$b $m wall %e s" $b run $W/euler-riemann-2d.toml --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set "run.math=\"$m\"" -o $W/e2e 2>&1 | tail -1
  python3 -c "import json;t=json.load(open('$W/e2e/summary.json'))['timing'];print('   stepping', t['stepping'], 'total', t['total'])"
done; done; done 2>&1 | tee $R/r2d-e2e.txt
