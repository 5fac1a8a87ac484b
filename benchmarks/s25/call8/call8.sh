#!/usr/bin/env bash
# Session 25, call 8 (one H100, kind nvidia-h100-x1): the 3D Rayleigh-Taylor growth rate with
# run.math = "fast" against exact math after session 24's z march (one slope a cell), as
# VALIDATION.md's row measured it in session 15: euler-rt-3d 64 x 64 x 192, HLL, f32, to t = 4,
# a frame every 0.2, scripts/rt_growth.py --max-kh 0.5.
set -uo pipefail
source benchmarks/device_lib.sh  # N, R, W
$N cases euler-rt-3d > $W/rt3.toml
for math in exact fast; do
  $N run $W/rt3.toml --backend cuda -q --set run.precision=f32 --set "run.math=\"$math\"" --set time.end_time=4.0 \
    --set output.interval=0.2 -o $W/rt3-$math > /dev/null 2>&1 || echo "run $math failed"
  printf "rt-3d 64 hll f32 %-5s " $math
  python3 scripts/rt_growth.py $W/rt3-$math --max-kh 0.5 | tail -1
done | tee $R/rt3-fast.txt
