#!/usr/bin/env bash
# Session 27, call 1 (one H100).
# 1. The z march's planes a block at 512^3 (PLM + HLL + RK3, f32 fast): the default (64) against
#    32, 31 and 43 (CFD_EULER_TILE), alternating, and the exact path once.
# 2. Shallow water's step tile in dynamic shared memory: base (587148b) against the new build at
#    32 x 8 (the default), 32 x 16 and 64 x 8 (CFD_SWE_DEFINES), 1000^2 and 8000^2.
# 3. 32 x 16: the same bytes as base (Thacker, the estuary, the column), `solver check`.
# 4. The floor of the step (benchmarks/swe_floor/floor.py).
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W
pb() { "$@" bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 5 --reps 3 --set 'run.math="fast"' 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-100; }
{ for rep in 1 2; do for tz in default 32 31 43; do
    echo "== $rep tz $tz"
    if [ $tz = default ]; then pb $N; else CFD_EULER_TILE=32,8,$tz pb $N; fi
  done; done
  echo "== exact"; $N bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 5 --reps 3 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-100
} 2>&1 | tee $R/euler.txt
sb() { "$@" bench shallow-water --sizes 1000,8000 --precision f32 2>&1 | grep '^shallow' | tr -s ' ' | cut -c1-110; }
{ for rep in 1 2; do
    echo "== $rep base"; sb $B
    for d in "" "SWE_TY=16" "SWE_TX=64"; do echo "== $rep new '$d'"; CFD_SWE_DEFINES="$d" sb $N; done
  done
} 2>&1 | tee $R/swe.txt
printf '#!/bin/sh\nCFD_SWE_DEFINES="SWE_TY=16" exec %s "$@"\n' "$PWD/$N" > $W/solver-ty16; chmod +x $W/solver-ty16
N0=$N; N=$W/solver-ty16
for t in swe-thacker swe-estuary swe-column; do $N0 cases $t > $W/$t.toml; done
{ for p in f64 f32; do
    same thacker-$p $W/swe-thacker.toml --backend cuda --set run.precision=$p
    same estuary-$p $W/swe-estuary.toml --backend cuda --set run.precision=$p
    same column-$p $W/swe-column.toml --backend cuda --set run.precision=$p
  done
  N=$N0; same thacker-f32-default $W/swe-thacker.toml --backend cuda --set run.precision=f32
} 2>&1 | tee $R/same.txt
N=$W/solver-ty16; check_families shallow-water; N=$N0; mv $R/checks.txt $R/checks-ty16.txt; check_families shallow-water
python3 benchmarks/swe_floor/floor.py --sizes 1000,8000 --json $R/floor.json 2>&1 | tail -5 | tee $R/floor.txt
echo "== summary"; grep -h "plm\|^==" $R/euler.txt | paste - - | cut -c1-120; cat $R/floor.txt; cat $R/checks*.txt; grep -c "0 differ" $R/same.txt
