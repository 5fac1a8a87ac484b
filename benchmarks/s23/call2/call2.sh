#!/usr/bin/env bash
# Session 23, call 2 (one H100): the sweep's ghost images compiled in on 2D grids only (the clock
# tick in the sweep dropped: call 1 measured it no faster), against base (HEAD 7992cc7): CPU =
# CUDA, same bytes, timings 2D and 3D, the 2D sweep's tiles, ncu durations, r2d end to end.
# As it ran, but for the shared helpers moved into benchmarks/device_lib.sh afterwards.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W, NCU; same, ncu_durations, r2d_end_to_end
$N check euler > $W/check-euler.txt 2>&1; echo "check euler rc $? pass $(grep -c ' PASS' $W/check-euler.txt) fail $(grep -c ' FAIL' $W/check-euler.txt)" | tee $R/checks.txt
R2=$W/r2d.toml; $N cases euler-riemann-2d > $R2; T1=$W/t1.toml; $N cases euler-toro-1 > $T1
{
for p in f64 f32; do same r2d-$p $R2 --backend cuda --set run.precision=$p; done
same r2d-hllc-f32 $R2 --backend cuda --set run.precision=f32 --set 'euler.riemann="hllc"'
same r2d-reflect-periodic-f64 $R2 --backend cuda --set run.precision=f64 --set 'euler.boundary={ x = "reflect", y = "periodic", z = "outflow" }' --set grid.dims=[200,100,1] --set time.end_time=0.4
same r2d-periodic-reflect-f32 $R2 --backend cuda --set run.precision=f32 --set 'euler.boundary={ x = "periodic", y = "reflect", z = "outflow" }' --set grid.dims=[100,200,1] --set time.end_time=0.4
same r2d-constdt-f64 $R2 --backend cuda --set run.precision=f64 --set grid.dims=[200,150,1] --set time.dt=2e-4 --set time.end_time=0.2
same r2d-small-f64 $R2 --backend cuda --set run.precision=f64 --set grid.dims=[3,50,1] --set time.end_time=0.2
same r2d-xz-f64 $R2 --backend cuda --set run.precision=f64 --set grid.dims=[120,1,90] --set time.end_time=0.2
same cube-f32 $T1 --backend cuda --set run.precision=f32 --set grid.dims=[64,48,40] --set time.end_time=0.1
same toro1-f64 $T1 --backend cuda --set run.precision=f64
CFD_EULER_GHOSTS=fill same knob-ghosts-fill $R2 --backend cuda --set run.precision=f64 --set grid.dims=[300,200,1] --set time.end_time=0.3
} 2>&1 | tee $R/same.txt
b2() { local p=$1; shift; "$@" bench euler --only "riemann-2d hllc" --sizes 1000 --precision $p --steps 20 --reps 5 --set 'run.math="fast"' 2>&1 | grep "^euler"
          "$@" bench euler --only "riemann-2d hllc" --sizes 1000 --precision $p --steps 20 --reps 5 2>&1 | grep "^euler"; }
{
for p in f32 f64; do echo "== $p base"; b2 $p $B; echo "== $p new"; b2 $p $N; echo "== $p new, ghosts by fill"; CFD_EULER_GHOSTS=fill b2 $p $N; done
for x in $B $N; do echo "== 3D $x"
  $x bench euler --only "toro-1 cube hllc" --sizes 256 --precision f64 --steps 10 --reps 3 2>&1 | grep "^euler"
  $x bench euler --only "cube hllc" --sizes 512 --precision f32 --steps 10 --reps 3 --set 'run.math="fast"' 2>&1 | grep "^euler"
done
echo "== 2D tiles, f32 fast (y: CFD_EULER_SWEEP, x: CFD_EULER_SWEEP_X)"
for t in 16,16 32,8 64,4 24,8 32,4 8,32; do echo "y $t: $(CFD_EULER_SWEEP=$t $N bench euler --only 'riemann-2d hllc' --sizes 1000 --precision f32 --steps 20 --reps 5 --set 'run.math="fast"' 2>&1 | grep '^euler' | awk '{print $7}')"; done
for t in 128,2 256,1 64,4 32,8 128,1 96,2; do echo "x $t: $(CFD_EULER_SWEEP_X=$t $N bench euler --only 'riemann-2d hllc' --sizes 1000 --precision f32 --steps 20 --reps 5 --set 'run.math="fast"' 2>&1 | grep '^euler' | awk '{print $7}')"; done
} 2>&1 | tee $R/bench.txt
{ for x in $B $N; do ncu_durations r2d-fast-$(basename $x) $x run $R2 --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set 'run.math="fast"' -o $W/nc; done; } 2>&1 | tee $R/ncu.txt
r2d_end_to_end $R2 2>&1 | tee $R/r2d-e2e.txt
