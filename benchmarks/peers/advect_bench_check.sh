#!/usr/bin/env bash
# The advection benchmark and checks on the GPU: `solver bench advect` on the 1M-tet
# Hilbert-ordered box (BFECC + Voronoi also by .gpu/solver-base where staged, the build to
# compare with), `solver check` of the families on tetrahedra on the ~40k-tet duct (CHECKS,
# default "advect"), the Voronoi interpolation per point (CFD_SL_GROUPS=0) on the same box, and
# with NCU=1 the kernels of two BFECC + Voronoi f32 steps under ncu. On the GPU machine, from the
# repository root with .gpu/ staged (scripts/gpu/stage.sh: solver, meshtool, duct.msh; BASE=REV
# adds solver-base):
#   bash benchmarks/peers/advect_bench_check.sh    # results in $OUT (default /tmp/out)
# TAG names the files.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
R=${OUT:-/tmp/out}; mkdir -p "$R"; S=$PWD/.gpu/solver; W=$(mktemp -d); TAG=${TAG:-run}
{
nvidia-smi --query-gpu=name --format=csv,noheader
.gpu/meshtool generate box --dims 55,55,55 --reorder hilbert -o "$W/box55-hilbert.pmesh" >/dev/null 2>&1
.gpu/meshtool prepare .gpu/duct.msh -o "$W/duct.pmesh" >/dev/null 2>&1
echo "== bench advect (this build)"
$S bench advect --mesh "$W/box55-hilbert.pmesh" --steps 20 --reps 2 --json "$R/advect-$TAG.json" 2>&1
if [ -x .gpu/solver-base ]; then
  echo "== bench advect (solver-base, same run)"
  .gpu/solver-base bench advect --mesh "$W/box55-hilbert.pmesh" --only "bfecc+voronoi" --steps 20 --reps 2 2>&1 | grep advect
fi
for fam in ${CHECKS:-advect}; do
  echo "== check $fam (duct)"
  $S check $fam --mesh "$W/duct.pmesh" 2>&1 | grep -E "$fam:|PASS|FAIL" | grep -v "^$"
done
echo "== per point (CFD_SL_GROUPS=0)"
CFD_SL_GROUPS=0 $S bench advect --mesh "$W/box55-hilbert.pmesh" --only "bfecc+voronoi" --steps 20 --reps 2 2>&1 | grep advect
} 2>&1 | tee "$R/advect-$TAG.txt"
if [ "${NCU:-0}" = 1 ]; then
  /usr/local/cuda/bin/ncu --metrics gpu__time_duration.sum,sm__inst_executed.sum,l1tex__t_sectors.sum,dram__bytes.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
    -k "regex:advect_departures|sl_group|sl_correct|sl_limit" --launch-skip 20 --launch-count 30 --csv \
    $S bench advect --mesh "$W/box55-hilbert.pmesh" --only "bfecc+voronoi" --precision f32 --steps 2 --reps 1 > "$R/ncu-advect-$TAG.csv" 2>&1
  echo "ncu: $(grep -c gpu__time_duration "$R/ncu-advect-$TAG.csv") kernels in ncu-advect-$TAG.csv"
fi
