#!/usr/bin/env bash
# AthenaK and TRITON, the structured families' GPU peers, in one command on the GPU machine:
# TRITON's dam break (a one-file nvcc build, under a minute with its runs), then AthenaK's 3D
# Rayleigh-Taylor (two Kokkos/CUDA builds of ~170 files side by side on all cores, ~2200 CPU-s
# each, then 8 runs), about 6 to 7 minutes on 16 cores (DEADLINE_S: no new work after 570 s, for a 600 s limit).
#
#   bash benchmarks/peers/athenak_triton.sh OUTDIR    # sources in .peers/athenak, .peers/triton
#
# Writes three files to OUTDIR: triton.txt, athenak.txt (the two tables) and peers-logs.tgz
# (every build and run log). Both tables also go to stdout.
# Environment: DEADLINE_S (default 570, seconds from the start after which nothing new
# starts), and each script's own variables (ATHENAK_PRECS -> PRECS of athenak_bench.sh,
# TRITON_PRECS -> PRECS of triton_bench.sh; SIZES, RSOLVERS, NLIM, SIM_T pass through).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=$(mkdir -p "${1:?usage: athenak_triton.sh OUTDIR}" && cd "$1" && pwd)
W=${PEERS_WORK:-/tmp/peers-athenak-triton}
rm -rf "$W" && mkdir -p "$W"
DEADLINE_S=${DEADLINE_S:-570}
T0=$SECONDS
finish() {
  cp "$W/triton/triton.txt" "$OUT/" 2>/dev/null
  cp "$W/athenak/athenak.txt" "$OUT/" 2>/dev/null
  tar czf "$OUT/peers-logs.tgz" -C "$W" . 2>/dev/null
}
trap finish EXIT

echo "== AthenaK and TRITON peers on $(hostname), $(date -u +%FT%TZ), $(nproc) cores"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
command -v nvcc >/dev/null && nvcc --version | tail -1
echo "gcc: $(g++ --version | head -1); cmake: $(cmake --version 2>/dev/null | head -1); patch: $(command -v patch || echo none); mpic++: $(command -v mpic++ || echo none)"

echo "== TRITON"
PRECS=${TRITON_PRECS:-double single} bash benchmarks/peers/triton_bench.sh .peers/triton "$W/triton" 2>&1
echo "== AthenaK ($((SECONDS - T0)) s in)"
PRECS=${ATHENAK_PRECS:-double single} DEADLINE_S=$((DEADLINE_S - (SECONDS - T0))) \
  bash benchmarks/peers/athenak_bench.sh .peers/athenak "$W/athenak" 2>&1
echo "== done in $((SECONDS - T0)) s"
