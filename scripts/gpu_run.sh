#!/usr/bin/env bash
# Run on the device machine from the repository root (carry .gpu): every CUDA check and
# benchmark, then a short table. Results also land in $OUT (or .gpu/results) as JSON/logs.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
S=.gpu/solver
R=${OUT:-.gpu/results}
mkdir -p "$R"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$R/device.txt"
$S devices
status=0
echo "== CPU vs CUDA agreement (benchmark cube, 100 steps)"
$S check heat --n 64 --steps 100 | tee "$R/check_heat.txt" || status=1
echo "== solver run on CUDA: heat templates against their exact solutions"
for c in heat-decay heat-gaussian heat-erfc; do
  $S cases $c > "$R/$c.toml"
  for v in register-queue naive; do
    $S run "$R/$c.toml" --backend cuda -q --set heat.kernel=$v -o "$R/run-$c-$v" || status=1
    python3 -c "import json;d=json.load(open('$R/run-$c-$v/summary.json'));print('$c $v', d['device'], 'errors', d.get('errors'))"
  done
done
echo "== benchmark"
$S bench heat --sizes ${BENCH_SIZES:-128,256,512} ${BENCH_EXTRA:---with-1024 --cpu} --steps ${BENCH_STEPS:-20} --json "$R/bench_heat.json" | tee "$R/bench_heat.txt" || status=1
echo
echo "================ summary ================"
cat "$R/check_heat.txt"
cat "$R/bench_heat.txt"
exit $status
