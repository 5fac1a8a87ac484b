#!/usr/bin/env bash
# Session 23, call 6 (one H100): the session's final build (6c25e37) against base (7992cc7):
# CPU = CUDA for Euler, shallow water and heat; the same bytes for the Euler and shallow-water
# templates; issue 28's figures; the Euler paper's benchmark end to end.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W, NCU; same, ncu_durations, r2d_end_to_end
for f in euler shallow-water heat; do
  $N check $f > $W/check-$f.txt 2>&1; echo "check $f rc $? pass $(grep -c ' PASS' $W/check-$f.txt) fail $(grep -c ' FAIL' $W/check-$f.txt)"
  grep " FAIL" $W/check-$f.txt | head -5
done 2>&1 | tee $R/checks.txt
R2=$W/r2d.toml; $N cases euler-riemann-2d > $R2; T1=$W/t1.toml; $N cases euler-toro-1 > $T1
{
for c in euler-toro-1 euler-toro-4 euler-toro-5 euler-density-wave euler-riemann-2d euler-rt-2d swe-thacker swe-column swe-dam-break-wet; do
  $N cases $c > $W/$c.toml 2>/dev/null || continue
  for p in f64 f32; do same $c-$p $W/$c.toml --backend cuda --set run.precision=$p; done
done
$N cases euler-rt-3d-multimode > $W/mm.toml
same rt-3d-multimode-f32 $W/mm.toml --backend cuda --set run.precision=f32 --set time.end_time=0.5
same r2d-constdt-f32 $R2 --backend cuda --set run.precision=f32 --set grid.dims=[200,150,1] --set time.dt=2e-4 --set time.end_time=0.2
same cube-reflect-f64 $T1 --backend cuda --set run.precision=f64 --set grid.dims=[40,48,36] --set time.end_time=0.1 --set 'euler.boundary={ x = "reflect", y = "periodic", z = "reflect" }'
} 2>&1 | tee $R/same.txt
{
for x in $B $N; do echo "== $x"
  $x bench euler --only "riemann-2d hllc" --sizes 1000 --precision f32 --steps 20 --reps 5 --set 'run.math="fast"' 2>&1 | grep "^euler"
  $x bench euler --only "riemann-2d hllc" --sizes 1000 --precision f32 --steps 20 --reps 5 2>&1 | grep "^euler"
  $x bench euler --only "cube hllc" --sizes 512 --precision f32 --steps 10 --reps 3 --set 'run.math="fast"' 2>&1 | grep "^euler"
  $x bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 10 --reps 3 --set 'run.math="fast"' 2>&1 | grep "^euler"
  $x bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 10 --reps 3 2>&1 | grep "^euler"
  $x bench shallow-water --sizes 1000,8000 --precision f32 --steps 200 --reps 3 2>&1 | grep "^shallow"
done
} 2>&1 | tee $R/bench.txt
r2d_end_to_end $R2 2>&1 | tee $R/r2d-e2e.txt
