#!/usr/bin/env bash
# Session 26, call 2 (one H100): the shallow-water step without the divisions' slow path for
# zero numerators and without the edge loop's division by a variable width (v1), and with the
# edge solved in the axis's own frame once for its wet, dry and wall cases (v2, .gpu/solver):
# the same bytes as base (cedb7d3) on every shallow-water template in f64 and f32, CPU = CUDA
# (`solver check shallow-water`), and the step at 1000^2 and 8000^2 f32 alternating with base,
# with v2's tile and register cap varied through CFD_SWE_DEFINES.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W
V1=.gpu/solver-v1
check_families shallow-water
{ for t in swe-lake-at-rest swe-dam-break-dry swe-dam-break-wet swe-thacker swe-column swe-estuary; do
    $N cases $t > $W/$t.toml
    for p in f64 f32; do
      same $t-$p-v2 $W/$t.toml --backend cuda --set run.precision=$p
      N0=$N; N=$V1; same $t-$p-v1 $W/$t.toml --backend cuda --set run.precision=$p; N=$N0
    done
  done
  same column-periodic-f32 $W/swe-column.toml --backend cuda --set run.precision=f32 --set 'shallow-water.boundary={x="periodic",y="reflect"}' --set 'grid.dims=[128,96,1]'
} 2>&1 | tee $R/same.txt
sw() { "$@" bench shallow-water --sizes 1000,8000 --precision f32 --steps 200 --reps 3 2>&1 | grep "^shallow" | tr -s ' ' | cut -c1-120; }
{ for rep in 1 2; do
    for x in $B $V1 $N; do echo "== $rep $x"; sw $x; done
    for d in "SWE_TY=16 SWE_MINB=3" "SWE_TX=64 SWE_MINB=3" "SWE_MINB=5" "SWE_MINB=7" "SWE_SHARE_NOINLINE=1"; do
      echo "== $rep v2 $d"; CFD_SWE_DEFINES="$d" sw $N; done
  done; } 2>&1 | tee $R/bench.txt
for x in $B $N; do
  $NCU --metrics gpu__time_duration.sum,smsp__inst_executed.sum -k regex:swe_step --launch-skip 60 --launch-count 3 $x bench shallow-water --sizes 1000 --precision f32 --steps 100 2>&1 | grep -E "duration|inst_executed" | head -2
done 2>&1 | tee $R/ncu.txt
