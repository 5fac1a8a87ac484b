#!/usr/bin/env bash
# Session 24, call 6 (2 GPUs, kind nvidia-h100-x2): with every kernel of a structured step
# launched early (call 5's build: the walls' ghosts, the fold, the open sides and the sources
# too), 2 GPUs still write the same files as 1: gpu_parts.sh's merged set (RT 3D with its
# hydrostatic walls, the 2D Riemann problem, heat, Thacker, the estuary with its open sides and
# sources, with ghost-cell expansion) and RT 2D.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
GPU=.gpu PARTS_CHECK=0 PARTS_SAME=final PARTS_BENCH=0 OUT=$W/final bash scripts/gpu_parts.sh > $R/final.txt 2>&1
echo "gpu_parts final rc $?" >> $R/final.txt
S=.gpu/solver; $S cases euler-rt-2d > $W/rt2d.toml
for p in f64 f32; do for g in 1 2; do $S run $W/rt2d.toml --backend cuda -q --set run.precision=$p --set run.gpus=$g --set time.end_time=2.0 -o $W/rt2d-$p-$g; done
  n=0; d=0; for f in $W/rt2d-$p-1/*.vti; do n=$((n+1)); cmp -s $f $W/rt2d-$p-2/$(basename $f) || d=$((d+1)); done
  echo "rt2d $p: 1 GPU vs 2: $n files, $d differ"; done >> $R/final.txt 2>&1
grep -E "differ|rc|FAIL" $R/final.txt
