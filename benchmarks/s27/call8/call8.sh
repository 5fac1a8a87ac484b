#!/usr/bin/env bash
# Session 27, call 8 (one H100): shallow water's edge loop split by axis (each axis a constant
# in its loop) against the build before it (82ea275, .gpu/solver-head): the benchmark at 1000^2
# and 8000^2 f32, alternating, three times; the same bytes on every template; `solver check`.
set -uo pipefail
source benchmarks/device_lib.sh  # N, R, W
B=.gpu/solver-head
{ for rep in 1 2 3; do swe_bench f32 $B $N; done; swe_bench f64 $B $N; } 2>&1 | tee $R/bench.txt
{ same_swe f64 f32
  same column-periodic-f32 $W/swe-column.toml --backend cuda --set run.precision=f32 --set 'shallow-water.boundary={x="periodic",y="periodic"}'
} 2>&1 | tee $R/same.txt
check_families shallow-water
summary
