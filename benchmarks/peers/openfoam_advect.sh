#!/usr/bin/env bash
# The paper's advection test (30 steps forward at CFL 3, 30 back) with OpenFOAM's
# scalarTransportFoam and with our solver on the same Gmsh meshes of meshes/duct.geo; prints
# one markdown table: relative L1 = Σ V|φ − φ₀| / Σ V|φ₀|, min, max, total-mass change.
#
#   benchmarks/peers/openfoam_advect.sh [WORKDIR]
#   SIZES="0.037 0.0262 0.0185"   Gmsh mesh sizes (39,980 / 109k / 308k tets)
#   SCHEMES="upwind-euler lu-euler lu-cn ..."   OpenFOAM schemes (all below by default)
#   PROFILES="step sine-ellipse"  OURS="quadratic voronoi-grad voronoi"
#   LIMIT=900                     seconds a scheme may take for one leg before it is skipped
#
# OpenFOAM: Debian's `openfoam` package (v1912): apt-get install openfoam; everything else is
# what scripts/setup.sh installs (gmsh, python3-numpy, python3-vtk9). DT = 0; the profile is set
# at the cell centres (postProcess -func writeCellCentres; foam.py); U = (1, 0, 0) for 30 of our
# steps' time (ours: dt = 3 h, h = mean cell volume / mean face area, from our summary.json),
# then (−1, 0, 0) for as long (a restart with U reversed and phi recomputed); T inletOutlet 0
# at inlet and outlet, zero gradient on the walls. Our side: `solver run` of the advect-step /
# advect-sine-ellipse templates on the same .msh through `meshtool prepare`.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
P3=${PYTHON:-/usr/bin/python3}   # python3-numpy, python3-vtk9 (scripts/setup.sh)
W=${1:-$(mktemp -d)}
W=$(mkdir -p "$W" && cd "$W" && pwd)
SIZES=${SIZES:-0.037 0.0262 0.0185}
SCHEMES=${SCHEMES:-upwind-euler lu-euler lu-cn dc-superbee muscl-euler lu-backward lu-cn-small}
PROFILES=${PROFILES:-step sine-ellipse}
OURS=${OURS:-quadratic voronoi-grad voronoi}
LIMIT=${LIMIT:-900}
MESHTOOL=${MESHTOOL:-${CARGO_TARGET_DIR:-$ROOT/target}/release/meshtool}
SOLVER=${SOLVER:-${CARGO_TARGET_DIR:-$ROOT/target}/release/solver}
PY="$P3 $ROOT/benchmarks/peers/foam.py"
if ! command -v scalarTransportFoam > /dev/null || ! command -v gmshToFoam > /dev/null; then
  echo "OpenFOAM not found: apt-get install openfoam (Debian's v1912), then run this again" >&2
  exit 1
fi
export WM_PROJECT_DIR=${WM_PROJECT_DIR:-/usr/share/openfoam}   # all the Debian binaries need
for b in "$MESHTOOL" "$SOLVER"; do
  [ -x "$b" ] || { echo "no $b: cargo build --release -p solver -p meshtool --features meshtool/gmsh" >&2; exit 1; }
done
ROWS=$W/rows.txt
: > "$ROWS"

# scheme -> "divScheme|ddtScheme|dt divisor k": OpenFOAM takes 30 k steps of our dt / k a leg
# (k = 1: our own step; SuperBee, MUSCL, backward and lu-cn-small at smaller steps)
scheme() {
  case $1 in
    upwind-euler) echo "Gauss upwind|Euler|1" ;;
    lu-euler) echo "Gauss linearUpwind grad(T)|Euler|1" ;;
    lu-cn) echo "Gauss linearUpwind grad(T)|CrankNicolson 0.9|1" ;;
    dc-superbee) echo "Gauss deferredCorrection SuperBee|Euler|34" ;;
    muscl-euler) echo "Gauss MUSCL|Euler|36" ;;
    lu-backward) echo "Gauss linearUpwind grad(T)|backward|6" ;;
    lu-cn-small) echo "Gauss linearUpwind grad(T)|CrankNicolson 0.9|34" ;;
    *) echo "unknown scheme $1" >&2; exit 2 ;;
  esac
}

# base case: mesh, cell centres and volumes
base_case() { # SIZE
  local b=$W/of$1/base
  [ -f "$b/0/V" ] && return
  rm -rf "$b" && mkdir -p "$b/0" && cp -r "$ROOT/benchmarks/peers/advect-case/system" "$ROOT/benchmarks/peers/advect-case/constant" "$b/"
  (cd "$b" && gmshToFoam "$W/duct$1.msh" > log.gmshToFoam 2>&1)
  velocity "$b" "(1 0 0)"
  (cd "$b" && postProcess -funcs '(writeCellCentres writeCellVolumes)' -time 0 > log.cc 2>&1)
}

velocity() { # CASE_TIME_DIR_PARENT VECTOR [TIME]
  local d=$1/${3:-0}
  sed "s/VALUE/$2/g" "$ROOT/benchmarks/peers/advect-case/U" > "$d/U"
  rm -f "$d/phi"
}

# one leg of scalarTransportFoam: CASE END_TIME WRITE_EVERY DT; prints the wall seconds
leg() {
  local c=$1
  sed -i -e "s/^endTime .*/endTime $2;/" -e "s/^writeInterval .*/writeInterval $3;/" -e "s/^deltaT .*/deltaT $4;/" "$c/system/controlDict"
  local t0=$(date +%s.%N)
  (cd "$c" && timeout "$LIMIT" scalarTransportFoam >> log.scalarTransportFoam 2>&1) || return 1
  $P3 -c "import time; print('%.1f' % (time.time() - $t0))"
}

latest() { ls "$1" | grep -E '^[0-9.e+-]+$' | sort -g | tail -1; }

run_foam() { # SIZE PROFILE SCHEME DT_OURS
  local spec div ddt k c dt n t1 w1 w2 last
  spec=$(scheme "$3"); div=${spec%%|*}; ddt=${spec#*|}; ddt=${ddt%|*}; k=${spec##*|}
  c=$W/of$1/$2-$3
  rm -rf "$c" && mkdir -p "$c/0" && cp -r "$W/of$1/base/system" "$c/" && mkdir -p "$c/constant"
  ln -s "$W/of$1/base/constant/polyMesh" "$c/constant/polyMesh"
  cp "$W/of$1/base/constant/transportProperties" "$c/constant/"
  cp "$W/of$1/base/0/C" "$W/of$1/base/0/V" "$c/0/"
  sed -i -e "s/DIV/$div/" -e "s/DDT/$ddt/" "$c/system/fvSchemes"
  $PY advect-init "$c" "$2"
  velocity "$c" "(1 0 0)"
  dt=$($P3 -c "print('%.12g' % ($4 / $k))"); n=$((30 * k))
  t1=$($P3 -c "print('%.12g' % ($n * $dt))")
  if ! w1=$(leg "$c" "$t1" "$n" "$dt"); then
    echo "| $1 | $2 | OpenFOAM $3 ($ddt, $div, dt ours/$k) | failed or over $LIMIT s: $c/log.scalarTransportFoam | | | | |" >> "$ROWS"; return
  fi
  # The second leg starts again from time 0 (a restart from the first leg's time directory can
  # fail: OpenFOAM may name it with more digits than it reads back) with U reversed.
  last=$(latest "$c"); mv "$c/0" "$c/initial"; mkdir "$c/0"
  cp "$c/$last/T" "$c/initial/C" "$c/initial/V" "$c/0/"; rm -rf "$c/$last"; velocity "$c" "(-1 0 0)"
  if ! w2=$(leg "$c" "$t1" "$n" "$dt"); then
    echo "| $1 | $2 | OpenFOAM $3 ($ddt, $div, dt ours/$k) | failed or over $LIMIT s: $c/log.scalarTransportFoam | | | | |" >> "$ROWS"; return
  fi
  cp "$c/initial/T" "$c/0/T0"
  $PY advect-error "$c" 0/T0 "$(latest "$c")/T" | $P3 -c "import json, sys; d = json.load(sys.stdin); \
print('| $1 | $2 | OpenFOAM $3 ($ddt, $div, dt ours/$k) | %.1f %% | %.3g | %.4f | %+.2e | %.0f |' % (100 * d['l1'], d['min'], d['max'], d['mass_change'], $w1 + $w2))" >> "$ROWS"
}

run_ours() { # SIZE PROFILE INTERP; prints our dt
  local o=$W/ours$1/$2-$3
  mkdir -p "$W/ours$1"
  "$SOLVER" cases "advect-$2" > "$W/advect-$2.toml"
  "$SOLVER" run "$W/advect-$2.toml" -q --backend cpu --set mesh="\"$W/duct$1.pmesh\"" \
    --set advect.interpolation="$3" --set output.every=60 -o "$o" > "$o.log" 2>&1
  $P3 "$ROOT/benchmarks/peers/vtu_mass.py" "$o" | $P3 -c "import json, sys; m = json.load(sys.stdin); \
d = json.load(open('$o/summary.json')); \
print('| $1 | $2 | ours: BFECC + limiter, $3 (CPU) | %.1f %% | %.3g | %.4f | %+.2e | %.1f |' % (100 * d['errors']['l1'], d['final_min'], d['final_max'], m['mass_change'], d['wall_seconds']))" >> "$ROWS"
  $P3 -c "import json; print(json.load(open('$o/summary.json'))['dt'])"
}

for s in $SIZES; do
  [ -f "$W/duct$s.msh" ] || gmsh -3 "$ROOT/meshes/duct.geo" -setnumber size "$s" -format msh22 -v 1 -nt 2 -o "$W/duct$s.msh"
  [ -f "$W/duct$s.pmesh" ] || "$MESHTOOL" prepare "$W/duct$s.msh" -o "$W/duct$s.pmesh" > /dev/null 2>&1
  base_case "$s"
  cells=$(grep -m1 -A1 '^internalField' "$W/of$s/base/0/V" | tail -1 | tr -d ' ')
  echo "size $s: $cells cells" >&2
  for p in $PROFILES; do
    dt=""
    for i in $OURS; do dt=$(run_ours "$s" "$p" "$i"); done
    for k in $SCHEMES; do run_foam "$s" "$p" "$k" "$dt"; echo "  $s $p $k done" >&2; done
  done
  sed -i "s/^| $s |/| $s ($cells) |/" "$ROWS"
done

echo
echo "| Gmsh size (tets) | profile | solver / scheme | relative L1 | min | max | mass change | wall s |"
echo "|---|---|---|---|---|---|---|---|"
cat "$ROWS"
