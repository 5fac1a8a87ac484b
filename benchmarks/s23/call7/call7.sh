#!/usr/bin/env bash
# Session 23, call 7 (one H100): a 2D grid's zero momentum across its plane compiled out of the
# Euler sweeps (EULER_ZERO_MOMENTUM) against base (7992cc7): CPU = CUDA, same bytes (xy, xz and
# yz grids, the knob off too), registers, timings, ncu, r2d end to end.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W, NCU; same, ncu_durations, r2d_end_to_end
python3 scripts/kernel_resources.py euler --fmad=false -DEULER_ZERO_MOMENTUM=3 2>&1 | grep -E "sweep" > $R/regs.txt
$N check euler > $W/check-euler.txt 2>&1; echo "check euler rc $? pass $(grep -c ' PASS' $W/check-euler.txt) fail $(grep -c ' FAIL' $W/check-euler.txt)" | tee $R/checks.txt
grep " FAIL" $W/check-euler.txt | head -5 | tee -a $R/checks.txt
R2=$W/r2d.toml; $N cases euler-riemann-2d > $R2; $N cases euler-density-wave > $W/dw.toml
{
for p in f64 f32; do same r2d-$p $R2 --backend cuda --set run.precision=$p; same dw-$p $W/dw.toml --backend cuda --set run.precision=$p; done
same r2d-hllc-f32 $R2 --backend cuda --set run.precision=f32 --set 'euler.riemann="hllc"'
same r2d-hll-f64 $R2 --backend cuda --set run.precision=f64 --set 'euler.riemann="hll"' --set grid.dims=[300,200,1] --set time.end_time=0.3
same r2d-reflect-periodic-f64 $R2 --backend cuda --set run.precision=f64 --set 'euler.boundary={ x = "reflect", y = "periodic", z = "outflow" }' --set grid.dims=[200,100,1] --set time.end_time=0.4
same r2d-periodic-reflect-f32 $R2 --backend cuda --set run.precision=f32 --set 'euler.boundary={ x = "periodic", y = "reflect", z = "outflow" }' --set grid.dims=[100,200,1] --set time.end_time=0.4
same r2d-xz-f64 $R2 --backend cuda --set run.precision=f64 --set grid.dims=[120,1,90] --set time.end_time=0.2
same r2d-yz-f32 $R2 --backend cuda --set run.precision=f32 --set grid.dims=[1,110,90] --set time.end_time=0.2
same r2d-aniso-f64 $R2 --backend cuda --set run.precision=f64 --set grid.dims=[300,77,1] --set time.end_time=0.3
same r2d-constdt-f32 $R2 --backend cuda --set run.precision=f32 --set grid.dims=[200,150,1] --set time.dt=2e-4 --set time.end_time=0.2
same r2d-minmod-f64 $R2 --backend cuda --set run.precision=f64 --set 'euler.limiter="minmod"' --set grid.dims=[200,200,1] --set time.end_time=0.3
CFD_EULER_ZERO_MOMENTUM=0 same knob-off-f64 $R2 --backend cuda --set run.precision=f64 --set grid.dims=[300,200,1] --set time.end_time=0.3
} 2>&1 | tee $R/same.txt
b2() { local p=$1; shift; "$@" bench euler --only "riemann-2d hllc" --sizes 1000 --precision $p --steps 20 --reps 5 --set 'run.math="fast"' 2>&1 | grep "^euler"
          "$@" bench euler --only "riemann-2d hllc" --sizes 1000 --precision $p --steps 20 --reps 5 2>&1 | grep "^euler"; }
{
for p in f32 f64; do echo "== $p base"; b2 $p $B; echo "== $p new"; b2 $p $N; echo "== $p new, knob off"; CFD_EULER_ZERO_MOMENTUM=0 b2 $p $N; done
for k in 6 8; do echo "== f32 minb $k"; CFD_EULER_SWEEP_MINB=$k b2 f32 $N; done
} 2>&1 | tee $R/bench.txt
{ for x in $B $N; do ncu_durations r2d-fast-$(basename $x) $x run $R2 --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set 'run.math="fast"' -o $W/nc; done; } 2>&1 | tee $R/ncu.txt
r2d_end_to_end $R2 2>&1 | tee $R/r2d-e2e.txt
