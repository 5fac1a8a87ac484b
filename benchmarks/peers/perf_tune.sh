#!/usr/bin/env bash
# Device tuning run for issue 10 item 5 (branch perf): the heat stage variants through CuPy
# (heat_tune.py), then the Rust binaries (.gpu/solver this branch, .gpu/solver-before main):
# CPU-vs-CUDA checks of heat (each RY) and advect, and the advect benchmark before/after.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
R=${OUT:-/tmp/out}; mkdir -p "$R"; W=$(mktemp -d)
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
T=benchmarks/peers/heat_tune.py
F32=${F32:-64x4x1x4,64x4x1x6,64x4x2x4,64x4x2x3,64x4x4x2,64x4x4x3,32x8x1x4,32x8x2x4,32x4x2x8,32x4x4x6,64x8x2x2,32x8x4x2,128x4x2x2}
F64=${F64:-64x4x1x4,64x4x2x4,64x4x2x3,64x4x4x2,32x8x2x4,32x4x2x8,32x4x4x4,64x8x2x2,32x8x1x4}
if [ "${HEAT:-1}" = 1 ]; then
  timeout 150 python3 $T 512 f32 $F32 20 2>&1 | tee "$R/heat-tune-f32.txt"
  timeout 120 python3 $T 512 f64 $F64 20 2>&1 | tee "$R/heat-tune-f64.txt"
fi
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
  echo "== heat naive + register-queue, default RY"; timeout 90 .gpu/solver-before bench heat --sizes 512 --steps 20 --reps 3 2>&1
  } 2>&1 | tee "$R/bench.txt"
fi
echo "== peers (same run)"
timeout 150 python3 benchmarks/peers/heat_fd8_peers.py 2>&1 | tee "$R/peers.txt"
