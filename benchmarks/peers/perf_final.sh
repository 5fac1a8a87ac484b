#!/usr/bin/env bash
# Device run for issue 10 item 5 (the existing kernels at the limit), from the repository root
# with .gpu/{solver,solver-before,meshtool} carried (solver-before: the build to compare with):
# sweep the heat register-queue kernel's knobs through the solver's environment overrides
# (CFD_HEAT_TILE, CFD_HEAT_RY, CFD_HEAT_MINB, CFD_HEAT_VX) at 512^3 and take the fastest per
# precision (SWEEP=0: the binary's defaults), then in one run: `solver bench heat` f32 and f64,
# the same benchmark of solver-before, `solver check heat`, `solver bench advect` of both
# binaries on the 1M-tet Hilbert box (ADVECT=0 leaves it out) and the JAX/CuPy peers.
# Configurations are TILE:RY:MINB[:VX]; TAG names the output files.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
R=${OUT:-/tmp/out}; mkdir -p "$R"; W=$(mktemp -d); S=.gpu/solver; M=.gpu/meshtool
TAG=${TAG:-h100-2026-11-23-perf}
F32=${F32:-"64x4:2:4 64x4:2:3 64x4:2:2 32x8:2:4 32x8:2:3 32x4:2:8 32x4:2:6 64x8:2:2 128x4:2:2 64x4:3:3 64x4:1:6"}
F64=${F64:-"64x4:1:4 64x4:2:3 64x4:2:2 32x8:2:2 32x8:2:3 32x4:2:4 32x4:2:6 64x8:1:2 128x4:1:2"}
sweep() {  # precision, configs -> best config on stdout, table on stderr
  local p=$1; shift; local best="" bv=0
  for c in "$@"; do
    IFS=: read -r tile ry minb vx <<<"$c"
    v=$(CFD_HEAT_TILE=$tile CFD_HEAT_RY=$ry CFD_HEAT_MINB=$minb CFD_HEAT_VX=${vx:-1} timeout 40 $S bench heat --sizes 512 --only register \
        --precision $p --steps 20 --reps 2 2>&1 | awk '/register-queue/{print $7, $9}')
    echo "$p tile $tile RY $ry MINB $minb VX ${vx:-1}: $v" >&2
    u=${v%% *}; [ -n "$u" ] && python3 -c "import sys; sys.exit(0 if float('$u') > $bv else 1)" && { bv=$u; best=$c; }
  done
  echo "$best"
}
if [ "${SWEEP:-1}" = 1 ]; then
  { b32=$(sweep f32 $F32); b64=$(sweep f64 $F64); echo "best f32 $b32 f64 $b64"; } 2>&1 | tee "$R/heat-sweep-$TAG.txt"
  b32=$(awk '/^best/{print $3}' "$R/heat-sweep-$TAG.txt"); b64=$(awk '/^best/{print $5}' "$R/heat-sweep-$TAG.txt")
else  # SWEEP=0: the binary's defaults, and the files named -defaults
  b32=""; b64=""; TAG=$TAG-defaults
fi
env_of() { [ -z "${1:-}" ] && { echo "CFD_HEAT_DEFAULTS=1"; return; }; IFS=: read -r tile ry minb vx <<<"$1"; echo "CFD_HEAT_TILE=$tile CFD_HEAT_RY=$ry CFD_HEAT_MINB=$minb CFD_HEAT_VX=${vx:-1}"; }
$M generate box --dims 55,55,55 --reorder hilbert -o "$W/box55-hilbert.pmesh" 2>/dev/null
{
echo "== final, one run. heat f32 with $(env_of $b32)"
env $(env_of $b32) $S bench heat --sizes 512 --precision f32 --steps 20 --reps 3 --json "$R/heat-f32-$TAG.json" 2>&1
echo "== heat f64 with $(env_of $b64)"
env $(env_of $b64) $S bench heat --sizes 512 --precision f64 --steps 20 --reps 3 --json "$R/heat-f64-$TAG.json" 2>&1
echo "== heat before (main binary)"
.gpu/solver-before bench heat --sizes 512 --only register --steps 20 --reps 3 2>&1
echo "== checks with the chosen knobs"
env $(env_of $b32) $S check heat 2>&1 | grep "heat:"
env $(env_of $b64) $S check heat 2>&1 | grep "heat:"
if [ "${ADVECT:-1}" = 1 ]; then
echo "== advect before (main binary)"
.gpu/solver-before bench advect --mesh "$W/box55-hilbert.pmesh" --steps 20 --reps 2 2>&1
echo "== advect after (perf)"
$S bench advect --mesh "$W/box55-hilbert.pmesh" --steps 20 --reps 2 --json "$R/advect-$TAG.json" 2>&1
fi
echo "== peers (same run)"
timeout 150 python3 benchmarks/peers/heat_fd8_peers.py 2>&1
} 2>&1 | tee "$R/final-$TAG.txt"
