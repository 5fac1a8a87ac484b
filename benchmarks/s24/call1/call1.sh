#!/usr/bin/env bash
# Session 24, call 1 (one H100): verify session 23's last two commits on the device (the Euler
# clock kernel through DeviceClock::queue_tick_with, shallow water's one-value block_reduce)
# against base (7992cc7): CPU = CUDA, same bytes, the clock kernel's ncu time, and the paper's
# 2D benchmark end to end with the shipped 2D cap of 6 blocks an SM.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W, NCU; same, ncu_durations, r2d_end_to_end
for f in euler shallow-water heat; do
  $N check $f > $W/check-$f.txt 2>&1; echo "check $f rc $? pass $(grep -c ' PASS' $W/check-$f.txt) fail $(grep -c ' FAIL' $W/check-$f.txt)"
  grep " FAIL" $W/check-$f.txt | head -5
done 2>&1 | tee $R/checks.txt
R2=$W/r2d.toml; $N cases euler-riemann-2d > $R2
{
for p in f64 f32; do same r2d-$p $R2 --backend cuda --set run.precision=$p; done
same r2d-hllc-f32-fast $R2 --backend cuda --set run.precision=f32 --set 'euler.riemann="hllc"' --set 'run.math="fast"'
for t in euler-toro-1 euler-rt-2d euler-rt-3d swe-dam-break-wet swe-column swe-estuary heat-gaussian; do
  $N cases $t > $W/$t.toml 2>/dev/null || continue
  for p in f64 f32; do same $t-$p $W/$t.toml --backend cuda --set run.precision=$p; done
done
} 2>&1 | tee $R/same.txt
{ for x in $B $N; do ncu_durations r2d-fast-$(basename $x) $x run $R2 --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set 'run.math="fast"' -o $W/nc; done; } 2>&1 | tee $R/ncu.txt
{ for x in $B $N; do echo "== $x"; $x bench euler --only "riemann-2d hllc" --sizes 1000 --precision f32 --steps 20 --reps 5 --set 'run.math="fast"' 2>&1 | grep "^euler"; done; } | tee $R/bench.txt
r2d_end_to_end $R2 2>&1 | tee $R/r2d-e2e.txt
