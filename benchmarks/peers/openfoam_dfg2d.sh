#!/usr/bin/env bash
# DFG 2D-2 (Schäfer & Turek 1996; periodic vortex shedding, Re = 100) with OpenFOAM's pimpleFoam
# on the slab mesh our `dfg-2d-2` template uses (meshes/channel2d.geo); prints Cd max, Cl max,
# St, Δp half a period after a lift maximum, mean Cd and the periods they rest on (statistics
# over t >= 5), against the benchmark's intervals (Cd max 3.22-3.24, Cl max 0.99-1.01, St
# 0.295-0.305, Δp 2.46-2.50), with pimpleFoam's wall and CPU time; the same as JSON in
# WORKDIR/openfoam-dfg2d.json.
#
#   benchmarks/peers/openfoam_dfg2d.sh [SIZE [WORKDIR]]     # SIZE: channel2d.geo's size, default 0.012
#                                                          # (72,519 tets; 0.02: 26,277)
#   MSH=mesh.msh benchmarks/peers/openfoam_dfg2d.sh - [WORKDIR]   # an existing Gmsh mesh (MSH 2.2
#                                   # ASCII, patches inlet, outlet, walls, cylinder, sides) instead
# Knobs (environment): END (end time, default 8), DT (time step, default 0.002), FROM (start of
# the statistics window, default 5).
#
# Channel 2.2 × 0.41, cylinder D = 0.1 centred at (0.2, 0.2), as a slab one tetrahedron thick
# (t = 0.01) whose sides z = 0, t are `symmetry` patches (the generic one: `symmetryPlane` wants one
# plane per patch and the two sides share a patch; `empty` needs one cell layer of prisms/hexes
# whose side faces pair up, not tetrahedra). Inlet u = 4 Um y (H − y) / H², Um = 1.5, H = 0.41
# (mean U = 1), set per inlet face at its centre; outlet p = 0; no-slip walls and cylinder; ν =
# 1e-3, ρ = 1. Cd = 2 F_x / (ρ U² D t), Cl = 2 F_y / (ρ U² D t), U = 1, D = 0.1 (forceCoeffs:
# magUInf 1, lRef 0.1, Aref 0.001); Δp = p(0.15, 0.2) − p(0.25, 0.2) from patchProbes (the
# cylinder face nearest each point, at z = t / 2).
# OpenFOAM: Debian's `openfoam` package (v1912). Mesh: gmsh -3 ... -format msh2 -> gmshToFoam.
# Schemes (dfg2d-case/system): backward (BDF2) in time, fixed dt 0.002 from rest to t = 8 (4000
# steps); Gauss linear gradients, Gauss linearUpwind grad(U) convection, Gauss linear limited
# corrected 0.5 Laplacian and snGrad (with the full correction the 72.5k-tet slab, faces at 72°,
# diverged at t = 0.1); PIMPLE with 2 outer correctors, 2 pressure correctors, 1 non-orthogonal corrector
# (the slabs have faces near 60-70°), no relaxation, GAMG for p (pFinal to 1e-7 absolute),
# symGaussSeidel for U (1e-8 absolute). Serial.
# Statistics (foam.py dfg2d-result, the definitions of our template): f from the lift's upward
# crossings of its mean over the window (whole periods between the first and last crossing over
# the time between them), St = f D / U; Δp linear in time at t0 + 1/(2f), t0 the last lift maximum
# in the window whose t0 + 1/(2f) still lies in it.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
P3=${PYTHON:-/usr/bin/python3}   # python3-numpy
SIZE=${1:-0.012}
W=${2:-$(mktemp -d)}
W=$(mkdir -p "$W" && cd "$W" && pwd)
END=${END:-8}
DT=${DT:-0.002}
FROM=${FROM:-5}
PY="$P3 $ROOT/benchmarks/peers/foam.py"
if ! command -v pimpleFoam > /dev/null || ! command -v gmshToFoam > /dev/null; then
  echo "OpenFOAM not found: apt-get install openfoam (Debian's v1912), then run this again" >&2
  exit 1
fi
export WM_PROJECT_DIR=${WM_PROJECT_DIR:-/usr/share/openfoam}   # all the Debian binaries need

if [ -n "${MSH:-}" ]; then
  echo "work directory $W; mesh $MSH"
  cp "$MSH" "$W/dfg2d.msh"
  SIZE=$(basename "$MSH")
else
  command -v gmsh > /dev/null || { echo "gmsh not found: apt-get install gmsh" >&2; exit 1; }
  echo "work directory $W; mesh size $SIZE"
  gmsh -3 "$ROOT/meshes/channel2d.geo" -setnumber size "$SIZE" -format msh2 -o "$W/dfg2d.msh" > "$W/log.gmsh" 2>&1
fi
C=$W/of
rm -rf "$C" && mkdir -p "$C"
cp -r "$ROOT/benchmarks/peers/dfg2d-case/." "$C/"
foamDictionary "$C/system/controlDict" -entry endTime -set "$END" > /dev/null
foamDictionary "$C/system/controlDict" -entry deltaT -set "$DT" > /dev/null
(cd "$C" && gmshToFoam "$W/dfg2d.msh" > log.gmshToFoam 2>&1)
for p in walls cylinder; do
  foamDictionary "$C/constant/polyMesh/boundary" -entry "entry0/$p/type" -set wall > /dev/null
done
foamDictionary "$C/constant/polyMesh/boundary" -entry "entry0/sides/type" -set symmetry > /dev/null
(cd "$C" && checkMesh > log.checkMesh 2>&1 || true)
grep -E "cells:|Max aspect|non-orthogonality Max|Max skewness|Mesh OK|Failed" "$C/log.checkMesh" | sed 's/^ */  checkMesh: /'
(cd "$C" && postProcess -func writeCellCentres -time 0 > log.cc 2>&1)
$PY dfg2d-inlet "$C" 1.5 0.41
rm -f "$C/0/C" "$C/0/Cx" "$C/0/Cy" "$C/0/Cz"
echo "pimpleFoam: dt $DT to t = $END ($(date -u +%H:%M:%S) UTC)"
start=$(date +%s.%N)
(cd "$C" && pimpleFoam > log.pimpleFoam 2>&1) || { echo "pimpleFoam failed: see $C/log.pimpleFoam" >&2; tail -30 "$C/log.pimpleFoam" >&2; exit 1; }
wall=$($P3 -c "import time; print('%.1f' % (time.time() - $start))")
grep "Courant Number" "$C/log.pimpleFoam" | tail -1 | sed 's/^/  last step: /'
cells=$(grep -m1 "cells:" "$C/log.checkMesh" | awk '{print $2}')
$PY dfg2d-result "$C" "$FROM" "$wall" > "$W/openfoam-dfg2d.json"

$P3 - "$SIZE" "$cells" "$DT" "$W/openfoam-dfg2d.json" << 'EOF'
import json, sys
size, cells, dt, path = sys.argv[1:]
r = json.load(open(path))
r.update(mesh=size, cells=int(cells), dt=float(dt), solver="OpenFOAM v1912 pimpleFoam")
json.dump(r, open(path, "w"), indent=1)
bounds = {"cd_max": (3.22, 3.24), "cl_max": (0.99, 1.01), "st": (0.295, 0.305),
          "dp_half_period_after_cl_max": (2.46, 2.50)}
def cell(k):
    v = r.get(k)
    if v is None:
        return "-"
    lo, hi = bounds[k]
    if lo <= v <= hi:
        return "**%.4f**" % v
    miss = (v - hi) / hi if v > hi else (v - lo) / lo
    return "%.4f (%+.1f %%)" % (v, 100 * miss)
print("\nDFG 2D-2, statistics over t in [%.3f, %.3f] (%d samples); bold: inside the interval" % (
    r["window"][0], r["window"][1], r["samples"]))
print("| solver | mesh | tets | dt | Cd max [3.22, 3.24] | Cl max [0.99, 1.01] | St [0.295, 0.305] | Δp [2.46, 2.50] | mean Cd | periods | wall s | CPU s |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
print("| %s | %s | %d | %s | %s | %s | %s | %s | %.4f | %d | %s | %s |" % (
    r["solver"], size, r["cells"], dt, cell("cd_max"), cell("cl_max"), cell("st"),
    cell("dp_half_period_after_cl_max"), r["cd_mean"], r["periods"], r["wall_seconds"], r["cpu_seconds"]))
print("  f %.4f Hz; t0 (lift maximum) %s; Δp at the window's largest lift + 1/(2f): %s; Cl min %.4f, mean %.4f; Cd min %.4f; "
      "Cd/Cl max from forces' total force: %.4f / %.4f; pimpleFoam ClockTime %s s" % (
    r["frequency"] or 0, r["cl_max_time"], r["dp_at_window_max"], r["cl_min"], r["cl_mean"], r["cd_min"],
    r["cd_max_from_force"], r["cl_max_from_force"], r["clock_seconds"]))
EOF
echo "  JSON: $W/openfoam-dfg2d.json"
