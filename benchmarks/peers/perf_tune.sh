#!/usr/bin/env bash
# Device run for issue 10 item 5 (branch perf), from a folder holding .gpu/{solver,solver-before,
# meshtool,duct.msh} and benchmarks/peers: CPU-vs-CUDA checks of heat (each RY) and advect, the
# advect benchmark of main's binary and this one, heat at 512^3 by RY, and the peers.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
R=${OUT:-/tmp/out}; mkdir -p "$R"; W=$(mktemp -d)
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
if [ -x .gpu/solver ] && [ "${RUST:-1}" = 1 ]; then
  S=.gpu/solver; M=.gpu/meshtool
  $M generate box --dims 55,55,55 --reorder hilbert -o "$W/box55-hilbert.pmesh" 2>/dev/null
  $M prepare .gpu/duct.msh -o "$W/duct.pmesh" 2>&1 | tail -1
  {
  for ry in 1 2 4; do echo "== check heat RY=$ry"; CFD_HEAT_RY=$ry timeout 60 $S check heat 2>&1 | tail -n 12; done
  echo "== check advect"; timeout 120 $S check advect --mesh "$W/duct.pmesh" 2>&1 | tail -n 30
  } 2>&1 | tee "$R/checks.txt"
  {
  echo "== advect before (main)"; timeout 90 .gpu/solver-before bench advect --mesh "$W/box55-hilbert.pmesh" --steps 20 --reps 2 2>&1
  echo "== advect after (perf)"; timeout 90 $S bench advect --mesh "$W/box55-hilbert.pmesh" --steps 20 --reps 2 2>&1
  for ry in 1 2 4; do echo "== heat RY=$ry"; CFD_HEAT_RY=$ry timeout 90 $S bench heat --sizes 512 --only register --steps 20 --reps 3 2>&1; done
  echo "== heat before (main binary)"; timeout 90 .gpu/solver-before bench heat --sizes 512 --steps 20 --reps 3 2>&1
  } 2>&1 | tee "$R/bench.txt"
fi
echo "== peers (same run)"
timeout 150 python3 benchmarks/peers/heat_fd8_peers.py 2>&1 | tee "$R/peers.txt"
