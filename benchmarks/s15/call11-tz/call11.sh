#!/usr/bin/env bash
# Session 15, call 11: the z march's planes a block (CFD_EULER_TILE=32,8,tz) on the whole 512^3
# grid and on a half (512 x 512 x 256, a part of 2 GPUs), f32 exact.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
N=.gpu30/solver; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/device.txt
for tz in 64 32 16; do
  for dims in "[512,512,512]" "[512,512,256]"; do
    CFD_EULER_TILE=32,8,$tz $N bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 10 --reps 3 --set "grid.dims=$dims" 2>&1 | grep "^euler" | sed "s/^/tz $tz $dims /" | tee -a $R/tz.txt
  done
done
