#!/usr/bin/env bash
# Run every built-in template on the CPU (f64 and f32) on small shipped meshes and print a SHA-256 of
# each VTK/PVD file it writes: a refactoring of the solver must leave these unchanged.
# Usage: scripts/dev/template_hashes.sh [BIN_DIR] > hashes.txt   (BIN_DIR default $CARGO_TARGET_DIR/release, else target/release)
# The heat benchmark runs 20 steps instead of 2000 and the 3D Rayleigh-Taylor runs to t = 0.2 instead of
# 12, the Re 3900 cylinder to t = 2 and the 3D Taylor-Green vortex to t = 1 (minutes instead of
# hours on 2 cores). TEMPLATES="a b" runs only those templates.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/env.sh
B=$(realpath "${1:-$CFD_BIN}")
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
gmsh -3 meshes/duct.geo -format msh41 -bin -v 1 -o "$W/duct.msh"
"$B/meshtool" prepare "$W/duct.msh" -o "$W/duct.pmesh" >/dev/null 2>&1
"$B/meshtool" generate box --dims 12,12,12 -o "$W/box.pmesh" >/dev/null 2>&1
for t in ${TEMPLATES:-$("$B/solver" cases | awk '{print $1}')}; do
  "$B/solver" cases "$t" > "$W/$t.toml"
  extra=()
  [ "$t" = heat-benchmark ] && extra=(--set time.steps=20 --set output.every=10)
  case $t in euler-rt-3d*) extra=(--set time.end_time=0.2 --set output.interval=0.1) ;; esac
  [ "$t" = cylinder-re3900-les ] && extra=(--set time.end_time=2.0)
  [ "$t" = tgv-3d-les ] && extra=(--set time.end_time=1.0)
  for p in f64 f32; do
    # A refusal (Navier-Stokes runs in f64 only) is a line too: it must stay a refusal.
    if "$B/solver" run "$W/$t.toml" --backend cpu -q -o "$W/out-$t-$p" --set run.precision=$p "${extra[@]}" 2>"$W/err"; then
      (cd "$W/out-$t-$p" && sha256sum -- *.pvd *.vt? | sed "s|^|$t $p |")
    else
      echo "$t $p exit $? $(head -c 120 "$W/err")"
    fi
  done
done
