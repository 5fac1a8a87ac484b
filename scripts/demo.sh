#!/usr/bin/env bash
# The main job on shipped defaults: every family of the solver on a small case, each with its
# picture, in out/ (VTK series for ParaView, PNGs to look at straight away):
#   advection      the paper's duct step: a Gmsh mesh prepared by meshtool, BFECC + Voronoi
#   heat           the thesis cube (8th-order differences, RK3)
#   navier-stokes  DFG 2D-2, flow past a cylinder at Re 100 on the built-in coarse slab
#   euler          Toro's shock tube 1 and the 2D Riemann problem (four quadrants)
#   shallow-water  Ritter's dam break onto a dry bed
# plus the DFG cylinder channel meshed through the Gmsh API (out/cylinder.vtu).
# On a machine without a GPU the cases are reduced to take a few minutes on 2 cores; with a
# CUDA device (`solver devices`) the full-size templates run on it. FULL=1 or FULL=0 overrides.
# Pictures: python3-vtk9 resampling and numpy colouring for the 2D/3D fields
# (scripts/viz/render_slice.py, no OpenGL) and matplotlib for the 1D ones
# (scripts/viz/plot_line.py); both install beside the test suite's packages (ParaView's pvbatch
# is not needed).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
source scripts/env.sh
bin=$CFD_BIN
py=/usr/bin/python3
out=out
mkdir -p "$out"

if [ -z "${FULL:-}" ]; then
  if "$bin/solver" devices | grep -q "^no CUDA devices"; then FULL=0; else FULL=1; fi
fi
if [ "$FULL" = 1 ]; then backend=cuda; else backend=cpu; fi
echo "demo: $([ "$FULL" = 1 ] && echo "full-size templates on the GPU" || echo "reduced cases on the CPU") (FULL=$FULL)"

rows=()
# run_case NAME TEMPLATE [--set KEY=VALUE ...]: the template written to out/NAME.toml, run into
# out/NAME/ on the chosen backend, its wall time kept for the table.
run_case() {
  local name=$1 template=$2
  shift 2
  "$bin/solver" cases "$template" > "$out/$name.toml"
  local start
  start=$(date +%s.%N)
  "$bin/solver" run "$out/$name.toml" -o "$out/$name" --backend "$backend" "$@" | tail -1
  last_seconds=$($py -c "import time; print('%.1f' % (time.time() - $start))")
}
row() { rows+=("$(printf '%-14s %-22s %7s s  %s' "$1" "$2" "$3" "$4")"); }

# The DFG 3D channel through the Gmsh API, exported for ParaView.
"$bin/meshtool" generate cylinder --size 0.04 -o "$out/cylinder.pmesh"
"$bin/meshtool" export "$out/cylinder.pmesh" -o "$out/cylinder.vtu"

# Advection: the paper's test on a Gmsh mesh of the duct (30 + 30 steps at CFL 3).
gmsh -3 meshes/duct.geo -format msh41 -bin -v 1 -o "$out/duct.msh"
"$bin/meshtool" prepare "$out/duct.msh" -o "$out/duct.pmesh"
run_case advect-step advect-step --set output.every=30
$py scripts/viz/render_slice.py "$out/advect-step/advect-step.pvd" -o "$out/advect-step.png"
row advection advect-step "$last_seconds" "$out/advect-step.png"

# Heat: the thesis cube; on the CPU 64^3 and 200 steps.
if [ "$FULL" = 1 ]; then
  run_case heat-benchmark heat-benchmark --set output.every=0
else
  run_case heat-benchmark heat-benchmark --set 'grid.dims=[64,63,64]' --set time.steps=200 --set output.every=100
fi
$py scripts/viz/render_slice.py "$out/heat-benchmark/heat-benchmark.pvd" -o "$out/heat-benchmark.png" --field phi --axis z --width 400
row heat heat-benchmark "$last_seconds" "$out/heat-benchmark.png"

# Navier-Stokes: DFG 2D-2 on the built-in 4.4k-tetrahedron slab. The CPU run stops at t = 3.5
# with dt 0.005 (the wake has started to swing; shedding is periodic from t ~ 4); the full run
# is the benchmark's (t = 8, statistics over [5, 8], its four bounds checked in summary.json).
if [ "$FULL" = 1 ]; then
  run_case dfg-2d-2 dfg-2d-2 --set output.every=250
else
  run_case dfg-2d-2 dfg-2d-2 --set time.end_time=3.5 --set time.dt=0.005 --set output.every=350 --set navier-stokes.statistics.start=2.5
fi
$py scripts/viz/render_slice.py "$out/dfg-2d-2/dfg-2d-2.pvd" -o "$out/dfg-2d-2.png" --field velocity --axis z --width 1100
row navier-stokes dfg-2d-2 "$last_seconds" "$out/dfg-2d-2.png"

# Euler: Toro's test 1 (exact Riemann solver, MUSCL-Hancock) and the 2D Riemann problem
# (configuration of the Euler paper, 1000^2 on the GPU, 250^2 on the CPU).
run_case euler-toro-1 euler-toro-1 --set output.every=0
$py scripts/viz/plot_line.py "$out/euler-toro-1" --last -o "$out/euler-toro-1.png" --title "Toro test 1, t = 0.25"
row euler euler-toro-1 "$last_seconds" "$out/euler-toro-1.png"
if [ "$FULL" = 1 ]; then
  run_case euler-riemann-2d euler-riemann-2d
else
  run_case euler-riemann-2d euler-riemann-2d --set 'grid.dims=[250,250,1]'
fi
$py scripts/viz/render_slice.py "$out/euler-riemann-2d/euler-riemann-2d.pvd" -o "$out/euler-riemann-2d.png" --field density --axis z --width 500
row euler euler-riemann-2d "$last_seconds" "$out/euler-riemann-2d.png"

# Shallow water: Ritter's dam break onto a dry bed, depth and velocity at t = 0, 2, 4, 6.
run_case swe-dam-break-dry swe-dam-break-dry
$py scripts/viz/plot_line.py "$out/swe-dam-break-dry" -o "$out/swe-dam-break-dry.png" --fields depth,velocity --title "Ritter's dam break (dry bed)"
row shallow-water swe-dam-break-dry "$last_seconds" "$out/swe-dam-break-dry.png"

echo
printf '%-14s %-22s %9s  %s\n' family case wall picture
printf '%s\n' "${rows[@]}"
echo "demo: every run's VTK series is out/CASE/CASE.pvd (open it in ParaView), its figures in"
echo "      out/CASE/summary.json; the DFG channel mesh is out/cylinder.vtu"
