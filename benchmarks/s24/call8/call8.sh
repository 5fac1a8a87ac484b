#!/usr/bin/env bash
# Session 24, call 8 (one H100): the conjugate gradients' kernels and their AMG V-cycle launched
# early too (kernels::EARLY; captured into CUDA graphs as programmatic edges): every family's
# CPU = CUDA checks, and `bench cg` (Jacobi and AMG, small and large Kuhn boxes) and
# `bench navier-stokes` with CFD_EARLY_LAUNCH=1 and =0 alternating, base beside them.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W
$N check all > $W/check-all.txt 2>&1; echo "check all rc $? pass $(grep -c ' PASS' $W/check-all.txt) fail $(grep -c ' FAIL' $W/check-all.txt)" | tee $R/checks.txt
grep -E " FAIL|cg|navier" $W/check-all.txt | head -30 >> $R/checks.txt
cgb() { "$@" bench cg --sizes 24,40,80 --precond jacobi,amg --reps 3 2>&1 | grep -E "^cuda|amg hierarchy" | tr -s ' ' | cut -c1-150; }
nsb() { "$@" bench navier-stokes --sizes 32 --steps 10 --reps 2 2>&1 | grep -E "^navier|^ns|s/step" | tr -s ' ' | cut -c1-150; }
{ for rep in 1 2; do
    echo "== $rep base"; cgb $B; nsb $B
    echo "== $rep early off"; CFD_EARLY_LAUNCH=0 cgb $N; CFD_EARLY_LAUNCH=0 nsb $N
    echo "== $rep early on"; cgb $N; nsb $N
  done; } 2>&1 | tee $R/bench.txt
$N bench cg --sizes 40 --precond jacobi,amg --cpu --reps 1 > $W/cpu.txt 2>&1; tail -15 $W/cpu.txt > $R/cg-cpu.txt
