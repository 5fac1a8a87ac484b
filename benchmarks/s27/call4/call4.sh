#!/usr/bin/env bash
# Session 27, call 4 (one H100): the z march's planes chosen once the kernel's shared memory is
# opted in (call 3's default asked the occupancy before it, got none, and took 24 planes).
# PLM + HLL + RK3 f32 fast: 512^3 default (31 expected) against 31 and 32 set by hand, 256^3
# default (32 expected) against 64 (the old default); exact math at 512^3; alternating.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W
pb() { "$@" bench euler --only "rt-3d plm-rk3 hll" --sizes $S --precision f32 --steps 5 --reps 3 --set 'run.math="fast"' 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-100; }
{ S=512; for rep in 1 2 3; do
    echo "== 512 $rep default"; pb $N
    for tz in 31 32; do echo "== 512 $rep tz $tz"; CFD_EULER_TILE=32,8,$tz pb $N; done
  done
  S=256; for rep in 1 2; do
    echo "== 256 $rep default"; pb $N
    for tz in 32 64; do echo "== 256 $rep tz $tz"; CFD_EULER_TILE=32,8,$tz pb $N; done
  done
  for x in $B $N; do echo "== exact $x"; $x bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 5 --reps 3 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-100; done
} 2>&1 | tee $R/euler.txt
$N cases euler-rt-3d > $W/rt3d.toml
{ for p in f64 f32; do same rt3d-$p $W/rt3d.toml --backend cuda --set run.precision=$p --set time.end_time=2.0; done; } 2>&1 | tee $R/same.txt
check_families euler
echo "== summary"; grep -h "^==\|^euler" $R/euler.txt | paste - - | cut -c1-110; cat $R/same.txt $R/checks.txt
