#!/usr/bin/env bash
# The final build (HEAD) on 2 GPUs: 1 GPU vs 2 GPUs, byte for byte, three families.
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}" NCCL_NVLS_ENABLE=0
S=.gpu29/solver; W=$(mktemp -d)
nvidia-smi -L
for t in "euler-rt-3d f32 time.end_time=1.0" "heat-benchmark f64 grid.dims=[64,63,64] time.steps=100 output.every=50" "swe-thacker f64 grid.dims=[400,300,1] time.end_time=1.0 output.interval=0.5"; do
  set -- $t; name=$1 p=$2; shift 2; extra=(); for s in "$@"; do extra+=(--set "$s"); done
  $S cases $name > $W/$name.toml
  for g in 1 2; do $S run $W/$name.toml --backend cuda -q --set run.precision=$p --set run.gpus=$g "${extra[@]}" -o $W/$name-$g || echo "FAIL $name $g"; done
  n=0; bad=0; for f in $W/$name-1/*.vti; do n=$((n+1)); cmp -s $f $W/$name-2/$(basename $f) || bad=$((bad+1)); done
  echo "$name $p: 1 GPU vs 2: $n files, $bad differ"
done
