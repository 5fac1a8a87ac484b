#!/usr/bin/env bash
# Staged by scripts/gpu_stage.sh; run on the device machine (kind nvidia-h200-x2 or nvidia-h100-x2, carry .gpu).
# 2-GPU shallow water after issue 30: strong scaling at 8000^2 (1 vs 2 GPUs, f32 and f64) and the
# tank's byte identity with 1, 2 ghost rows (f64).
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export NCCL_NVLS_ENABLE=0
S=.gpu/solver; W=$(mktemp -d)
nvidia-smi -L
for p in f32 f64; do
  for g in 1 2; do
    echo "== bench 8000^2 $p gpus $g"
    $S bench shallow-water --sizes 8000 --steps 200 --precision $p --gpus $g 2>&1 | tail -4
  done
done
$S cases swe-column > $W/c.toml
for k in 1 2; do
  for g in 1 2; do
    $S run $W/c.toml --backend cuda -q --set run.precision=f64 --set run.gpus=$g --set 'grid.dims=[500,401,1]' \
      --set shallow-water.manning=0.03 --set 'shallow-water.boundary={x="outflow",y="outflow"}' \
      --set shallow-water.ghost_rows=$k -o $W/col-$k-$g
  done
  n=0; bad=0
  for f in $W/col-$k-1/*.vti; do n=$((n+1)); cmp -s $f $W/col-$k-2/$(basename $f) || bad=$((bad+1)); done
  echo "column f64 ghost_rows $k: $n files, $bad differ (2 GPUs vs 1)"
  for b in reflect; do :; done
done
for k in 2; do
  for g in 1 2; do
    $S run $W/c.toml --backend cuda -q --set run.precision=f64 --set run.gpus=$g --set 'grid.dims=[500,401,1]' \
      --set shallow-water.ghost_rows=$k -o $W/wall-$k-$g
  done
  n=0; bad=0
  for f in $W/wall-$k-1/*.vti; do n=$((n+1)); cmp -s $f $W/wall-$k-2/$(basename $f) || bad=$((bad+1)); done
  echo "column (reflecting walls, no friction) f64 ghost_rows $k: $n files, $bad differ"
  for g in 1 2; do
    $S run $W/c.toml --backend cuda -q --set run.precision=f64 --set run.gpus=$g --set 'grid.dims=[500,401,1]' \
      --set shallow-water.manning=0.03 --set shallow-water.ghost_rows=$k -o $W/man-$k-$g
  done
  n=0; bad=0
  for f in $W/man-$k-1/*.vti; do n=$((n+1)); cmp -s $f $W/man-$k-2/$(basename $f) || bad=$((bad+1)); done
  echo "column (walls, Manning) f64 ghost_rows $k: $n files, $bad differ"
  for g in 1 2; do
    $S run $W/c.toml --backend cuda -q --set run.precision=f64 --set run.gpus=$g --set 'grid.dims=[500,401,1]' \
      --set 'shallow-water.boundary={x="outflow",y="outflow"}' --set shallow-water.ghost_rows=$k -o $W/out-$k-$g
  done
  n=0; bad=0
  for f in $W/out-$k-1/*.vti; do n=$((n+1)); cmp -s $f $W/out-$k-2/$(basename $f) || bad=$((bad+1)); done
  echo "column (outflow sides, no friction) f64 ghost_rows $k: $n files, $bad differ"
done
