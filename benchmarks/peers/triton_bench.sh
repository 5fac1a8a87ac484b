#!/usr/bin/env bash
# The TRITON peer of the shallow-water benchmark: TRITON (ORNL's GPU flood model: first-order
# finite volumes on a raster, CUDA) on a 1000 x 1000 dam break, its time per step beside ours.
#
#   bash benchmarks/peers/triton_bench.sh SRC OUTDIR          # from the repository root
#
# SRC: the TRITON tree (staged in .peers/triton; PROVENANCE.txt there says which copy).
# The case: our swe-dam-break-wet / -dry templates (SWASHES 4.1.1 / 4.1.2) made square, 1000 x
# 1000 cells of 0.01 m over 10 m x 10 m, flat frictionless bed, the dam at x = 5 m: 5 mm of water
# behind it and 1 mm (wet) or none (dry) in front, closed walls (TRITON's default with no
# external boundary), variable dt at TRITON's Courant number 0.45, one output at the end only.
# The matching run of ours: the template with --set 'grid.dims=[1000,1000,1]'
# --set 'grid.extent=[10.0,10.0,1.0]' and the same end time.
# TRITON reports its own timers in output/performance.txt (Compute, MPI, IO, Simulation...) and
# its iteration count on stderr at each output ('it: N'): s/step = Compute / N and
# (Simulation - IO) / N.
#
# Environment:
#   BACKEND=cuda|omp       cuda (default): nvcc -arch=sm_90; omp: the CPU build (g++/mpicxx -fopenmp)
#   PRECS="double single"  TRITON's value_t (constants.h: double, or float with MPI_FLOAT/FLT_MAX)
#   CASES="wet dry"        dam-break variants
#   SIM_T=60               simulated seconds (about 4000 steps; the templates stop at 6 s)
#   NX=1000                cells per side
#   THREADS=$(nproc)       OpenMP threads (omp only)
#   MPI=stub|system        stub (default): the one-rank mpi.h stand-in; system: mpic++
#   BUILD_ROOT=.peers/build
set -uo pipefail
SRC=$(cd "${1:?usage: triton_bench.sh SRC OUTDIR}" && pwd)
mkdir -p "${2:?usage: triton_bench.sh SRC OUTDIR}"
OUTDIR=$(cd "$2" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
BACKEND=${BACKEND:-cuda}
PRECS=${PRECS:-double single}
CASES=${CASES:-wet dry}
SIM_T=${SIM_T:-60}
NX=${NX:-1000}
THREADS=${THREADS:-$(nproc)}
BUILD_ROOT=${BUILD_ROOT:-.peers/build}
mkdir -p "$BUILD_ROOT"
BUILD_ROOT=$(cd "$BUILD_ROOT" && pwd)
T0=$SECONDS
if [ "$BACKEND" = cuda ] && ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
: >"$OUTDIR/triton-build.txt"
log() { echo "$*" | tee -a "$OUTDIR/triton-build.txt"; }
log "== TRITON peer benchmark, backend $BACKEND, $(date -u +%FT%TZ)"
[ -f "$SRC/PROVENANCE.txt" ] && tee -a "$OUTDIR/triton-build.txt" <"$SRC/PROVENANCE.txt"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$OUTDIR/triton-build.txt"

# MPI: TRITON's makefile builds with mpic++ (as nvcc's host compiler for CUDA). One GPU is one
# rank, and with one rank TRITON sends no message (its dt reduction and halo exchanges run only
# when size > 1), so by default the build uses the one-rank stand-in mpi.h in
# benchmarks/peers/triton/mpi_single with plain g++: no MPI runtime to start on the device.
# MPI=system uses mpic++/mpicxx where one works (falling back to the stand-in otherwise).
HOSTCXX=g++ MPIINC=(-I"$HERE/triton/mpi_single")
if [ "${MPI:-stub}" = system ]; then
  for c in mpic++ mpicxx; do
    if command -v $c >/dev/null && printf '#include <mpi.h>\nint main(){return 0;}\n' | $c -x c++ - -o /dev/null 2>/dev/null; then
      HOSTCXX=$(command -v $c) MPIINC=(); break
    fi
  done
fi
log "MPI: ${MPIINC[*]:-$HOSTCXX} (host compiler $HOSTCXX)"

build() {  # $1 double|single -> BIN
  local prec=$1 dir=$BUILD_ROOT/triton-$BACKEND-$1
  rm -rf "$dir" && mkdir -p "$dir" && cp -r "$SRC/src" "$dir/src"
  # GCC (12 here, as any since 4.7) rejects output.h's use of an operator<< for a
  # Matrix::matrix that is defined further down in namespace Output, where argument-dependent
  # lookup does not look: the one change to TRITON's sources is to declare it before its use.
  python3 - "$dir/src/output.h" <<'EOF2' || { log "output.h: the declaration could not be added"; return 1; }
import sys
p = sys.argv[1]
s = open(p, "rb").read()
nl = b"\r\n" if b"\r\n" in s else b"\n"
old = b"namespace Output" + nl + b"{" + nl
decl = (b"\t// added by benchmarks/peers/triton_bench.sh: declared before its first use" + nl +
        b"\ttemplate<typename T>" + nl +
        b"\tstd::ostream& operator<<(std::ostream& out, Matrix::matrix<T>& M);" + nl + nl)
assert s.count(old) == 1, "namespace Output not found once"
open(p, "wb").write(s.replace(old, old + decl))
EOF2
  if [ "$prec" = single ]; then
    sed -i -e 's/^typedef double value_t;/typedef float value_t;/' \
      -e 's/^#define MPI_DATA_TYPE MPI_DOUBLE/#define MPI_DATA_TYPE MPI_FLOAT/' \
      -e 's/^#define MAX_VALUE DBL_MAX/#define MAX_VALUE FLT_MAX/' "$dir/src/constants.h"
    grep -q "typedef float value_t" "$dir/src/constants.h" || { log "single: constants.h not as expected"; return 1; }
    # TRITON gathers its timers (doubles) as MPI_DATA_TYPE: with MPI_FLOAT they come out as
    # garbage in performance.txt. They are gathered as MPI_DOUBLE here.
    sed -i -E '/MPI_Gather\(&[a-z_]*time, 1, MPI_DATA_TYPE/s/MPI_DATA_TYPE/MPI_DOUBLE/g' "$dir/src/output.h" "$dir/src/triton.h"
  fi
  mkdir -p "$dir/build"
  BIN=$dir/build/triton
  local t=$SECONDS cmd
  if [ "$BACKEND" = cuda ]; then
    # makefile.hpc's GPU line, with Hopper's sm_90 instead of its sm_70
    cmd=(nvcc --compiler-bindir "$HOSTCXX" "${MPIINC[@]}" -arch=sm_90 -x cu -DACTIVE_GPU=1 -O3
      -o "$BIN" "$dir/src/main.cpp" --std=c++17)
  else
    cmd=("$HOSTCXX" "${MPIINC[@]}" -Wall -fopenmp -DACTIVE_OMP=1 -O3 -o "$BIN" "$dir/src/main.cpp" --std=c++17)
  fi
  echo "${cmd[*]}" >"$OUTDIR/triton-make-$prec.log"
  "${cmd[@]}" >>"$OUTDIR/triton-make-$prec.log" 2>&1
  local rc=$?
  if [ $rc -ne 0 ]; then
    log "build ($prec) FAILED (rc $rc); the first errors:"
    grep -m 20 -iE "error" "$OUTDIR/triton-make-$prec.log" | tee -a "$OUTDIR/triton-build.txt"
    return 1
  fi
  log "build ($prec, $BACKEND): $((SECONDS - t)) s"
}

# The case files, in a work folder laid out as TRITON expects (input/..., output/ beside build/).
make_case() {  # $1 work dir, $2 wet|dry
  python3 - "$1" "$2" "$NX" "$SIM_T" <<'EOF'
import os, sys
work, kind, nx, sim_t = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
cell = 10.0 / nx
right = "0.001" if kind == "wet" else "0"
for d in ("input/dem/asc", "input/initc/inith/asc", "input/cfg", "output"):
    os.makedirs(os.path.join(work, d), exist_ok=True)
row0 = " ".join(["0"] * nx) + "\n"
with open(os.path.join(work, "input/dem/asc/flat.dem"), "w") as f:
    f.write(f"ncols         {nx}\nnrows         {nx}\nxllcorner     0\nyllcorner     0\n"
            f"cellsize      {cell!r}\nNODATA_value  -9999\n")
    f.writelines(row0 for _ in range(nx))
# columns left of x = 5 m hold 5 mm
row = " ".join("0.005" if (i + 0.5) * cell < 5.0 else right for i in range(nx)) + "\n"
with open(os.path.join(work, f"input/initc/inith/asc/dam-{kind}.inith"), "w") as f:
    f.writelines(row for _ in range(nx))
cfg = f"""# benchmarks/peers/triton_bench.sh: dam break {kind}, {nx} x {nx}, 10 m x 10 m
dem_filename="input/dem/asc/flat.dem"
input_format=ASC
outfile_pattern="%s/%s/%s_%02d_%02d"
output_format=BIN
output_option=SEQ
num_sources=0
hydrograph_filename=""
src_loc_file=""
const_mann=0.0
num_runoffs=0
num_extbc=0
extbc_dir=""
extbc_file=""
observation_loc_file=""
time_series_flag=0
open_boundaries=0
input_option=SEQ
factor_interval_domain_decomposition=1
print_option=h
sim_start_time=0
sim_duration={sim_t}
checkpoint_id=0
time_step=0.001
time_increment_fixed=0
print_interval={sim_t}
h_infile="input/initc/inith/asc/dam-{kind}.inith"
qx_infile=""
qy_infile=""
it_count=0
courant=0.45
hextra=1e-6
gpu_direct_flag=0
domain_decomposition=static
"""
open(os.path.join(work, f"input/cfg/dam-{kind}.cfg"), "w").write(cfg)
EOF
}

ROWS=()
for prec in $PRECS; do
  build "$prec" || continue
  for kind in $CASES; do
    work=$BUILD_ROOT/triton-runs/$prec-$kind
    rm -rf "$work" && mkdir -p "$work/build" && cp "$BIN" "$work/build/triton"
    make_case "$work" "$kind"
    name=triton-$prec-$kind
    t=$SECONDS
    if [ "$BACKEND" = cuda ]; then
      (cd "$work" && ./build/triton "input/cfg/dam-$kind.cfg") >"$OUTDIR/$name.log" 2>&1
    else
      (cd "$work" && OMP_NUM_THREADS=$THREADS ./build/triton "input/cfg/dam-$kind.cfg" "$THREADS") >"$OUTDIR/$name.log" 2>&1
    fi
    rc=$?
    cp "$work/output/performance.txt" "$OUTDIR/$name-performance.txt" 2>/dev/null
    row=$(python3 - "$OUTDIR/$name.log" "$work/output/performance.txt" "$prec" "$kind" "$NX" "$rc" "$((SECONDS - t))" <<'EOF'
import re, sys
log, perf, prec, kind, nx, rc, wall = sys.argv[1:8]
text = open(log, errors="replace").read()
its = re.findall(r"Time:\s*([0-9.eE+-]+)\s+dt:\s*([0-9.eE+-]+)\s+it:\s*(\d+)", text)
steps = int(its[-1][2]) if its else 0
simt = its[-1][0] if its else "-"
cols = {}
try:
    lines = [l.strip() for l in open(perf) if l.strip()]
    head = [h.strip().lstrip("%") for h in lines[0].split(",")]
    avg = next(l for l in lines if l.startswith("Average"))
    cols = dict(zip(head[1:], [float(v) for v in avg.split(",")[1:]]))
except Exception:
    pass
comp = cols.get("Compute"); sim = cols.get("Simulation"); io = cols.get("IO", 0.0)
per_c = f"{comp / steps:.4e}" if comp and steps else "-"
per_s = f"{(sim - io) / steps:.4e}" if sim and steps else "-"
cells = int(nx) ** 2
ups = f"{cells * steps / (sim - io):.4e}" if sim and steps else "-"
status = "ok" if rc == "0" and steps else f"FAILED rc={rc}"
print(f"{'triton':7} {prec:7} {kind:4} {nx+'^2':7} {simt:>8} {steps:6} {per_c:>11} {per_s:>11} {ups:>11} {wall:>5}  {status}")
EOF
)
    echo "$row"
    ROWS+=("$row")
  done
done
{
  echo "TRITON dam break, $NX^2 cells of $(python3 -c "print(10.0/$NX)") m, SIM_T=$SIM_T s, Courant 0.45, backend $BACKEND"
  echo "s/step(compute): TRITON's Compute timer / steps; s/step(sim-io): (Simulation - IO) / steps; cells*steps/s from the latter"
  printf '%-7s %-7s %-4s %-7s %8s %6s %11s %11s %11s %5s  %s\n' code prec case size sim_t steps 's/step(comp)' 's/step(sim)' 'updates/s' 'wall' status
  printf '%s\n' "${ROWS[@]}"
} | tee "$OUTDIR/triton.txt"
echo "total $((SECONDS - T0)) s" | tee -a "$OUTDIR/triton-build.txt"
