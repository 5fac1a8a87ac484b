#!/usr/bin/env bash
# DFG 3D-1Z (Schäfer & Turek 1996; steady, Re = 20) with OpenFOAM's simpleFoam and with our
# solver on the same Gmsh mesh; prints Cd, Cl, Δp and their errors against the reference
# values (Cd 6.18533, Cl 0.009401, Δp 0.171007).
#
#   benchmarks/peers/openfoam_dfg.sh [SIZE [WORKDIR]]     # SIZE: meshtool's --size, default 0.06 (28.3k tets; 0.04: 90.5k, 0.0267: 291k)
#   MSH=mesh.msh benchmarks/peers/openfoam_dfg.sh - [WORKDIR]   # an existing Gmsh mesh (MSH 2.2 ASCII, the
#                                                     # DFG patches inlet, outlet, walls, cylinder) instead
#
# Channel 2.5 × 0.41 × 0.41, cylinder D = 0.1 (axis z through (0.5, 0.2)); inlet
# U = 16 Um y z (H − y)(H − z) / H⁴, Um = 0.45, ν = 1e-3, ρ = 1; Cd = 2 F_x / (ρ Ū² D H),
# Ū = 0.2 (forceCoeffs: magUInf 0.2, Aref = D H = 0.041); Δp = p(0.45, 0.2, 0.205) −
# p(0.55, 0.2, 0.205), read with patchProbes (the value of the cylinder face nearest each point:
# the points lie on the true circle, outside the faceted mesh).
# OpenFOAM: Debian's `openfoam` package (v1912): apt-get install openfoam. Mesh: `meshtool
# generate cylinder --msh` (Gmsh through the API, saved as MSH 2.2) -> gmshToFoam. Schemes:
# steady, Gauss linear gradients, bounded Gauss linearUpwind grad(U) for convection, Gauss
# linear corrected Laplacian with 2 non-orthogonal correctors (the mesh has faces near 70°),
# SIMPLEC (consistent), U relaxed 0.9, until the initial residuals are below 1e-6 (p) and
# 1e-7 (U), at most 3000 iterations.
# Ours: `solver cases dfg-3d-1z` (skipped with a message where that template does not exist).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
P3=${PYTHON:-/usr/bin/python3}   # python3-numpy, python3-vtk9 (scripts/setup.sh)
SIZE=${1:-0.06}
W=${2:-$(mktemp -d)}
W=$(mkdir -p "$W" && cd "$W" && pwd)
MESHTOOL=${MESHTOOL:-${CARGO_TARGET_DIR:-$ROOT/target}/release/meshtool}
SOLVER=${SOLVER:-${CARGO_TARGET_DIR:-$ROOT/target}/release/solver}
PY="$P3 $ROOT/benchmarks/peers/foam.py"
if ! command -v simpleFoam > /dev/null || ! command -v gmshToFoam > /dev/null; then
  echo "OpenFOAM not found: apt-get install openfoam (Debian's v1912), then run this again" >&2
  exit 1
fi
export WM_PROJECT_DIR=${WM_PROJECT_DIR:-/usr/share/openfoam}   # all the Debian binaries need
[ -x "$MESHTOOL" ] || { echo "no $MESHTOOL: cargo build --release -p meshtool --features meshtool/gmsh" >&2; exit 1; }

if [ -n "${MSH:-}" ]; then
  echo "work directory $W; mesh $MSH"
  cp "$MSH" "$W/dfg.msh"
  "$MESHTOOL" prepare "$W/dfg.msh" -o "$W/dfg.pmesh" 2>&1 | tail -1
  SIZE=$(basename "$MSH")
else
  echo "work directory $W; mesh size $SIZE"
  "$MESHTOOL" generate cylinder --size "$SIZE" --msh "$W/dfg.msh" -o "$W/dfg.pmesh" 2>&1 | tail -1
fi
C=$W/of
rm -rf "$C" && mkdir -p "$C/system" "$C/constant" "$C/0"
cp -r "$ROOT/benchmarks/peers/dfg-case/system/." "$C/system/"
cp -r "$ROOT/benchmarks/peers/dfg-case/constant/." "$C/constant/"
cp "$ROOT/benchmarks/peers/dfg-case/0/p" "$C/0/p"
(cd "$C" && gmshToFoam "$W/dfg.msh" > log.gmshToFoam 2>&1)
for p in walls cylinder; do
  foamDictionary "$C/constant/polyMesh/boundary" -entry "entry0/$p/type" -set wall > /dev/null
done
(cd "$C" && checkMesh > log.checkMesh 2>&1 || true)
grep -E "cells:|Max aspect|non-orthogonality Max|Max skewness" "$C/log.checkMesh" | sed 's/^ */  checkMesh: /'
(cd "$C" && postProcess -func writeCellCentres -time 0 > log.cc 2>&1)
$PY dfg-inlet "$C" 0.45 0.41
rm -f "$C/0/C" "$C/0/Cx" "$C/0/Cy" "$C/0/Cz"
start=$(date +%s.%N)
(cd "$C" && simpleFoam > log.simpleFoam 2>&1)
wall=$($P3 -c "import time; print('%.1f' % (time.time() - $start))")
of=$($PY dfg-result "$C")
cells=$(grep -m1 "cells:" "$C/log.checkMesh" | awk '{print $2}')

ours=""
if "$SOLVER" cases dfg-3d-1z > "$W/dfg.toml" 2> /dev/null; then
  start=$(date +%s.%N)
  "$SOLVER" run "$W/dfg.toml" -q --set mesh="\"$W/dfg.pmesh\"" -o "$W/ours" > "$W/ours.log" 2>&1 || true
  owall=$($P3 -c "import time; print('%.1f' % (time.time() - $start))")
  [ -f "$W/ours/summary.json" ] && ours=$($P3 -c "import json; d = json.load(open('$W/ours/summary.json')); \
print(json.dumps({'cd': d['cd'], 'cl': d['cl'], 'dp': d['dp'], 'iterations': d.get('steps', 0), 'wall': $owall, 'backend': d.get('backend', '')}))") \
    || echo "our solver failed: see $W/ours.log" >&2
else
  echo "our solver has no dfg-3d-1z template yet: skipped" >&2
fi

$P3 - "$SIZE" "$cells" "$wall" "$of" "$ours" << 'EOF'
import json, sys
size, cells, wall, of, ours = sys.argv[1:]
ref = {"cd": 6.18533, "cl": 0.009401, "dp": 0.171007}
print("\n| solver | mesh size | cells | Cd | err | Cl | err | Δp | err | iterations | wall s |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
rows = [("OpenFOAM v1912 simpleFoam", json.loads(of), wall)]
if ours:
    o = json.loads(ours)
    rows.append(("ours (%s)" % o["backend"], o, o["wall"]))
for name, r, w in rows:
    e = {k: 100 * (r[k] - ref[k]) / ref[k] for k in ref}
    print("| %s | %s | %s | %.4f | %+.1f %% | %.5f | %+.0f %% | %.4f | %+.1f %% | %d | %s |" % (
        name, size, cells, r["cd"], e["cd"], r["cl"], e["cl"], r["dp"], e["dp"], r["iterations"], w))
print("| reference (Schäfer & Turek 1996) | | | 6.18533 | | 0.009401 | | 0.171007 | | | |")
EOF
