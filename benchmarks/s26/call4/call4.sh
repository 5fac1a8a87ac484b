#!/usr/bin/env bash
# Session 26, call 4 (one H100): the z march after call 3 (tile compiled in): its tile and
# register cap varied through the knobs (CFD_EULER_TILE, CFD_EULER_MARCH_MINB; each tile is
# compiled in as the launch's), and ncu's source counters of one march launch at 512^3 f32 fast.
set -uo pipefail
source benchmarks/device_lib.sh  # N, R, W, NCU
pb() { "$@" bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 5 --reps 3 --set 'run.math="fast"' 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-100; }
{ for rep in 1 2; do
    echo "== $rep default"; pb $N
    for t in 16,16,64 32,8,32 32,8,128 16,8,64 32,4,64; do echo "== $rep tile $t"; CFD_EULER_TILE=$t pb $N; done
    for m in 3 5; do echo "== $rep minb $m"; CFD_EULER_MARCH_MINB=$m pb $N; done
  done; } 2>&1 | tee $R/bench.txt
$NCU --section SourceCounters --section InstructionStats --section WarpStateStats --section SpeedOfLight --section Occupancy \
  --section LaunchStats --section MemoryWorkloadAnalysis -k regex:euler_rk_march --launch-skip 6 --launch-count 1 -f -o $W/plm \
  $N bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 3 --reps 1 --set 'run.math="fast"' > $W/plm.log 2>&1 || tail -5 $W/plm.log
$NCU -i $W/plm.ncu-rep --page details > $R/plm512-details.txt 2>&1
$NCU -i $W/plm.ncu-rep --page source --csv --print-source sass | gzip > $R/plm512-sass.csv.gz
