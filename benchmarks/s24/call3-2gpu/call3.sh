#!/usr/bin/env bash
# Session 24, call 3 (2 GPUs, kind nvidia-h100-x2): the structured step's kernels launched early
# (kernels::EARLY, now with heat's register-queue stage) on decomposed grids: 2 GPUs write the
# same files as 1 (every Euler scheme and the heat boundaries; then the merged set with shallow
# water), the 512^3 speed-ups (heat f64, PLM + HLL + RK3 f32, MUSCL-Hancock + HLLC f32), and heat
# on 1 and 2 GPUs with CFD_EARLY_LAUNCH=0 for comparison.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
GPU=.gpu PARTS_CHECK=0 PARTS_SAME=all PARTS_BENCHES="heat euler-plm euler-hllc" OUT=$R bash scripts/gpu_parts.sh > $R/parts.txt 2>&1
echo "gpu_parts all rc $?" >> $R/parts.txt
GPU=.gpu PARTS_CHECK=0 PARTS_SAME=final PARTS_BENCH=0 OUT=$W/final bash scripts/gpu_parts.sh > $R/final.txt 2>&1
echo "gpu_parts final rc $?" >> $R/final.txt
{ for k in 1 0; do for g in 1 2; do
    echo "early $k gpus $g: $(CFD_EARLY_LAUNCH=$k .gpu/solver bench heat --only register-queue --sizes 512 --precision f64 --gpus $g --reps 3 2>&1 | grep '^heat' | tr -s ' ' | cut -c1-110)"
  done; done; } > $R/heat-early.txt 2>&1
tail -25 $R/parts.txt; tail -12 $R/final.txt; cat $R/heat-early.txt
