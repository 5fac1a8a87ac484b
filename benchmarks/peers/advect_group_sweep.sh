#!/usr/bin/env bash
# The Voronoi interpolation's group knobs swept on the GPU: `solver bench advect` of BFECC +
# Voronoi, f32 and f64, on the 1M-tet Hilbert-ordered box for each CFD_SL_GROUP_ENTRIES x
# CFD_SL_GROUP_THREADS x CFD_SL_GROUP_MIN_BLOCKS (0: none) of ENTRIES, THREADS and MINB, then
# (NCU=0 leaves it out) ncu's detailed sections (speed of light, warp states, occupancy, memory)
# of sl_group_interp and advect_departures launches with the defaults. On the GPU machine, from
# the repository root with .gpu/ staged (scripts/gpu/stage.sh: solver, meshtool):
#   bash benchmarks/peers/advect_group_sweep.sh    # results in $OUT (default /tmp/out)
# TAG names the files.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
R=${OUT:-/tmp/out}; mkdir -p "$R"; S=$PWD/.gpu/solver; W=$(mktemp -d); TAG=${TAG:-run}
.gpu/meshtool generate box --dims 55,55,55 --reorder hilbert -o "$W/box.pmesh" >/dev/null 2>&1
{
for e in ${ENTRIES:-128 176 256 352}; do for t in ${THREADS:-64 128 256}; do for b in ${MINB:-0}; do
  v=$(CFD_SL_GROUP_ENTRIES=$e CFD_SL_GROUP_THREADS=$t CFD_SL_GROUP_MIN_BLOCKS=$b $S bench advect --mesh "$W/box.pmesh" --only "bfecc+voronoi" \
      --precision ${PRECISIONS:-f32,f64} --steps 20 --reps ${REPS:-2} 2>&1 | awk '/advect/{printf "%s %s %s  ", $4, $7, $9}')
  echo "entries $e threads $t min-blocks $b: $v"
done; done; done
} 2>&1 | tee "$R/advect-sweep-$TAG.txt"
if [ "${NCU:-1}" = 1 ]; then
  /usr/local/cuda/bin/ncu --section SpeedOfLight --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis \
    --section SchedulerStats --section LaunchStats --section InstructionStats -k "regex:sl_group_interp|advect_departures" --launch-skip 8 --launch-count 3 \
    $S bench advect --mesh "$W/box.pmesh" --only "bfecc+voronoi" --precision f32 --steps 2 --reps 1 > "$R/ncu-detail-$TAG.txt" 2>&1
  grep -E "sl_group_interp|advect_departures|Stall|Throughput|Occupancy|Warp Cycles|Issued|Eligible|Bank|Registers|Shared Memory|Block Limit|L2 Hit|L1/TEX Hit" "$R/ncu-detail-$TAG.txt" | head -150
fi
