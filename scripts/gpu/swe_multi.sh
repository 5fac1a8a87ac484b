#!/usr/bin/env bash
# Shallow water on the GPUs of one host (2 GPUs or more; from the repository root, .gpu
# staged): one process driving every GPU (run.gpus = 2, NCCL between them), and one process
# per GPU under mpirun (.gpu/solver-mpi, where the machine's Open MPI can run it). Shows: the
# 2-GPU runs write the same files as the 1-GPU run (f64 and f32); strong scaling 2000^2, 4000^2, 8000^2 (f32, f64);
# the ghost-row exchange's cost and how much of it the overlap hides (CFD_SWE_EXCHANGE=serial /
# off against the default overlap); the paper's one-week run on 2 GPUs. NVLink multicast stays
# off (NCCL_NVLS_ENABLE=0). Results in $OUT (or .gpu/results). Knobs: SWE_SIZES (default
# 2000,4000,8000), SWE_EXCHANGE_SIZES (4000,8000), SWE_WEEK=0, SWE_MPI=0, SWE_CHECK=0, SWE_SAME=short
# (thacker, estuary and the ghost-cell expansion runs only). Ghost-cell expansion
# (shallow-water.ghost_rows = 2, 3): the same files as 1 GPU, and the 2-GPU 8000^2 speed with 2
# ghost rows against 1 (bench --set).
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export NCCL_NVLS_ENABLE=0
S=.gpu/solver
R=${OUT:-.gpu/results}
W=$(mktemp -d)
mkdir -p "$R"
status=0
fail() { echo "FAIL: $*"; status=1; }
nvidia-smi -L | tee "$R/swe-multi-devices.txt"

if [ "${SWE_CHECK:-1}" != 0 ]; then
  echo "== CPU vs CUDA (one GPU): shallow-water checks"
  $S check shallow-water 2>&1 | grep -v "grid halo" | tee "$R/swe-multi-check.txt" || fail "check"
fi

echo "== 2 GPUs write the same files as 1 GPU"
$S cases swe-thacker > "$W/thacker.toml"
$S cases swe-column > "$W/column.toml"
same() {  # name, case, sets...
  local name=$1 case=$2; shift 2
  local extra=()
  for s in "$@"; do extra+=(--set "$s"); done
  for p in f64 f32; do
    for g in 1 2; do
      $S run "$case" --backend cuda -q --set run.precision=$p --set run.gpus=$g "${extra[@]}" -o "$W/$name-$p-$g" \
        || fail "$name $p $g gpus"
    done
    n=0; bad=0
    for f in "$W/$name-$p-1"/*.vti; do
      n=$((n + 1)); cmp -s "$f" "$W/$name-$p-2/$(basename "$f")" || bad=$((bad + 1))
    done
    echo "$name $p: $n files, $bad differ" | tee -a "$R/swe-multi-same.txt"
    if [ "$bad" != 0 ] || [ "$n" -lt 2 ]; then
      fail "$name $p differs"
      python3 scripts/dev/swe_compare.py "$W/$name-$p-1" "$W/$name-$p-2" | tee -a "$R/swe-multi-same.txt"
    fi
  done
}
same thacker "$W/thacker.toml" "grid.dims=[400,300,1]" "output.interval=0.5" "time.end_time=2.0"
same column "$W/column.toml" "grid.dims=[500,401,1]" "shallow-water.manning=0.03" \
  "shallow-water.boundary={x=\"outflow\",y=\"outflow\"}"
if [ "${SWE_SAME:-all}" = all ]; then
# Where a 2-GPU f64 run differs: is one GPU repeatable, and which agrees with the CPU?
$S run "$W/column.toml" --backend cuda -q --set run.gpus=1 --set "grid.dims=[500,401,1]" --set shallow-water.manning=0.03 \
  --set "shallow-water.boundary={x=\"outflow\",y=\"outflow\"}" -o "$W/column-again" || fail "again"
$S run "$W/column.toml" --backend cpu -q --set "grid.dims=[500,401,1]" --set shallow-water.manning=0.03 \
  --set "shallow-water.boundary={x=\"outflow\",y=\"outflow\"}" -o "$W/column-cpu" || fail "cpu"
for other in column-again column-f64-2 column-cpu; do
  echo "column f64 1 GPU vs $other:" | tee -a "$R/swe-multi-same.txt"
  python3 scripts/dev/swe_compare.py "$W/column-f64-1" "$W/$other" | tee -a "$R/swe-multi-same.txt"
done
# (column-manning and column-outflow apart: dropped for the ghost-row runs' time; `column` has both.)
fi
$S cases swe-estuary > "$W/estuary.toml"
same estuary "$W/estuary.toml" "time.end_time=7200.0" "output.interval=2400.0"
# Ghost-cell expansion: 2 and 3 ghost rows exchanged every 2 and 3 steps (the 1-GPU run has none
# to exchange: the same files as with one ghost row).
for k in 2 3; do
  same "thacker-ghost$k" "$W/thacker.toml" "grid.dims=[400,300,1]" "output.interval=0.5" "time.end_time=2.0" \
    "shallow-water.ghost_rows=$k"
  same "column-ghost$k" "$W/column.toml" "grid.dims=[500,401,1]" "shallow-water.manning=0.03" \
    "shallow-water.boundary={x=\"outflow\",y=\"outflow\"}" "shallow-water.ghost_rows=$k"
done
# The tide (an open x side in the ghost rows too) and the river source near the slab boundary.
same estuary-ghost2 "$W/estuary.toml" "time.end_time=7200.0" "output.interval=2400.0" "shallow-water.ghost_rows=2"

sizes=${SWE_SIZES:-2000,4000,8000}
echo "== strong scaling: 1 and 2 GPUs ($sizes)"
$S bench shallow-water --sizes "$sizes" --steps 200 --json "$R/swe-scaling-1gpu.json" > "$W/scaling.txt" || fail "bench 1"
$S bench shallow-water --sizes "$sizes" --steps 200 --gpus 2 --json "$R/swe-scaling-2gpu.json" >> "$W/scaling.txt" || fail "bench 2"
echo "== the exchange, 2 GPUs: overlapped (above), serialized, skipped"
for mode in serial off; do
  CFD_SWE_EXCHANGE=$mode $S bench shallow-water --sizes "${SWE_EXCHANGE_SIZES:-4000,8000}" --steps 200 --gpus 2 \
    --json "$R/swe-exchange-$mode.json" >> "$W/scaling.txt" || fail "bench $mode"
done
echo "== ghost-cell expansion, 2 GPUs, 8000^2: 2 ghost rows exchanged every 2 steps (against 1 above)"
$S bench shallow-water --sizes 8000 --steps 200 --gpus 2 --set shallow-water.ghost_rows=2 \
  --json "$R/swe-ghost2-2gpu.json" >> "$W/scaling.txt" || fail "bench ghost 2"
if [ "${SWE_WEEK:-1}" != 0 ]; then
  echo "== the paper's one-week run on 2 GPUs (1000^2 f32, 50,000 steps measured)"
  $S bench shallow-water --sizes 1000 --steps 50000 --reps 1 --precision f32 --gpus 2 --json "$R/swe-week-2gpu.json" \
    >> "$W/scaling.txt" || fail "week 2 gpus"
fi
cat "$W/scaling.txt"
python3 scripts/dev/swe_scaling.py "$R" | tee -a "$R/swe-multi-same.txt"

echo "== one process per GPU: mpirun -np 2"
if [ "${SWE_MPI:-1}" != 0 ] && [ -x .gpu/solver-mpi ] && command -v mpirun >/dev/null; then
  ldd .gpu/solver-mpi | grep -E "mpi|not found" | tee "$R/swe-mpi.txt"
  for p in f64 f32; do
    mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH .gpu/solver-mpi run "$W/thacker.toml" --backend cuda -q \
      --set run.precision=$p --set "grid.dims=[400,300,1]" --set output.interval=0.5 --set time.end_time=2.0 -o "$W/thacker-$p-mpi" \
      2>&1 | tail -5 | tee -a "$R/swe-mpi.txt"
    n=0; bad=0
    for f in "$W/thacker-$p-1"/*.vti; do
      n=$((n + 1)); cmp -s "$f" "$W/thacker-$p-mpi/$(basename "$f")" || bad=$((bad + 1))
    done
    echo "mpirun -np 2 thacker $p: $n files, $bad differ from 1 GPU" | tee -a "$R/swe-mpi.txt"
  done
  # Ghost-cell expansion across processes: 2 ghost rows, f64, against the 1-GPU run.
  mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH .gpu/solver-mpi run "$W/thacker.toml" --backend cuda -q \
    --set run.precision=f64 --set "grid.dims=[400,300,1]" --set output.interval=0.5 --set time.end_time=2.0 \
    --set shallow-water.ghost_rows=2 -o "$W/thacker-ghost2-mpi" 2>&1 | tail -5 | tee -a "$R/swe-mpi.txt"
  n=0; bad=0
  for f in "$W/thacker-f64-1"/*.vti; do
    n=$((n + 1)); cmp -s "$f" "$W/thacker-ghost2-mpi/$(basename "$f")" || bad=$((bad + 1))
  done
  echo "mpirun -np 2 thacker f64, 2 ghost rows: $n files, $bad differ from 1 GPU" | tee -a "$R/swe-mpi.txt"
  [ "$bad" = 0 ] && [ "$n" -ge 2 ] || fail "mpirun ghost 2 differs"
else
  echo "SKIPPED: no .gpu/solver-mpi or no mpirun" | tee "$R/swe-mpi.txt"
fi
rm -rf "$W"
exit $status
