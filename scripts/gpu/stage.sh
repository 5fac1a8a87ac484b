#!/usr/bin/env bash
# Build release binaries here (no GPU needed) and stage them in .gpu/ for the device machine,
# which has the NVIDIA driver and CUDA (libnvrtc) but no Rust toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
# One process per GPU under mpirun needs the MPI build (it links the host's libmpi.so.40).
cargo build --release -q -p solver --bin solver --features mpi
mkdir -p .gpu
cp "$CFD_BIN/solver" .gpu/solver-mpi
strip .gpu/solver-mpi
cargo build --release -q -p solver --bin solver
cargo build --release -q -p meshtool --bin meshtool   # without the gmsh feature: no libgmsh there
mkdir -p .gpu
cp "$CFD_BIN/solver" "$CFD_BIN/meshtool" .gpu/
strip .gpu/solver .gpu/meshtool   # debug info stays here; the carry limit is 64 MiB
cp scripts/gpu_run.sh scripts/gpu_euler.sh scripts/gpu_swe.sh scripts/gpu_swe_multi.sh scripts/gpu_cg.sh scripts/gpu_ns.sh scripts/gpu_dfg_family.sh scripts/gpu_dfg2d.sh scripts/gpu_swe_pollutant.sh scripts/gpu_latency.sh scripts/swe_regress.sh scripts/swe_split.sh scripts/swe_race.sh scripts/gpu_parts.sh .gpu/
# The advection test mesh (Gmsh is not on the device): the ~40k-tet duct, binary MSH 4.1.
[ -f .gpu/duct.msh ] || gmsh -3 meshes/duct.geo -format msh41 -bin -v 1 -o .gpu/duct.msh
# A ~1M-tet Gmsh mesh of the DFG channel, for the advection benchmark's reordering comparison.
[ "${STAGE_NS:-0}" = 1 ] || [ -f .gpu/channel-1m.msh ] || gmsh -3 meshes/channel.geo -setnumber size 0.0122 -format msh41 -bin -v 1 -nt 2 -o .gpu/channel-1m.msh
# STAGE_NS=1: the DFG meshes of the Navier-Stokes runs (VALIDATION.md), the 3D channel at 274k
# tets (gpu_dfg_family.sh) and the 2D-2 slab at 72.5k (gpu_dfg2d.sh), instead of the 1M-tet
# channel (the carry holds 64 MiB).
if [ "${STAGE_NS:-0}" = 1 ]; then
  rm -f .gpu/channel-1m.msh
  [ -f .gpu/dfg-274k.msh ] || gmsh -3 meshes/channel.geo -setnumber size 0.0273 -format msh41 -bin -v 1 -nt 2 -o .gpu/dfg-274k.msh
  [ -f .gpu/dfg2d-73k.msh ] || gmsh -3 meshes/channel2d.geo -setnumber size 0.012 -format msh41 -bin -v 1 -o .gpu/dfg2d-73k.msh
fi
echo "staged: $(ls .gpu | tr '\n' ' ')"
