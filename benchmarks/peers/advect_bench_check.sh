#!/usr/bin/env bash
# Device run (carry .gpu/{solver,meshtool,duct.msh}): `solver bench advect` on the 1M-tet
# Hilbert-ordered box, `solver check advect` on the ~40k-tet duct, then the Voronoi
# interpolation per point (CFD_SL_GROUPS=0) on the same box, in one call. TAG names the file.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
R=${OUT:-/tmp/out}; mkdir -p "$R"; S=$PWD/.gpu/solver; W=$(mktemp -d)
{
.gpu/meshtool generate box --dims 55,55,55 --reorder hilbert -o "$W/box55-hilbert.pmesh" >/dev/null 2>&1
.gpu/meshtool prepare .gpu/duct.msh -o "$W/duct.pmesh" >/dev/null 2>&1
$S bench advect --mesh "$W/box55-hilbert.pmesh" --steps 20 --reps 2 2>&1
$S check advect --mesh "$W/duct.pmesh" 2>&1 | grep -E "advect:"
CFD_SL_GROUPS=0 $S bench advect --mesh "$W/box55-hilbert.pmesh" --only "bfecc+voronoi" --steps 20 --reps 2 2>&1 | grep advect
} 2>&1 | tee "$R/advect-${TAG:-run}.txt"
