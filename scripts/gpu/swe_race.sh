#!/usr/bin/env bash
# Whether 2-GPU shallow-water runs repeat: the tank (f64, 500 x 401) on 1 GPU and twice on 2, with
# the exchange overlapped and serialized, with and without the pollutant, the files compared.
# On a host with 2 GPUs, from the repository root with .gpu staged (scripts/gpu/stage.sh).
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export NCCL_NVLS_ENABLE=0
S=${S:-.gpu/solver}; W=$(mktemp -d)
$S cases swe-column > $W/c.toml
cmpdirs() { local n=0 bad=0; for f in $1/*.vti; do n=$((n+1)); cmp -s $f $2/$(basename $f) || bad=$((bad+1)); done; echo "$n files, $bad differ"; }
run() { $S run $W/c.toml --backend cuda -q --set run.precision=f64 --set "grid.dims=[500,401,1]" "$@"; }
run --set run.gpus=1 -o $W/one
run --set run.gpus=2 -o $W/two-a
run --set run.gpus=2 -o $W/two-b
CFD_SWE_EXCHANGE=serial run --set run.gpus=2 -o $W/two-serial
run --set run.gpus=1 --set 'shallow-water.pollutant=[]' -o $W/one-np 2>&1 | tail -1
run --set run.gpus=2 --set 'shallow-water.pollutant=[]' -o $W/two-np 2>&1 | tail -1
echo "2 GPUs vs 2 GPUs (run to run): $(cmpdirs $W/two-a $W/two-b)"
echo "2 GPUs vs 1: $(cmpdirs $W/one $W/two-a)"
echo "2 GPUs serial exchange vs 1: $(cmpdirs $W/one $W/two-serial)"
echo "no pollutant, 2 GPUs vs 1: $(cmpdirs $W/one-np $W/two-np)"
python3 scripts/dev/swe_compare.py $W/one $W/two-a 2>&1 | tail -3
