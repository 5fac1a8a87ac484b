#!/usr/bin/env bash
# The test suite: installs what is missing, then runs every test on the CPU backend.
# GPU tests print SKIPPED when no CUDA device is present; CUDA kernels are still compiled
# with NVRTC (no GPU needed).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
source scripts/env.sh
cargo fmt --all -- --check
python3 scripts/dev/check_layout.py
python3 benchmarks/figures.py --check   # the table atop BENCHMARKS.md matches benchmarks/results/
cargo clippy --release --all-targets --features meshtool/gmsh,solver/mpi -q -- -D warnings
log=$(mktemp)
cargo test --release --features meshtool/gmsh,solver/mpi --workspace 2>&1 | tee "$log"
# Every GPU test and check runs on a GPU machine (scripts/gpu/stage.sh here, then bash .gpu/run.sh
# there); say so here.
if "$CFD_BIN/solver" devices | grep -q "^no CUDA devices"; then
  echo "GPU checks: SKIPPED on this machine ($("$CFD_BIN/solver" devices | sed 's/^no CUDA devices: //')); CUDA kernels were compiled with NVRTC above"
else
  "$CFD_BIN/solver" check all --steps 20
fi
# One closing line with the totals over every test binary.
awk '/^test result:/ { p += $4; f += $6 } END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
