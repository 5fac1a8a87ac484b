#!/usr/bin/env bash
# Session 23, call 4 (one H100): call 3's fold of the wave speeds' maxima, now reduced over a warp
# by redux.sync on the bits (reduce.cuh, block_max_bits_into) instead of shuffle trees, against
# base (HEAD 7992cc7): CPU = CUDA, same bytes, registers, timings, the sweep's register cap, ncu,
# r2d end to end.
# As it ran, but for the shared helpers moved into benchmarks/device_lib.sh afterwards.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W, NCU; same, ncu_durations, r2d_end_to_end
{ python3 scripts/kernel_resources.py euler --fmad=false | grep -E "sweep|stable_dt|march"; python3 scripts/kernel_resources.py swe --fmad=false | grep -E "rate|step"; } > $R/regs.txt 2>&1
$N check euler > $W/check-euler.txt 2>&1; echo "check euler rc $? pass $(grep -c ' PASS' $W/check-euler.txt) fail $(grep -c ' FAIL' $W/check-euler.txt)" | tee $R/checks.txt
grep " FAIL" $W/check-euler.txt | head -5 | tee -a $R/checks.txt
R2=$W/r2d.toml; $N cases euler-riemann-2d > $R2; T1=$W/t1.toml; $N cases euler-toro-1 > $T1
{
for c in euler-toro-1 euler-riemann-2d euler-rt-2d; do
  $N cases $c > $W/$c.toml; for p in f64 f32; do same $c-$p $W/$c.toml --backend cuda --set run.precision=$p; done
done
$N cases euler-rt-3d > $W/rt3.toml
same rt-3d-f32 $W/rt3.toml --backend cuda --set run.precision=f32 --set time.end_time=0.5
same r2d-hllc-f32 $R2 --backend cuda --set run.precision=f32 --set 'euler.riemann="hllc"'
same r2d-constdt-f64 $R2 --backend cuda --set run.precision=f64 --set grid.dims=[200,150,1] --set time.dt=2e-4 --set time.end_time=0.2
same r2d-aniso-f32 $R2 --backend cuda --set run.precision=f32 --set grid.dims=[300,77,1] --set time.end_time=0.3
same cube-f64 $T1 --backend cuda --set run.precision=f64 --set grid.dims=[64,48,40] --set time.end_time=0.1
same cube-plm-f32 $T1 --backend cuda --set run.precision=f32 --set grid.dims=[40,36,32] --set time.end_time=0.1 --set 'euler.scheme="plm-rk3"'
} 2>&1 | tee $R/same.txt
b2() { local p=$1; shift; "$@" bench euler --only "riemann-2d hllc" --sizes 1000 --precision $p --steps 20 --reps 5 --set 'run.math="fast"' 2>&1 | grep "^euler"
          "$@" bench euler --only "riemann-2d hllc" --sizes 1000 --precision $p --steps 20 --reps 5 2>&1 | grep "^euler"; }
{
for p in f32 f64; do echo "== $p base"; b2 $p $B; echo "== $p new"; b2 $p $N; done
for x in $B $N; do echo "== 3D $x"
  $x bench euler --only "toro-1 cube hllc" --sizes 256 --precision f64 --steps 10 --reps 3 2>&1 | grep "^euler"
  $x bench euler --only "cube hllc" --sizes 512 --precision f32 --steps 10 --reps 3 --set 'run.math="fast"' 2>&1 | grep "^euler"
  $x bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 10 --reps 3 --set 'run.math="fast"' 2>&1 | grep "^euler"
done
for k in 6 8; do echo "== f32 minb $k"; CFD_EULER_SWEEP_MINB=$k b2 f32 $N; done
for k in 2 4; do echo "== f64 minb $k"; CFD_EULER_SWEEP_MINB=$k b2 f64 $N; done
} 2>&1 | tee $R/bench.txt
{ for x in $B $N; do ncu_durations r2d-fast-$(basename $x) $x run $R2 --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set 'run.math="fast"' -o $W/nc; done; } 2>&1 | tee $R/ncu.txt
r2d_end_to_end $R2 2>&1 | tee $R/r2d-e2e.txt
