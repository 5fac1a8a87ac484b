#!/usr/bin/env bash
# The main job on shipped defaults: mesh the channel with Gmsh, prepare it, and run the paper's
# advection test on it (BFECC + Voronoi, 30 + 30 steps at CFL 3) writing a VTU series; also the
# DFG cylinder channel through the Gmsh API (exported for ParaView) and the heat benchmark case
# (thesis cube, reduced to 64^3 and 200 steps so it takes seconds on a CPU). Output in out/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
mkdir -p out
bin=target/release
$bin/meshtool generate cylinder --size 0.04 -o out/cylinder.pmesh
$bin/meshtool info out/cylinder.pmesh
$bin/meshtool check out/cylinder.pmesh
$bin/meshtool export out/cylinder.pmesh -o out/cylinder.vtu
gmsh -3 meshes/duct.geo -format msh41 -bin -v 1 -o out/duct.msh
$bin/meshtool prepare out/duct.msh -o out/duct.pmesh
$bin/solver cases advect-step > out/advect-step.toml
$bin/solver run out/advect-step.toml -o out/advect-step --set output.every=30
# The middle plane at steps 0, 30, 60 as a picture (like the paper's fig. 3), headless.
/usr/bin/python3 scripts/render_slice.py out/advect-step/advect-step.pvd -o out/advect-step.png
$bin/solver cases heat-benchmark > out/heat-benchmark.toml
$bin/solver run out/heat-benchmark.toml -o out/heat-benchmark \
  --set 'grid.dims=[64,63,64]' --set time.steps=200 --set output.every=100
/usr/bin/python3 scripts/render_slice.py out/heat-benchmark/heat-benchmark.pvd -o out/heat-benchmark.png --field phi --axis z --width 400
echo "demo: open out/advect-step/advect-step.pvd, out/cylinder.vtu and out/heat-benchmark/heat-benchmark.pvd in ParaView; out/advect-step.png and out/heat-benchmark.png show them (middle plane, colour bar, time of each frame)"
