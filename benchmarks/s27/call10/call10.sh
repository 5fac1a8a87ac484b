#!/usr/bin/env bash
# Session 27, call 10 (one H100): shallow water's edge loops by axis (SWE_EDGE_LOOPS_BY_AXIS, set in single precision)
# (each axis a constant in its loop; double precision keeps the one loop, its SASS unchanged:
# calls 8 and 9 were slower there) against the build before it (82ea275, .gpu/solver-head): the benchmark at 1000^2 and
# 8000^2, f32 alternating three times, f64 once; the same bytes on every template; `solver check`.
set -uo pipefail
source benchmarks/device_lib.sh  # N, R, W
B=.gpu/solver-head
{ for rep in 1 2 3; do for x in $B $N; do
    echo "== $rep $x"; $x bench shallow-water --sizes 1000,8000 --precision f32 2>&1 | grep '^shallow' | tr -s ' ' | cut -c1-100
  done; done
  for rep in 1; do for x in $B $N; do echo "== f64 $rep $x"; $x bench shallow-water --sizes 1000,8000 --precision f64 2>&1 | grep "^shallow" | tr -s " " | cut -c1-100; done; done
} 2>&1 | tee $R/bench.txt
for t in swe-thacker swe-estuary swe-column swe-dam-break-dry swe-dam-break-wet swe-lake-at-rest; do $N cases $t > $W/$t.toml; done
{ for p in f64 f32; do for f in $W/swe-*.toml; do t=$(basename $f .toml); same $t-$p $f --backend cuda --set run.precision=$p; done; done
  same column-periodic-f32 $W/swe-column.toml --backend cuda --set run.precision=f32 --set 'shallow-water.boundary={x="periodic",y="periodic"}'
} 2>&1 | tee $R/same.txt
check_families shallow-water
echo "== summary"; cat $R/bench.txt $R/checks.txt; echo "same: $(grep -c ' 0 differ' $R/same.txt) of $(grep -c '^same' $R/same.txt) with 0 differing"
