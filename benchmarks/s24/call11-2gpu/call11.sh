#!/usr/bin/env bash
# Session 24, call 11 (2 GPUs, kind nvidia-h100-x2): issue 29's "no regression" for shallow water
# with every kernel launched early: the 8000^2 speed-up on 2 GPUs, f32 and f64.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
GPU=.gpu PARTS_CHECK=0 PARTS_SAME=0 PARTS_BENCHES=swe OUT=$R bash scripts/gpu_parts.sh > $R/parts.txt 2>&1
echo "gpu_parts swe rc $?" >> $R/parts.txt
tail -8 $R/parts.txt
