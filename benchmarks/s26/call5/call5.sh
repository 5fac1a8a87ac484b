#!/usr/bin/env bash
# Session 26, call 5 (one H100): the z march's plane loaded without divergent warps (each
# column's thread copies its own cell from its ring; the ghost rows and columns numbered so
# that a warp loads one row): the same bytes as base (cedb7d3) on the march's cases, CPU = CUDA
# (`solver check euler`), and the PLM + RK3 step at 512^3 f32 fast against base and call 3's
# build (.gpu/solver-c3, 095e339), alternating.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W
C3=.gpu/solver-c3
pb() { "$@" bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 5 --reps 3 --set 'run.math="fast"' 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-100; }
{ for rep in 1 2; do for x in $B $C3 $N; do echo "== $rep $x"; pb $x; done; done; } 2>&1 | tee $R/bench.txt
$N cases euler-rt-3d > $W/rt3d.toml; $N cases euler-toro-3 > $W/t3.toml
{ for p in f64 f32; do
    same rt3d-odd-$p $W/rt3d.toml --backend cuda --set run.precision=$p --set 'grid.dims=[37,21,70]' --set time.end_time=1.0
    same rt3d-$p $W/rt3d.toml --backend cuda --set run.precision=$p --set time.end_time=2.0
    same t3-z-plm-$p $W/t3.toml --backend cuda --set run.precision=$p --set 'grid.dims=[40,36,64]' --set 'euler.scheme="plm-rk3"' --set euler.initial.axis=2
  done
  B0=$B; B=$C3; same rt3d-fast-f32 $W/rt3d.toml --backend cuda --set run.precision=f32 --set 'run.math="fast"' --set time.end_time=2.0; B=$B0
} 2>&1 | tee $R/same.txt
check_families euler
