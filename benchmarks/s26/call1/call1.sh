#!/usr/bin/env bash
# Session 26, call 1 (one H100): where the shallow-water step and the PLM + RK3 z march spend
# their instructions. ncu's source counters (executed instructions and stall reasons per SASS
# instruction) of one swe_step launch at 1000^2 and at 8000^2 f32, and of one launch of each
# kernel of the 3D PLM + RK3 fast step at 512^3 f32, with the timings of the same builds.
set -uo pipefail
source benchmarks/device_lib.sh  # N, R, W, NCU
$N bench shallow-water --sizes 1000 8000 --precision f32 --steps 400 2>&1 | grep -E '^shallow|column' | tee $R/bench.txt
$N bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 5 --reps 2 --set 'run.math="fast"' 2>&1 | grep '^euler' | tee -a $R/bench.txt
prof() { local tag=$1 k=$2 skip=$3 count=$4; shift 4
  $NCU --section SourceCounters --section InstructionStats --section WarpStateStats --section ComputeWorkloadAnalysis \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
    -k "regex:$k" --launch-skip $skip --launch-count $count -f -o $W/$tag "$@" > $W/$tag.log 2>&1 || tail -5 $W/$tag.log
  $NCU -i $W/$tag.ncu-rep --page details > $R/$tag-details.txt 2>&1
  $NCU -i $W/$tag.ncu-rep --page source --csv --print-source sass > $R/$tag-sass.csv 2>$R/$tag-sass.err || head -3 $R/$tag-sass.err
  gzip -f $R/$tag-sass.csv
}
prof swe1000 swe_step 60 1 $N bench shallow-water --sizes 1000 --precision f32 --steps 100
prof swe8000 swe_step 20 1 $N bench shallow-water --sizes 8000 --precision f32 --steps 40
prof plm512 'euler_rk_(march|stage)' 6 3 $N bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 3 --reps 1 --set 'run.math="fast"'
ls -la $R
