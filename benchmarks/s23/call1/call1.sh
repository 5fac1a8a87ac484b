#!/usr/bin/env bash
# Session 23, call 1 (one H100): the Euler sweep writing the next sweep's ghosts and ticking the
# clock in a step's first sweep, and the shared block reduction (reduce.cuh), against base (HEAD
# 7992cc7, the session's start): CPU = CUDA, same bytes (the knobs too), then timings.
# As it ran, but for the shared helpers moved into benchmarks/device_lib.sh afterwards. Its ncu and
# end-to-end parts failed (R2 is set inside the braces, which run in a subshell); call 2 has them.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W, NCU; same, ncu_durations, r2d_end_to_end
for f in euler shallow-water; do
  $N check $f > $W/check-$f.txt 2>&1; echo "check $f rc $? pass $(grep -c ' PASS' $W/check-$f.txt) fail $(grep -c ' FAIL' $W/check-$f.txt)"
  grep " FAIL" $W/check-$f.txt | head -5
done 2>&1 | tee $R/checks.txt
{
for c in euler-toro-1 euler-toro-3 euler-density-wave euler-riemann-2d euler-rt-2d swe-thacker swe-column swe-estuary swe-dam-break-dry; do
  $N cases $c > $W/$c.toml 2>/dev/null || continue
  for p in f64 f32; do same $c-$p $W/$c.toml --backend cuda --set run.precision=$p; done
done
R2=$W/euler-riemann-2d.toml
same r2d-hllc-f32 $R2 --backend cuda --set run.precision=f32 --set 'euler.riemann="hllc"'
same r2d-hllc-f32-fast $R2 --backend cuda --set run.precision=f32 --set 'euler.riemann="hllc"' --set 'run.math="fast"'
same r2d-reflect-periodic-f64 $R2 --backend cuda --set run.precision=f64 --set 'euler.boundary={ x = "reflect", y = "periodic", z = "outflow" }' --set grid.dims=[200,100,1] --set time.end_time=0.4
same r2d-periodic-reflect-f32 $R2 --backend cuda --set run.precision=f32 --set 'euler.boundary={ x = "periodic", y = "reflect", z = "outflow" }' --set grid.dims=[100,200,1] --set time.end_time=0.4
same r2d-constdt-f64 $R2 --backend cuda --set run.precision=f64 --set grid.dims=[200,150,1] --set time.dt=2e-4 --set time.end_time=0.2
same r2d-small-f64 $R2 --backend cuda --set run.precision=f64 --set grid.dims=[3,50,1] --set time.end_time=0.2
same cube-f32 $W/euler-toro-1.toml --backend cuda --set run.precision=f32 --set grid.dims=[64,48,40] --set time.end_time=0.1
same cube-reflect-f64 $W/euler-toro-1.toml --backend cuda --set run.precision=f64 --set grid.dims=[40,48,36] --set time.end_time=0.1 --set 'euler.boundary={ x = "reflect", y = "periodic", z = "reflect" }'
same cube-constdt-f64 $W/euler-toro-1.toml --backend cuda --set run.precision=f64 --set grid.dims=[40,32,24] --set time.dt=1e-3 --set time.end_time=0.1
CFD_EULER_GHOSTS=fill same knob-ghosts-fill $R2 --backend cuda --set run.precision=f64 --set grid.dims=[300,200,1] --set time.end_time=0.3
CFD_EULER_CLOCK=kernel same knob-clock-kernel $R2 --backend cuda --set run.precision=f64 --set grid.dims=[300,200,1] --set time.end_time=0.3
} 2>&1 | tee $R/same.txt
b2() { local p=$1; shift; "$@" bench euler --only "riemann-2d hllc" --sizes 1000 --precision $p --steps 20 --reps 5 --set 'run.math="fast"' 2>&1 | grep "^euler"
          "$@" bench euler --only "riemann-2d hllc" --sizes 1000 --precision $p --steps 20 --reps 5 2>&1 | grep "^euler"; }
{
for p in f32 f64; do echo "== $p base"; b2 $p $B; echo "== $p new"; b2 $p $N
  echo "== $p new, ghosts by fill"; CFD_EULER_GHOSTS=fill b2 $p $N; echo "== $p new, clock kernel"; CFD_EULER_CLOCK=kernel b2 $p $N; done
for x in $B $N; do echo "== 3D $x"
  $x bench euler --only "toro-1 cube hllc" --sizes 256 --precision f64 --steps 10 --reps 3 2>&1 | grep "^euler"
  $x bench euler --only "cube hllc" --sizes 512 --precision f32 --steps 10 --reps 3 --set 'run.math="fast"' 2>&1 | grep "^euler"
  $x bench shallow-water --sizes 1000 --precision f32 --steps 200 --reps 3 2>&1 | grep "^shallow"
done
} 2>&1 | tee $R/bench.txt
{ for x in $B $N; do ncu_durations r2d-fast-$(basename $x) $x run $R2 --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set 'run.math="fast"' -o $W/nc; done; } 2>&1 | tee $R/ncu.txt
r2d_end_to_end $R2 2>&1 | tee $R/r2d-e2e.txt
