#!/usr/bin/env bash
# Session 24, call 2 (one H100): the short kernels of a structured step launched early
# (programmatic dependent launch: kernels::EARLY, EarlyFunction) against the same build with
# CFD_EARLY_LAUNCH=0 and against base (7992cc7): CPU = CUDA, same bytes, step times, the paper's
# 2D benchmark end to end.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W, NCU; same, ncu_durations, r2d_end_to_end
for f in euler shallow-water heat; do
  $N check $f > $W/check-$f.txt 2>&1; echo "check $f rc $? pass $(grep -c ' PASS' $W/check-$f.txt) fail $(grep -c ' FAIL' $W/check-$f.txt)"
  grep " FAIL" $W/check-$f.txt | head -5
done 2>&1 | tee $R/checks.txt
R2=$W/r2d.toml; $N cases euler-riemann-2d > $R2
OFF=$W/off; printf '#!/bin/sh\nCFD_EARLY_LAUNCH=0 exec %s "$@"\n' "$(realpath $N)" > $OFF; chmod +x $OFF
{
for p in f64 f32; do same r2d-$p $R2 --backend cuda --set run.precision=$p; done
for t in euler-toro-1 euler-toro-3 euler-rt-2d euler-rt-3d swe-dam-break-wet swe-thacker swe-column swe-estuary heat-gaussian heat-erfc; do
  $N cases $t > $W/$t.toml 2>/dev/null || continue
  for p in f64 f32; do same $t-$p $W/$t.toml --backend cuda --set run.precision=$p; done
done
B0=$B; B=$OFF  # fast math: the same build with and without early launch
same r2d-hllc-f32-fast-vs-off $R2 --backend cuda --set run.precision=f32 --set 'euler.riemann="hllc"' --set 'run.math="fast"'
same rt-3d-f32-fast-vs-off $W/euler-rt-3d.toml --backend cuda --set run.precision=f32 --set 'run.math="fast"'
B=$B0
} 2>&1 | tee $R/same.txt
bx() { local x=$1
  echo "r2d-fast $($x bench euler --only 'riemann-2d hllc' --sizes 1000 --precision f32 --steps 20 --reps 5 --set 'run.math="fast"' 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-110)"
  echo "r2d-exact $($x bench euler --only 'riemann-2d hllc' --sizes 1000 --precision f32 --steps 20 --reps 5 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-110)"
  echo "swe-1000 $($x bench shallow-water --sizes 1000 --precision f32 --steps 200 --reps 3 2>&1 | grep '^shallow' | head -1 | tr -s ' ' | cut -c1-120)"
  [ "${D3:-1}" = 1 ] || return 0
  echo "cube-512-fast $($x bench euler --only 'cube hllc' --sizes 512 --precision f32 --steps 10 --reps 3 --set 'run.math="fast"' 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-110)"
  echo "plm-512-fast $($x bench euler --only 'rt-3d plm-rk3 hll' --sizes 512 --precision f32 --steps 5 --reps 3 --set 'run.math="fast"' 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-110)"
}
{ for rep in 1 2; do for x in $B $OFF $N; do echo "== $rep $x"; D3=$((rep == 1)) bx $x; done; done; } 2>&1 | tee $R/bench.txt
{ for x in $OFF $N; do for k in 1 2 3 4; do
    /usr/bin/time -f "$x fast wall %e s" $x run $R2 --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set 'run.math="fast"' -o $W/e2e 2>&1 | tail -1
    python3 -c "import json;t=json.load(open('$W/e2e/summary.json'))['timing'];print('   stepping', t['stepping'], 'total', t['total'])"
  done; done; } 2>&1 | tee $R/r2d-e2e.txt
