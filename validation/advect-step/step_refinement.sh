#!/usr/bin/env bash
# The paper's step test (advect-step: 30 + 30 steps at CFL 3) on the duct at three
# resolutions, for each interpolation: how the blur (relative L1 against the initial step)
# falls with the number of cells across the step. CPU; about a minute on 2 cores.
# Needs gmsh (scripts/setup.sh installs it) and the release binaries.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/env.sh
cargo build --release -q -p meshtool -p solver
W=${1:-$(mktemp -d)}
mkdir -p "$W"
S=$CFD_BIN/solver
$S cases advect-step > "$W/step.toml"
printf "%-8s %9s %-13s %9s %10s %10s\n" size cells interpolation "L1" final_min final_max
for size in 0.037 0.0262 0.0185; do
  [ -f "$W/duct$size.pmesh" ] || {
    gmsh -3 meshes/duct.geo -setnumber size $size -format msh41 -bin -v 1 -nt 2 -o "$W/duct$size.msh"
    "$CFD_BIN/meshtool" prepare "$W/duct$size.msh" -o "$W/duct$size.pmesh" > /dev/null 2>&1
  }
  for interp in quadratic voronoi voronoi-grad linear; do
    $S run "$W/step.toml" -q --set mesh="\"$W/duct$size.pmesh\"" --set advect.interpolation=$interp \
      --set output.every=0 -o "$W/out-$size-$interp"
    python3 -c "import json; d = json.load(open('$W/out-$size-$interp/summary.json')); \
print('%-8s %9d %-13s %8.1f%% %10.2e %10.4f' % ('$size', d['cells'], '$interp', 100 * d['errors']['l1'], d['final_min'], d['final_max']))"
  done
done
