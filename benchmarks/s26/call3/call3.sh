#!/usr/bin/env bash
# Session 26, call 3 (one H100): the z march with its tile compiled in (EULER_MARCH_TX/TY:
# no divisions by the tile's size, no spills) and shallow water's stored cells indexed from the
# tile's first: the same bytes as base (cedb7d3) on the march's cases and every shallow-water
# template, CPU = CUDA (`solver check euler`, `shallow-water`), and the PLM + RK3 step at 512^3
# f32 fast and exact and shallow water 1000^2 / 8000^2 f32 alternating with base and with
# call 2's v1 (.gpu/solver-v1).
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W
V1=.gpu/solver-v1
check_families euler shallow-water
$N cases euler-rt-3d > $W/rt3d.toml; $N cases euler-rt-3d-multimode > $W/rt3dm.toml; $N cases euler-toro-3 > $W/t3.toml
{ for p in f64 f32; do same rt3d-$p $W/rt3d.toml --backend cuda --set run.precision=$p; done
  same rt3dm-f32 $W/rt3dm.toml --backend cuda --set run.precision=f32
  same rt3d-odd-f32 $W/rt3d.toml --backend cuda --set run.precision=f32 --set 'grid.dims=[37,21,70]' --set time.end_time=1.0
  for p in f64 f32; do same t3-z-plm-$p $W/t3.toml --backend cuda --set run.precision=$p --set 'grid.dims=[40,36,64]' --set 'euler.scheme="plm-rk3"' --set euler.initial.axis=2; done
  same rt3d-vl-f64 $W/rt3d.toml --backend cuda --set run.precision=f64 --set 'euler.limiter="van-leer"' --set time.end_time=2.0
  B0=$B; B=$V1; same rt3d-fast-f32 $W/rt3d.toml --backend cuda --set run.precision=f32 --set 'run.math="fast"'; B=$B0
  for t in swe-dam-break-dry swe-thacker swe-column swe-estuary; do $N cases $t > $W/$t.toml
    for p in f64 f32; do same $t-$p $W/$t.toml --backend cuda --set run.precision=$p; done; done
} 2>&1 | tee $R/same.txt
pb() { "$@" bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 5 --reps 3 --set 'run.math="fast"' 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-110
       "$@" bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 5 --reps 3 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-110; }
sw() { "$@" bench shallow-water --sizes 1000,8000 --precision f32 --steps 200 --reps 3 2>&1 | grep "^shallow" | tr -s ' ' | cut -c1-110; }
{ for rep in 1 2; do
    for x in $B $N; do echo "== $rep $x"; pb $x; done
    for x in $B $V1 $N; do echo "== $rep $x"; sw $x; done
  done; } 2>&1 | tee $R/bench.txt
