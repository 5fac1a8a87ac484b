#!/usr/bin/env bash
# The AthenaK peer of the Euler benchmark: AthenaK's hydro (Kokkos, CUDA backend) on our
# euler-rt-3d problem (3D single-mode Rayleigh-Taylor, PLM + HLLE/HLLC + SSP-RK3 + constant
# gravity) at 256^3 and 512^3, one MeshBlock covering the whole mesh, a fixed number of cycles,
# no output files. Prints AthenaK's own zone-cycles/cpu_second (a wall-clock rate over the whole
# run) and a steady rate read off its per-cycle 'elapsed=' lines, in a table on stdout and
# OUTDIR/athenak.txt.
#
#   bash benchmarks/peers/athenak_bench.sh SRC OUTDIR        # from the repository root
#
# SRC: the AthenaK tree with kokkos/ inside (staged in .peers/athenak; PROVENANCE.txt there says
# which commits). Kokkos 4.6.01 needs benchmarks/peers/athenak/kokkos-4.6.01-cuda13.patch for
# CUDA 13 (three runtime calls changed signature); it is applied here if not yet applied.
#
# Environment (defaults for the device: one H100/H200, 16 cores, CUDA 13):
#   BACKEND=cuda|serial|openmp   cuda (default); serial/openmp: the CPU check of this script
#   PRECS="double single"        AthenaK's Athena_SINGLE_PRECISION=OFF/ON: one build each
#   SIZES="256 512"              N for N^3 cells, one MeshBlock of N^3
#   RSOLVERS="hlle hllc"         AthenaK's hydro/rsolver
#   NLIM=100                     cycles per run; STEADY_FROM=20: the steady rate starts there
#   JOBS=$(nproc)                make -j
#   STEP=all|build|run           build only, or run only (with the builds already there)
#   BUILD_ROOT=.peers/build      build folders, kept between invocations: a build stopped at
#                                DEADLINE_S goes on from there the next time
#   DEADLINE_S=560               no new build or run starts after this many seconds, and make
#                                is stopped there; RUN_TIMEOUT=240 bounds each run
set -uo pipefail
SRC=$(cd "${1:?usage: athenak_bench.sh SRC OUTDIR}" && pwd)
mkdir -p "${2:?usage: athenak_bench.sh SRC OUTDIR}"
OUTDIR=$(cd "$2" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
BACKEND=${BACKEND:-cuda}
PRECS=${PRECS:-double single}
SIZES=${SIZES:-256 512}
RSOLVERS=${RSOLVERS:-hlle hllc}
NLIM=${NLIM:-100}
STEADY_FROM=${STEADY_FROM:-20}
JOBS=${JOBS:-$(nproc)}
STEP=${STEP:-all}
BUILD_ROOT=${BUILD_ROOT:-.peers/build}
DEADLINE_S=${DEADLINE_S:-560}
INPUT=$HERE/athenak/rt3d.athinput
PATCH=$HERE/athenak/kokkos-4.6.01-cuda13.patch
mkdir -p "$BUILD_ROOT"
BUILD_ROOT=$(cd "$BUILD_ROOT" && pwd)
T0=$SECONDS
log() { echo "$*" | tee -a "$OUTDIR/athenak-build.txt"; }
late() { [ $((SECONDS - T0)) -ge "$DEADLINE_S" ]; }

# Tools: nvcc may be only in /usr/local/cuda/bin; cmake may be only beside python3 (pip's);
# Unix Makefiles where make exists, else Ninja.
if [ "$BACKEND" = cuda ] && ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
if ! command -v cmake >/dev/null; then
  py=$(readlink -f "$(command -v python3)"); export PATH=$PATH:$(dirname "$py"):$(dirname "$(command -v python3)")
fi
GEN=()
command -v make >/dev/null || GEN=(-G Ninja)

: >"$OUTDIR/athenak-build.txt"
log "== AthenaK peer benchmark, backend $BACKEND, $(date -u +%FT%TZ)"
[ -f "$SRC/PROVENANCE.txt" ] && cat "$SRC/PROVENANCE.txt" | tee -a "$OUTDIR/athenak-build.txt"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$OUTDIR/athenak-build.txt"
command -v nvcc >/dev/null && nvcc --version | tail -2 | tee -a "$OUTDIR/athenak-build.txt"
log "cmake: $(cmake --version | head -1); cores: $(nproc); make -j$JOBS"

# Kokkos 4.6.01 and CUDA 13: apply the patch once (it is guarded by CUDART_VERSION >= 13000).
if ! grep -q "CUDA 13: the edge data argument" "$SRC/kokkos/core/src/Cuda/Kokkos_Cuda_Instance.hpp"; then
  if command -v patch >/dev/null; then
    (cd "$SRC/kokkos" && patch -p1 -N <"$PATCH") | tee -a "$OUTDIR/athenak-build.txt"
  else
    (cd "$SRC/kokkos" && git apply -p1 "$PATCH") 2>&1 | tee -a "$OUTDIR/athenak-build.txt"
  fi
  grep -q "CUDA 13: the edge data argument" "$SRC/kokkos/core/src/Cuda/Kokkos_Cuda_Instance.hpp" \
    || log "WARNING: the CUDA 13 patch did not apply"
fi

bindir() { echo "$BUILD_ROOT/athenak-$BACKEND-$1"; }

configure() {  # $1 = double|single
  local prec=$1 sp=OFF dir
  dir=$(bindir "$1")
  [ "$prec" = single ] && sp=ON
  local args=(-DCMAKE_BUILD_TYPE=Release -DPROBLEM=fluids/rt -DAthena_SINGLE_PRECISION=$sp)
  case $BACKEND in
    cuda)
      # nvcc_wrapper's default -arch=sm_70 is gone from CUDA 13; naming sm_90 in the flags
      # makes the wrapper's compiler check pass (Kokkos adds the same -arch=sm_90 itself).
      args+=(-DKokkos_ENABLE_CUDA=ON -DKokkos_ARCH_HOPPER90=ON -DCMAKE_CXX_FLAGS=-arch=sm_90
        -DCMAKE_CXX_COMPILER="$SRC/kokkos/bin/nvcc_wrapper") ;;
    openmp) args+=(-DAthena_ENABLE_OPENMP=ON) ;;
    serial) ;;
    *) log "unknown BACKEND $BACKEND"; return 1 ;;
  esac
  [ -f "$dir/CMakeCache.txt" ] && return 0
  local t=$SECONDS
  cmake -S "$SRC" -B "$dir" "${GEN[@]}" "${args[@]}" >"$OUTDIR/athenak-cmake-$prec.log" 2>&1 \
    || { log "cmake ($prec) FAILED, the end of its log:"; tail -30 "$OUTDIR/athenak-cmake-$prec.log" | tee -a "$OUTDIR/athenak-build.txt"; return 1; }
  log "cmake ($prec): $((SECONDS - t)) s"
}

# All precisions build at once, each with make -j$JOBS: the ~170 files of one build take about
# 2200 CPU-seconds with nvcc (measured on one core), and a few take over a minute alone, so
# two builds side by side keep 16 cores busier than one after the other. Bounded by DEADLINE_S:
# the build folders stay, and the next invocation with the same BUILD_ROOT goes on from there.
build_all() {  # $@ = precisions configured; prints the ones built
  local t1=$SECONDS left prec
  left=$((DEADLINE_S - (SECONDS - T0)))
  [ $left -lt 30 ] && left=30
  for prec in "$@"; do
    ( timeout $left cmake --build "$(bindir "$prec")" -j "$JOBS" --target athena \
        >"$OUTDIR/athenak-make-$prec.log" 2>&1; echo $? >"$OUTDIR/.rc-$prec" ) &
  done
  wait
  for prec in "$@"; do
    local rc bin
    rc=$(cat "$OUTDIR/.rc-$prec" 2>/dev/null || echo 1); rm -f "$OUTDIR/.rc-$prec"
    bin=$(bindir "$prec")/src/athena
    if [ "$rc" = 124 ]; then
      log "make ($prec) NOT FINISHED: stopped at DEADLINE_S after $((SECONDS - t1)) s; $(grep -c 'Building CXX' "$OUTDIR/athenak-make-$prec.log") objects compiled in this call" >&2
    elif [ "$rc" != 0 ] || [ ! -x "$bin" ]; then
      log "make ($prec) FAILED (rc $rc); the first errors:" >&2
      grep -m 20 -E "error|Error" "$OUTDIR/athenak-make-$prec.log" | tee -a "$OUTDIR/athenak-build.txt" >&2
    else
      echo "$prec"
    fi
  done
  log "build ($*, $BACKEND, side by side, make -j$JOBS each): $((SECONDS - t1)) s (0 s when already built)" >&2
}

run_one() {  # $1 prec, $2 N, $3 rsolver -> one table row
  local prec=$1 n=$2 rs=$3
  local name=athenak-$prec-$n-$rs
  local rdir=$BUILD_ROOT/runs/$name
  mkdir -p "$rdir"
  (cd "$rdir" && timeout "${RUN_TIMEOUT:-240}" "$BIN" -i "$INPUT" -d "$rdir" \
    mesh/nx1=$n mesh/nx2=$n mesh/nx3=$n meshblock/nx1=$n meshblock/nx2=$n meshblock/nx3=$n \
    hydro/rsolver=$rs time/nlim=$NLIM) >"$OUTDIR/$name.log" 2>&1
  local rc=$?
  python3 - "$OUTDIR/$name.log" "$prec" "$n" "$rs" "$rc" "$STEADY_FROM" <<'EOF'
import re, sys
path, prec, n, rs, rc, c0 = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
text = open(path, errors="replace").read()
zc = re.search(r"zone-cycles/cpu_second\s*=\s*([0-9.eE+-]+)", text)
el = [(int(c), float(e)) for e, c in re.findall(r"elapsed=([0-9.eE+-]+)\s+cycle=(\d+)", text)]
steady, spc = "-", "-"
if el:
    last = el[-1]
    first = next((p for p in el if p[0] >= c0), None)
    if first and last[0] > first[0] and last[1] > first[1]:
        per = (last[1] - first[1]) / (last[0] - first[0])
        steady, spc = f"{n**3 / per:.4e}", f"{per:.4e}"
cycles = el[-1][0] if el else 0
status = "ok" if rc == 0 and zc else f"FAILED rc={rc}"
print(f"{'athenak':8} {prec:7} {str(n)+'^3':7} {rs:5} {cycles:6} {zc.group(1) if zc else '-':>14} {steady:>14} {spc:>11}  {status}")
EOF
}

HEADER=$(printf '%-8s %-7s %-7s %-5s %6s %14s %14s %11s  %s' code prec size rs cycles 'zc/s(athenak)' "zc/s(c>=$STEADY_FROM)" 's/cycle' status)
ROWS=()
CONF=()
for prec in $PRECS; do configure "$prec" && CONF+=("$prec"); done
BUILT=()
if [ ${#CONF[@]} -gt 0 ]; then
  if [ "$STEP" = run ]; then
    for prec in "${CONF[@]}"; do [ -x "$(bindir "$prec")/src/athena" ] && BUILT+=("$prec"); done
  else
    mapfile -t BUILT < <(build_all "${CONF[@]}")
  fi
fi
[ "$STEP" = build ] && BUILT=()
for prec in "${BUILT[@]}"; do
  BIN=$(bindir "$prec")/src/athena
  for n in $SIZES; do
    for rs in $RSOLVERS; do
      if late; then log "skipped $prec $n^3 $rs: past DEADLINE_S=$DEADLINE_S s"; continue; fi
      row=$(run_one "$prec" "$n" "$rs")
      echo "$row"
      ROWS+=("$row")
    done
  done
done
{
  echo "AthenaK $(sed -n 1p "$SRC/PROVENANCE.txt" 2>/dev/null | cut -d' ' -f2 | cut -c1-10), euler-rt-3d setup ($INPUT), $NLIM cycles, PLM + RK3, one MeshBlock, backend $BACKEND"
  echo "zc/s(athenak): AthenaK's zone-cycles/cpu_second (its wall clock over all cycles, setup excluded);"
  echo "zc/s(c>=$STEADY_FROM): N^3 / (seconds per cycle between cycle $STEADY_FROM and the last, from its 'elapsed=' lines)"
  echo "$HEADER"
  printf '%s\n' "${ROWS[@]}"
} | tee "$OUTDIR/athenak.txt"
echo "total $((SECONDS - T0)) s" | tee -a "$OUTDIR/athenak-build.txt"
