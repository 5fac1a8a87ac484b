#!/usr/bin/env bash
# Install what a fresh Debian machine with Rust lacks, then build release binaries.
# Idempotent: re-running only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
pkgs=(libgmsh-dev gmsh python3-gmsh python3-numpy python3-vtk9 python3-matplotlib pkg-config libopenmpi-dev openmpi-bin libclang-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# NVRTC without a GPU, so CI can compile every CUDA kernel (PyPI wheel, no driver needed).
NVRTC_DIR="$CFD_TARGET/nvrtc"
if ! ls "$NVRTC_DIR"/nvidia/cu13/lib/libnvrtc.so* >/dev/null 2>&1 && ! ls "$NVRTC_DIR"/nvidia/cuda_nvrtc/lib/libnvrtc.so* >/dev/null 2>&1; then
  echo "setup: fetching NVRTC (PyPI nvidia-cuda-nvrtc 13.0) into $NVRTC_DIR"
  python3 -m pip install -q --disable-pip-version-check --target "$NVRTC_DIR" "nvidia-cuda-nvrtc==13.0.*" \
    || echo "setup: warning: NVRTC not installed; kernel compile checks will be skipped"
fi

echo "setup: building release binaries"
cargo build --release --features meshtool/gmsh,solver/mpi --bins -q
echo "setup: done ($CFD_BIN/meshtool, $CFD_BIN/solver)"
