#!/usr/bin/env bash
# Session 27, call 2 (one H100): the z march's planes chosen for the device (`march_planes`: 31
# at 512^3 on an H100) and shallow water's tile in dynamic shared memory, against base (587148b).
# 1. PLM + HLL + RK3 f32 fast at 512^3 and 256^3: base, new, and new with the old 64 planes
#    (CFD_EULER_TILE=32,8,64), alternating; MUSCL-Hancock + HLLC 512^3 once each.
# 2. The same bytes as base: the march's cases (f64, f32, fast), every shallow-water template.
# 3. `solver check euler` and `check shallow-water`.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W
pb() { "$@" bench euler --only "rt-3d plm-rk3 hll" --sizes $S --precision f32 --steps 5 --reps 3 --set 'run.math="fast"' 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-100; }
{ for S in 512 256; do for rep in 1 2; do
    echo "== $S $rep base"; pb $B
    echo "== $S $rep new"; pb $N
    echo "== $S $rep new-64"; CFD_EULER_TILE=32,8,64 pb $N
  done; done
  for x in $B $N; do echo "== mh $x"; $x bench euler --only "toro-1 cube hllc" --sizes 512 --precision f32 --steps 5 --reps 3 --set 'run.math="fast"' 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-100; done
} 2>&1 | tee $R/euler.txt
$N cases euler-rt-3d > $W/rt3d.toml; $N cases euler-toro-3 > $W/t3.toml
for t in swe-thacker swe-estuary swe-column swe-dam-break-dry; do $N cases $t > $W/$t.toml; done
{ for p in f64 f32; do
    same rt3d-odd-$p $W/rt3d.toml --backend cuda --set run.precision=$p --set 'grid.dims=[37,21,70]' --set time.end_time=1.0
    same rt3d-$p $W/rt3d.toml --backend cuda --set run.precision=$p --set time.end_time=2.0
    same t3-z-plm-$p $W/t3.toml --backend cuda --set run.precision=$p --set 'grid.dims=[40,36,64]' --set 'euler.scheme="plm-rk3"' --set euler.initial.axis=2
    for t in swe-thacker swe-estuary swe-column swe-dam-break-dry; do same $t-$p $W/$t.toml --backend cuda --set run.precision=$p; done
  done
  same rt3d-fast-f32 $W/rt3d.toml --backend cuda --set run.precision=f32 --set 'run.math="fast"' --set time.end_time=2.0
} 2>&1 | tee $R/same.txt
check_families euler shallow-water
echo "== summary"; grep -h "^==\|^euler" $R/euler.txt | paste - - | cut -c1-110; cat $R/checks.txt; echo "same: $(grep -c ' 0 differ' $R/same.txt) of $(grep -c '^same' $R/same.txt) with 0 differing"
