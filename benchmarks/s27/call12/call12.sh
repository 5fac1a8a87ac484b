#!/usr/bin/env bash
# Session 27, call 12 (one H100): the shallow-water step's knobs after items 2-3 (CFD_SWE_DEFINES):
# in f32 the blocks an SM (5, 6 the default, 7) and 32 x 16 with the edge loops by axis; in f64
# the 32 x 8 tile that dynamic shared memory now allows (16 x 8 the default), twice, alternating.
set -uo pipefail
source benchmarks/device_lib.sh  # N, R
{ for rep in 1 2; do
    for d in "" "SWE_MINB=5" "SWE_MINB=7" "SWE_TY=16"; do echo "== f32 '$d'"; CFD_SWE_DEFINES="$d" swe_bench f32 $N; done
    for d in "" "SWE_TX=32" "SWE_TX=32 SWE_MINB=4"; do echo "== f64 '$d'"; CFD_SWE_DEFINES="$d" swe_bench f64 $N; done
  done
} 2>&1 | tee $R/bench.txt
