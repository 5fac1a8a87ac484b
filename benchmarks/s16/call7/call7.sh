#!/usr/bin/env bash
# Session 16, call 7 (one H100): is MUSCL-Hancock + HLLC 512^3 f32 slower on main than on the
# session-15 build? main (solver), main with the sweep's left-value stores restored (solver-rev,
# 15 blockDim REAL of shared memory), the session-15 build (solver-prev); exact and fast.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
D=.gpu31; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/device.txt
for m in exact fast; do for b in solver solver-rev solver-prev; do
  $D/$b bench euler --only "cube hllc" --sizes 128 --precision f32 --steps 2 --reps 1 --set "run.math=\"$m\"" >/dev/null 2>&1
done; done
for rep in 1 2; do for m in exact fast; do for b in solver solver-rev solver-prev; do
  $D/$b bench euler --only "cube hllc" --sizes 512 --precision f32 --steps 20 --reps 3 --set "run.math=\"$m\"" 2>&1 | grep "^euler" | sed "s/^/$b $m rep$rep: /" | tee -a $R/final.txt
done; done; done
