#!/usr/bin/env bash
# Session 27, call 5 (one H100): the final build (the step's shared-memory size checked by its
# compile) against base (587148b): `solver check` of shallow water and Euler, the same bytes on
# every shallow-water template and the march's cases, and the benchmarks, alternating.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W
$N cases euler-rt-3d > $W/rt3d.toml
{ same_swe f64 f32
  for p in f64 f32; do same rt3d-odd-$p $W/rt3d.toml --backend cuda --set run.precision=$p --set 'grid.dims=[37,21,70]' --set time.end_time=1.0; done
} 2>&1 | tee $R/same.txt
check_families shallow-water euler
{ for rep in 1 2; do for x in $B $N; do swe_bench f32 $x; plm_bench $x; done; done; } 2>&1 | tee $R/bench.txt
summary
