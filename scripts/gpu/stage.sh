#!/usr/bin/env bash
# Build here (no GPU needed) everything the GPU machine runs, into the git-ignored .gpu/:
#   .gpu/solver, .gpu/meshtool   release binaries (meshtool without the gmsh feature: no libgmsh
#                                there), stripped
#   .gpu/solver-mpi              the MPI build, for one process per GPU under mpirun (it links
#                                the host's libmpi.so.40)
#   .gpu/tests.tar.xz            the test binaries whose CUDA paths run.sh runs there (the
#                                solver's unit tests, the kernels' NVRTC compiles, the CLI's and
#                                Navier-Stokes' integration tests), with where cargo built them
#   .gpu/*.sh                    the GPU runners (scripts/gpu/): run.sh runs every check and
#                                benchmark, the others one family or one study each
#   .gpu/duct.msh                the paper's ~40k-tet duct (Gmsh is not needed there)
#   .gpu/channel-1m.msh.xz       a ~1M-tet DFG channel, for the advection benchmark's reordering
#                                comparison (xz-compressed; run.sh unpacks it)
# The GPU machine needs the NVIDIA driver, CUDA (libnvrtc), bash and python3 with numpy; no Rust
# toolchain and no network. There, from the repository root with .gpu/ beside the sources:
#   bash .gpu/run.sh
# Knobs (environment):
#   STAGE_NS=1       the DFG meshes of the Navier-Stokes runs instead of the 1M-tet channel: the
#                    3D channel at 274k tets (dfg_family.sh) and the 2D-2 slab at 72.5k (dfg2d.sh)
#   STAGE_CHANNEL=0  no 1M-tet channel (run.sh then benchmarks advection on generated boxes only)
#   STAGE_TESTS=0    no test binaries (run.sh's `tests` part then says SKIP)
#   STAGE_MPI=0      no MPI build
#   BASE=REV         also build the solver of commit REV as .gpu/solver-base (scripts/gpu/lib.sh
#                    compares the two builds)
# Built meshes are kept between stagings; delete .gpu/ to start over.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/env.sh
G=.gpu
mkdir -p "$G"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ "${STAGE_MPI:-1}" != 0 ]; then
  echo "stage: solver, MPI build"
  cargo build --release -q -p solver --bin solver --features mpi
  cp "$CFD_BIN/solver" "$G/solver-mpi"
  strip "$G/solver-mpi"
fi

echo "stage: solver and meshtool"
cargo build --release -q -p solver --bin solver
cargo build --release -q -p meshtool --bin meshtool

if [ "${STAGE_TESTS:-1}" != 0 ]; then
  echo "stage: test binaries"
  # Without the MPI feature, as the solver above; the solver is copied below, after this build,
  # so that the binary the integration tests start is the one staged. Cargo bakes absolute
  # paths into the tests (the solver binary, each crate's folder): paths.env records them, and
  # run.sh makes them lead to the staged copies there.
  cargo test --release -q -p solver --lib --test cli --test ns --no-run --message-format=json > "$tmp/solver.json"
  cargo test --release -q -p kernels --lib --no-run --message-format=json > "$tmp/kernels.json"
  mkdir -p "$tmp/tests"
  python3 - "$tmp/tests" "$tmp/solver.json" "$tmp/kernels.json" <<'PY'
import json, os, shutil, sys
dest, root = sys.argv[1], os.getcwd()
rows = []
for path in sys.argv[2:]:
    for line in open(path):
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if m.get("reason") != "compiler-artifact" or not m.get("executable") or not m["profile"]["test"]:
            continue
        name = m["target"]["name"]   # the library's crate name, or the integration test's
        package = os.path.relpath(os.path.dirname(m["manifest_path"]), root)
        shutil.copy(m["executable"], os.path.join(dest, name))
        rows.append(f"{name}\t{package}\n")
open(os.path.join(dest, "manifest.tsv"), "w").writelines(rows)
print("stage: test binaries: " + " ".join(r.split("\t")[0] for r in rows))
PY
  cut -f1 "$tmp/tests/manifest.tsv" | while read -r name; do strip "$tmp/tests/$name"; done
  printf 'STAGED_ROOT=%q\nSTAGED_SOLVER=%q\n' "$(pwd -P)" "$CFD_BIN/solver" > "$tmp/tests/paths.env"
  python3 -c "
import sys, tarfile
with tarfile.open(sys.argv[1], 'w:xz') as t:
    t.add(sys.argv[2], arcname='tests')" "$G/tests.tar.xz" "$tmp/tests"
else
  rm -f "$G/tests.tar.xz"
fi
cp "$CFD_BIN/solver" "$CFD_BIN/meshtool" "$G/"
strip "$G/solver" "$G/meshtool"   # debug info stays here: what travels stays small

cp scripts/gpu/*.sh "$G/"

# Meshes (Gmsh is not on the GPU machine). The advection test mesh: the ~40k-tet duct, binary MSH 4.1.
[ -f "$G/duct.msh" ] || gmsh -3 meshes/duct.geo -format msh41 -bin -v 1 -o "$G/duct.msh"
xz_file() {  # FILE: FILE.xz, FILE removed
  python3 -c "
import lzma, shutil, sys
with open(sys.argv[1], 'rb') as a, lzma.open(sys.argv[1] + '.xz', 'wb', preset=6) as b:
    shutil.copyfileobj(a, b, 1 << 24)" "$1"
  rm -f "$1"
}
if [ "${STAGE_NS:-0}" = 1 ]; then
  rm -f "$G/channel-1m.msh.xz"
  [ -f "$G/dfg-274k.msh" ] || gmsh -3 meshes/channel.geo -setnumber size 0.0273 -format msh41 -bin -v 1 -nt 2 -o "$G/dfg-274k.msh"
  [ -f "$G/dfg2d-73k.msh" ] || gmsh -3 meshes/channel2d.geo -setnumber size 0.012 -format msh41 -bin -v 1 -o "$G/dfg2d-73k.msh"
elif [ "${STAGE_CHANNEL:-1}" != 0 ]; then
  rm -f "$G/dfg-274k.msh" "$G/dfg2d-73k.msh"
  if [ ! -f "$G/channel-1m.msh.xz" ]; then
    echo "stage: meshing the 1M-tet channel with Gmsh (a few minutes)"
    gmsh -3 meshes/channel.geo -setnumber size 0.0122 -format msh41 -bin -v 1 -nt 2 -o "$G/channel-1m.msh"
    xz_file "$G/channel-1m.msh"
  fi
else
  rm -f "$G/channel-1m.msh.xz"
fi

if [ -n "${BASE:-}" ]; then
  echo "stage: solver of $BASE as solver-base"
  mkdir -p "$tmp/base"
  git archive "$BASE" | tar -x -C "$tmp/base"
  (cd "$tmp/base" && CARGO_TARGET_DIR="$CFD_TARGET/base" cargo build --release -q -p solver --bin solver)
  cp "$CFD_TARGET/base/release/solver" "$G/solver-base"
  strip "$G/solver-base"
fi

size=$(du -sm --exclude=results "$G" | cut -f1)
echo "stage: $G holds $(ls "$G" | grep -v '^results$' | tr '\n' ' ')(${size} MiB)"
if [ "$size" -gt 64 ]; then
  echo "stage: note: over 64 MiB; where .gpu/ must travel in less, STAGE_CHANNEL=0, STAGE_MPI=0 or STAGE_TESTS=0 makes room"
fi
