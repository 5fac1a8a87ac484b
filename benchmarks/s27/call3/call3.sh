#!/usr/bin/env bash
# Session 27, call 3 (one H100): the z march's default planes at 512^3 against 31 and 32 set by
# hand (the default should be 31 on an H100), alternating; then the shallow-water family's device
# script (checks, the week from 100,000 steps, the floor, the benchmarks, Table V at 100^2).
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W
pb() { "$@" bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 5 --reps 3 --set 'run.math="fast"' 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-100; }
{ for rep in 1 2 3; do
    echo "== $rep default"; pb $N
    for tz in 31 32; do echo "== $rep tz $tz"; CFD_EULER_TILE=32,8,$tz pb $N; done
  done
} 2>&1 | tee $R/euler.txt
OUT=$R/swe SWE_TANK=100 bash .gpu/gpu_swe.sh > $R/gpu_swe.txt 2>&1; echo "gpu_swe rc $?"
echo "== summary"; grep -h "^==\|^euler" $R/euler.txt | paste - - | cut -c1-110; sed -n '/== summary/,$p' $R/gpu_swe.txt | head -30
