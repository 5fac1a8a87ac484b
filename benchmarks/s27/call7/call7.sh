#!/usr/bin/env bash
# Session 27, call 7 (one H100): shallow water's floor (benchmarks/swe_floor/floor.py) with the
# solver's exact arithmetic, with contraction (FMA) and with fast math, twice each, alternating.
set -uo pipefail
source benchmarks/device_lib.sh  # R
for rep in 1 2; do for m in exact fma fast; do
  python3 benchmarks/swe_floor/floor.py --sizes 1000,8000 --math $m --json $R/floor-$m-$rep.json 2>&1 | grep "^floor\|rror"
done; done 2>&1 | tee $R/floor.txt
