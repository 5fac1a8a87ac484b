#!/usr/bin/env bash
# The main job on shipped defaults: prepare the DFG cylinder channel mesh (Gmsh API) and export
# it for ParaView, then run the heat benchmark case (thesis cube, reduced to 64^3 and 200 steps
# so it takes seconds on a CPU) writing a VTK time series. Output in out/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
mkdir -p out
bin=target/release
$bin/meshtool generate cylinder --size 0.04 -o out/cylinder.pmesh
$bin/meshtool info out/cylinder.pmesh
$bin/meshtool check out/cylinder.pmesh
$bin/meshtool export out/cylinder.pmesh -o out/cylinder.vtu
$bin/solver cases heat-benchmark > out/heat-benchmark.toml
$bin/solver run out/heat-benchmark.toml -o out/heat-benchmark \
  --set 'grid.dims=[64,64,64]' --set time.steps=200 --set output.every=50
echo "demo: open out/cylinder.vtu and out/heat-benchmark/heat-benchmark.pvd in ParaView"
