#!/usr/bin/env bash
# On a host with 2 GPUs, from the repository root with .gpu staged (scripts/gpu/stage.sh).
# 2-GPU shallow water: strong scaling at 8000^2 (1 vs 2 GPUs, f32 and f64) and the
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
# same LABEL SET...: the 500 x 401 tank in f64 on 1 and 2 GPUs with these overrides, every
# output file compared byte for byte.
same() {
  local label=$1; shift
  local sets=(); for x in "$@"; do sets+=(--set "$x"); done
  for g in 1 2; do
    rm -rf $W/r-$g
    $S run $W/c.toml --backend cuda -q --set run.precision=f64 --set run.gpus=$g --set 'grid.dims=[500,401,1]' \
      "${sets[@]}" -o $W/r-$g
  done
  local n=0 bad=0
  for f in $W/r-1/*.vti; do n=$((n+1)); cmp -s $f $W/r-2/$(basename $f) || bad=$((bad+1)); done
  echo "$label: $n files, $bad differ (2 GPUs vs 1)"
}
outflow='shallow-water.boundary={x="outflow",y="outflow"}'
same "column, Manning, outflow sides, 1 ghost row" shallow-water.manning=0.03 "$outflow" shallow-water.ghost_rows=1
same "column, Manning, outflow sides, 2 ghost rows" shallow-water.manning=0.03 "$outflow" shallow-water.ghost_rows=2
same "column (reflecting walls, no friction), 2 ghost rows" shallow-water.ghost_rows=2
same "column (walls, Manning), 2 ghost rows" shallow-water.manning=0.03 shallow-water.ghost_rows=2
same "column (outflow sides, no friction), 2 ghost rows" "$outflow" shallow-water.ghost_rows=2
