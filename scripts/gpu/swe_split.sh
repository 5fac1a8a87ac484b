#!/usr/bin/env bash
# On a host with 2 GPUs, from the repository root with .gpu staged (scripts/gpu/stage.sh).
# Which 2-GPU f64 runs differ from 1 GPU: the tank at even and uneven row counts, Thacker uneven.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export NCCL_NVLS_ENABLE=0
S=.gpu/solver; W=$(mktemp -d)
$S cases swe-column > $W/c.toml; $S cases swe-thacker > $W/t.toml
cmpdirs() { local n=0 bad=0; for f in $1/*.vti; do n=$((n+1)); cmp -s $f $2/$(basename $f) || bad=$((bad+1)); done; echo "$n files, $bad differ"; }
for case in c t; do
  for dims in "[500,400,1]" "[500,402,1]" "[500,401,1]" "[200,96,1]" "[200,100,1]"; do
    for p in f64 f32; do
      for g in 1 2; do
        $S run $W/$case.toml --backend cuda -q --set run.precision=$p --set run.gpus=$g --set "grid.dims=$dims" -o $W/r-$g 2>/dev/null
      done
      echo "$case $dims $p: $(cmpdirs $W/r-1 $W/r-2)"
    done
  done
done
