#!/usr/bin/env bash
# Session 15: the Rayleigh-Taylor growth rate with run.math = "exact" and "fast" (issue 28: the
# fast path must leave it unchanged to the digits reported), 2D 128 x 384 HLLC A = 0.01 (f64, as
# VALIDATION's row) and f32; 3D 64 x 64 x 192 (the march) f32 to t = 4.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
N=.gpu30/solver; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
$N cases euler-rt-2d > $W/rt.toml
$N cases euler-rt-3d > $W/rt3.toml
for prec in f64 f32; do for math in exact fast; do
  o=$W/rt-$prec-$math
  $N run $W/rt.toml --backend cuda -q --set run.precision=$prec --set "run.math=\"$math\"" --set "grid.dims=[128,384,1]" \
    --set 'euler.riemann="hllc"' --set euler.initial.amplitude=0.01 --set time.end_time=4.0 --set output.interval=0.1 -o $o || echo "rt $prec $math failed"
  printf "rt-2d 128x384 hllc A=0.01 %s %-5s " $prec $math | tee -a $R/rt-growth.txt
  python3 scripts/rt_growth.py $o --max-kh 0.5 | tail -1 | tee -a $R/rt-growth.txt
done; done
for math in exact fast; do
  o=$W/rt3-$math
  $N run $W/rt3.toml --backend cuda -q --set run.precision=f32 --set "run.math=\"$math\"" --set time.end_time=4.0 --set output.interval=0.2 -o $o || echo "rt3 $math failed"
  printf "rt-3d 64x64x192 hll f32 %-5s " $math | tee -a $R/rt-growth.txt
  python3 scripts/rt_growth.py $o --max-kh 0.5 2>&1 | tail -1 | tee -a $R/rt-growth.txt
done
