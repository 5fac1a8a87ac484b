#!/usr/bin/env bash
# Session 27, call 11 (one H100): the session's final build (dc861c1) against base (587148b):
# `solver check` of shallow water and Euler, the same bytes on the shallow-water templates and
# RT 3D, the benchmarks (shallow water 1000^2 and 8000^2 f32, PLM + RK3 512^3 f32 fast),
# alternating twice, and the week from 100,000 steps.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W
$N cases euler-rt-3d > $W/rt3d.toml
{ same_swe f64 f32
  for p in f64 f32; do same rt3d-$p $W/rt3d.toml --backend cuda --set run.precision=$p --set time.end_time=1.0; done
} 2>&1 | tee $R/same.txt
check_families shallow-water euler
{ for rep in 1 2; do for x in $B $N; do swe_bench f32 $x; plm_bench $x; done; done
  echo "== week"; $N bench shallow-water --sizes 1000 --steps 100000 --reps 1 --precision f32 2>&1 | grep '^shallow' | tr -s ' ' | cut -c1-100
} 2>&1 | tee $R/bench.txt
summary
