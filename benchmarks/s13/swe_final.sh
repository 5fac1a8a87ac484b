#!/usr/bin/env bash
# Shallow water's CUDA ghost rows by the grid layer's exchange: 1 GPU vs 2 GPUs (and mpirun),
# byte for byte, and the 8000^2 f32 speed-up, 1 and 2 GPUs in this call.
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}" NCCL_NVLS_ENABLE=0
S=.gpu29/solver; W=$(mktemp -d)
nvidia-smi -L
same() {
  local name=$1 template=$2 p=$3; shift 3; local extra=(); for s in "$@"; do extra+=(--set "$s"); done
  $S cases $template > $W/case.toml
  for g in 1 2; do $S run $W/case.toml --backend cuda -q --set run.precision=$p --set run.gpus=$g "${extra[@]}" -o $W/$name-$p-$g || echo "FAIL $name $g"; done
  if [ -n "${MPI:-}" ]; then
    mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH .gpu29/solver-mpi run $W/case.toml --backend cuda -q --set run.precision=$p "${extra[@]}" -o $W/$name-$p-mpi 2>&1 | tail -2
  fi
  for o in 2 mpi; do
    [ -d $W/$name-$p-$o ] || continue
    n=0; bad=0; for f in $W/$name-$p-1/*.vti; do n=$((n+1)); cmp -s $f $W/$name-$p-$o/$(basename $f) || bad=$((bad+1)); done
    echo "$name $p: 1 GPU vs $o: $n files, $bad differ"
  done
}
MPI=1 same thacker swe-thacker f64 "grid.dims=[400,300,1]" "time.end_time=2.0" "output.interval=0.5"
same thacker swe-thacker f32 "grid.dims=[400,300,1]" "time.end_time=2.0" "output.interval=0.5"
same thacker-ghost3 swe-thacker f64 "grid.dims=[400,300,1]" "time.end_time=2.0" "output.interval=0.5" "shallow-water.ghost_rows=3"
same estuary-ghost2 swe-estuary f64 "time.end_time=7200.0" "output.interval=2400.0" "shallow-water.ghost_rows=2"
same column swe-column f32 "grid.dims=[500,401,1]" "shallow-water.manning=0.03" 'shallow-water.boundary={x="outflow",y="outflow"}'
for g in 1 2; do $S bench shallow-water --sizes 8000 --precision f32 --gpus $g --steps 100 --reps 2 2>&1 | tail -1; done
