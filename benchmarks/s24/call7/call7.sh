#!/usr/bin/env bash
# Session 24, call 7 (one H100): issue 28's figures with the session's final build (every kernel
# of a structured step launched early) against base (7992cc7), same machine: the paper's 2D
# benchmark step and end to end (HLLC f32 fast), shallow water at 1000^2 (the week) and 8000^2
# (fraction of copy).
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W
R2=$W/r2d.toml; $N cases euler-riemann-2d > $R2
{ for rep in 1 2; do for x in $B $N; do
    echo "== $rep $x"
    $x bench euler --only "riemann-2d hllc" --sizes 1000 --precision f32 --steps 20 --reps 5 --set 'run.math="fast"' 2>&1 | grep "^euler" | tr -s ' '
    $x bench shallow-water --sizes 1000,8000 --precision f32 --steps 200 --reps 3 2>&1 | grep "^shallow" | tr -s ' '
  done; done; } 2>&1 | tee $R/bench.txt
{ for x in $B $N; do for k in 1 2 3; do
    /usr/bin/time -f "$x fast wall %e s" $x run $R2 --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set 'run.math="fast"' -o $W/e2e 2>&1 | tail -1
    python3 -c "import json;t=json.load(open('$W/e2e/summary.json'))['timing'];print('   stepping', t['stepping'], 'total', t['total'])"
  done; done; } 2>&1 | tee $R/r2d-e2e.txt
