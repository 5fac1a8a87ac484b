#!/usr/bin/env bash
# Every GPU check and benchmark in one command, on a machine with an NVIDIA GPU (the driver and
# CUDA's libnvrtc; bash and python3 with numpy; no Rust toolchain, no network). Build and stage
# first, on any machine with the Rust toolchain (scripts/gpu/stage.sh); then, on the GPU
# machine, from the repository root with .gpu/ beside the sources:
#   bash .gpu/run.sh [PART...]          every part, in this order, when none is named
# Parts:
#   tests   the staged test binaries' CUDA paths: the solver's CUDA unit tests (CG on the
#           device against the CPU, the kernels' launch plans, a peer group of two GPUs), every
#           kernel module compiled by this machine's NVRTC, the CLI's GPU checks and the
#           Navier-Stokes CUDA run; a test that says it skipped its CUDA path fails here
#   check   `solver check all`: every family's CPU-vs-CUDA checks and CUDA restarts (the
#           unstructured families on the paper's duct)
#   faults  the fault tests on the CUDA families: a NaN injected in one cell (CFD_INJECT_NAN)
#           stops the run naming the field, the cell and the step, keeping the last good output
#           and checkpoint (also on 2 GPUs, and on rank 1 of 2 MPI ranks, where there are 2
#           GPUs); a SIGKILL inside a write (CFD_INJECT_KILL) and --restart end byte-identical to
#           an uninterrupted run; a damaged checkpoint is refused (exit 2) and
#           --restart=previous resumes from the one before
#   runs    heat templates against their exact solutions on CUDA; an unstable heat run
#           (CFL 5) stops or is refused
#   bench   the benchmarks of every family (`solver bench FAMILY`; navier-stokes in f64, the
#           only precision it runs), advection also on the staged channel mesh in three
#           orders, heat at 1024^3 in f32
#   euler   scripts/gpu/euler.sh (without its benchmarks): the paper's run, growth rates, frames
#   cg      scripts/gpu/cg.sh: the CG micro-benchmark and the CuPy peer
#   parts   scripts/gpu/parts.sh, where there are 2 GPUs or more: 2 GPUs write the same files as
#           1, and the 2-GPU speed-ups
# A table closes the output: part, name, result or figure, PASS / FAIL / SKIP (with why). Exit
# status 1 when a row failed. Results in $OUT (or .gpu/results): each part's log and JSON,
# table.txt. Where one command may run at most 10 minutes, run the parts in four calls:
#   bash .gpu/run.sh tests check faults runs;  bash .gpu/run.sh bench;  bash .gpu/run.sh euler;
#   bash .gpu/run.sh cg parts
# Knobs (environment): GPU (the staged folder, default .gpu); TESTS_ALL=1 (every test of each
# staged test binary, not only those on a CUDA path); ADVECT_DIMS (Kuhn boxes of the advection
# benchmark, default "26 55": 0.1M and 1M cells; "110" is 8M); ADVECT_ORDERS (default "none rcm
# hilbert"); SKIP_CHANNEL=1 (not the 1M-tet channel); BENCH_SIZES (structured sizes instead of
# each benchmark's own); BENCH_STEPS (20), BENCH_REPS (2); WITH_1024=0 (no 1024^3 heat row);
# CPU=1 (also time the CPU backend).
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
export NCCL_NVLS_ENABLE=0
H=$(dirname "$0")   # the runners beside this one
D=${GPU:-.gpu}
S=$D/solver
M=$D/meshtool
R=${OUT:-$D/results}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
all="tests check faults runs bench euler cg parts"
parts=${*:-$all}
for p in $parts; do
  case " $all " in *" $p "*) ;; *) echo "run.sh: no part '$p' (parts: $all)" >&2; exit 2 ;; esac
done
[ -x "$S" ] || { echo "run.sh: $S missing: run scripts/gpu/stage.sh where Rust is, bring .gpu/ here and run from the repository root" >&2; exit 2; }
mkdir -p "$R"
TABLE=$R/table.tsv
: > "$TABLE"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$R/device.txt"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
"$S" devices > "$W/devices.txt" 2>&1
cat "$W/devices.txt" | tee -a "$R/device.txt"
if grep -q "^no CUDA devices" "$W/devices.txt"; then
  echo "run.sh: the solver sees no CUDA device here" >&2
  exit 2
fi

# row PART NAME FIGURE RESULT: a line of the closing table (RESULT: PASS, FAIL or SKIP).
row() {
  printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$TABLE"
  echo "$4: $1: $2: $3"
}

# count REGEX FILE: the lines of FILE that match (0 where FILE is missing).
count() {
  local n
  n=$(grep -cE -- "$1" "$2" 2>/dev/null)
  echo "${n:-0}"
}

# every_file_same A B NAME: every file B's .pvd lists, and the .pvd, byte-identical in A; the
# count, or nothing (status 1) where one differs or is missing.
every_file_same() {
  local a=$1 b=$2 pvd=$3.pvd n=0 f
  [ -f "$b/$pvd" ] && cmp -s "$a/$pvd" "$b/$pvd" || return 1
  for f in $(grep -o 'file="[^"]*"' "$b/$pvd" | cut -d'"' -f2); do
    cmp -s "$a/$f" "$b/$f" || return 1
    n=$((n + 1))
  done
  echo "$n"
}

# ---------------------------------------------------------------------------------- tests
# lead PATH TARGET: PATH leads to TARGET where nothing is at PATH yet.
lead() {
  [ -e "$1" ] && return 0
  mkdir -p "$(dirname "$1")" 2>/dev/null && ln -s "$2" "$1" 2>/dev/null
}

# The tests of each staged binary that take a CUDA path, as libtest name filters (none: every
# test; the kernels' tests compile every module with NVRTC).
test_filters() {
  [ "${TESTS_ALL:-0}" = 1 ] && return
  case $1 in
    solver) echo "cuda:: peer:: parts:: budget::" ;;
    cli) echo "gpu" ;;
    ns) echo "cuda" ;;
  esac
}

part_tests() {
  if [ ! -f "$D/tests.tar.xz" ]; then
    row tests "test binaries" "not staged (scripts/gpu/stage.sh with STAGE_TESTS=0)" SKIP
    return
  fi
  python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/tests.tar.xz" "$W" \
    || { row tests "test binaries" "$D/tests.tar.xz unreadable" FAIL; return; }
  local T=$W/tests STAGED_ROOT STAGED_SOLVER here solver
  # shellcheck disable=SC1091
  source "$T/paths.env"
  here=$(pwd -P)
  solver="$(cd "$D" && pwd -P)/solver"
  # Cargo baked in where it built them (the sources, the solver binary): lead those paths here.
  if ! lead "$STAGED_ROOT" "$here" || ! lead "$STAGED_SOLVER" "$solver"; then
    row tests "test binaries" "cannot make $STAGED_ROOT and $STAGED_SOLVER lead to this checkout" FAIL
    return
  fi
  local name package log rc passed failed skipped missed figure result
  while IFS=$'\t' read -r name package; do
    log=$R/test-$name.txt
    chmod +x "$T/$name"
    # shellcheck disable=SC2046
    (cd "$STAGED_ROOT/$package" && "$T/$name" $(test_filters "$name") --nocapture) > "$log" 2>&1
    rc=$?
    tail -3 "$log"
    passed=$(awk '/^test result:/ { s += $4 } END { print s + 0 }' "$log")
    failed=$(awk '/^test result:/ { s += $6 } END { print s + 0 }' "$log")
    skipped=$(count "SKIPPED" "$log")
    missed=$(grep -m1 -E "SKIPPED: (no CUDA device|GPU checks|NVRTC not found)" "$log")
    figure="$passed passed, $failed failed"
    [ "$skipped" -gt 0 ] && figure="$figure, $skipped said SKIPPED ($(grep -m1 -o 'SKIPPED: .*' "$log" | cut -c10-70))"
    result=PASS
    if [ $rc -ne 0 ] || [ "$failed" -gt 0 ] || [ "$passed" -eq 0 ]; then
      result=FAIL
      [ "$passed" -eq 0 ] && [ $rc -eq 0 ] && figure="no test matched: $(test_filters "$name")"
    elif [ -n "$missed" ]; then
      result=FAIL
      figure="a CUDA path was skipped on a GPU machine: ${missed#*SKIPPED: }"
    fi
    row tests "$name: $(test_filters "$name" | grep . || echo "every test")" "$figure" $result
  done < "$T/manifest.tsv"
}

# ---------------------------------------------------------------------------------- meshes
duct() {  # $W/duct.pmesh from the staged duct.msh
  [ -f "$W/duct.pmesh" ] && return 0
  "$M" prepare "$D/duct.msh" -o "$W/duct.pmesh" 2>&1 | tail -1
  [ -f "$W/duct.pmesh" ]
}

# ---------------------------------------------------------------------------------- check
part_check() {
  duct || { row check "solver check all" "meshtool could not prepare $D/duct.msh" FAIL; return; }
  "$S" check all --mesh "$W/duct.pmesh" 2>&1 | tee "$R/check.txt"
  local rc=${PIPESTATUS[0]} pass fail na line
  pass=$(count ' PASS *$' "$R/check.txt")
  fail=$(count ' FAIL *$' "$R/check.txt")
  na=$(count ' n/a *$' "$R/check.txt")
  if [ "$rc" -eq 0 ] && [ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]; then
    row check "solver check all" "$pass rows PASS, $na n/a (a precision the family refuses)" PASS
  else
    row check "solver check all" "$pass rows PASS, $fail FAIL (exit $rc): $(tail -1 "$R/check.txt")" FAIL
    grep -E ' FAIL *$' "$R/check.txt" | head -10 | while IFS= read -r line; do
      row check "$(echo "${line:0:34}" | sed 's/ *$//')" "$(echo "${line:34}" | tr -s ' ')" FAIL
    done
  fi
}

# ---------------------------------------------------------------------------------- faults
# nan LABEL TEMPLATE STEP:CELL "NEEDLE|NEEDLE..." [SET...] [-- LAUNCHER...]: the template run on
# CUDA with CFD_INJECT_NAN=STEP:CELL must stop (exit 1) saying every needle, with its .pvd's
# files and a checkpoint kept. After --, the launcher (mpirun ...) of the MPI build.
nan() {
  local label=$1 template=$2 at=$3 needles=$4; shift 4
  local sets=() launcher=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do sets+=(--set "$1"); shift; done
  [ "${1:-}" = -- ] && { shift; launcher=("$@"); }
  local bin=$S
  [ ${#launcher[@]} -gt 0 ] && bin=$D/solver-mpi
  "$S" cases "$template" > "$W/$template.toml"
  local out=$W/nan-$label log=$W/nan-$label.log rc missing="" n f
  CFD_INJECT_NAN=$at "${launcher[@]}" "$bin" run "$W/$template.toml" --backend cuda -q -o "$out" "${sets[@]}" > "$log" 2>&1
  rc=$?
  cp "$log" "$R/fault-nan-$label.txt"
  if grep -q "does not take injected faults" "$log"; then
    row faults "NaN: $label" "the CUDA backend of this family does not take CFD_INJECT_NAN" SKIP
    return
  fi
  local IFS='|'
  for n in $needles; do grep -qF -- "$n" "$log" || missing="$missing \"$n\""; done
  unset IFS
  if [ -f "$out/$template.pvd" ]; then
    for f in $(grep -o 'file="[^"]*"' "$out/$template.pvd" | cut -d'"' -f2); do
      [ -s "$out/$f" ] || missing="$missing $f"
    done
  fi
  [ -f "$out/checkpoint.bin" ] || missing="$missing checkpoint.bin"
  # Exit 1; under mpirun, whatever non-zero status mpirun passes on.
  if { [ "$rc" -eq 1 ] || { [ ${#launcher[@]} -gt 0 ] && [ "$rc" -ne 0 ]; }; } && [ -z "$missing" ]; then
    row faults "NaN: $label" "exit $rc: $(grep -m1 -o 'diverged at step.*' "$log" | cut -c1-90)" PASS
  else
    row faults "NaN: $label" "exit $rc, missing:$missing; $(grep -m1 -i 'error' "$log" | cut -c1-120)" FAIL
  fi
}

# kill LABEL TEMPLATE [SET...]: an uninterrupted run on CUDA; the same run killed (SIGKILL, by
# CFD_INJECT_KILL) on a byte 3/5 of the way through its writes, then --restart: every file of
# the series byte-identical, no temporary file left. With DAMAGE=1 the latest checkpoint is
# truncated before the restart: --restart must refuse it (exit 2, naming it) and
# --restart=previous resume from the one before.
kill_restart() {
  local label=$1 template=$2; shift 2
  local sets=() s
  for s in "$@"; do sets+=(--set "$s"); done
  "$S" cases "$template" > "$W/$template.toml"
  local ref=$W/kill-$label-ref out=$W/kill-$label rc bytes byte n how
  run_it() { "$S" run "$W/$template.toml" --backend cuda -q "${sets[@]}" "$@"; }
  run_it -o "$ref" > "$ref.log" 2>&1 || { row faults "kill: $label" "the uninterrupted run failed: $(tail -1 "$ref.log")" FAIL; return; }
  bytes=$(cat "$ref"/*.vt* "$ref"/*.pvd "$ref"/checkpoint*.bin 2>/dev/null | wc -c)
  byte=$((bytes * 3 / 5))
  CFD_INJECT_KILL=$byte run_it -o "$out" > "$out.log" 2>&1
  rc=$?
  [ "$rc" -eq 137 ] || { row faults "kill: $label" "not killed on byte $byte (exit $rc): $(tail -1 "$out.log")" FAIL; return; }
  [ -f "$out/checkpoint.bin" ] || { row faults "kill: $label" "no checkpoint by byte $byte of $bytes" FAIL; return; }
  how="killed on byte $byte of $bytes"
  if [ "${DAMAGE:-0}" = 1 ]; then
    local size
    size=$(wc -c < "$out/checkpoint.bin")
    truncate -s $((size / 2)) "$out/checkpoint.bin"
    run_it -o "$out" --restart > "$out.damaged.log" 2>&1
    rc=$?
    cp "$out.damaged.log" "$R/fault-damaged-$label.txt"
    if [ "$rc" -ne 2 ] || ! grep -q "checkpoint.bin" "$out.damaged.log" || ! grep -q -- "--restart=previous" "$out.damaged.log"; then
      row faults "damaged checkpoint: $label" "exit $rc: $(head -c 200 "$out.damaged.log")" FAIL
      return
    fi
    row faults "damaged checkpoint: $label" "refused (exit 2): $(grep -m1 -o 'checkpoint.bin.*' "$out.damaged.log" | cut -c1-80)" PASS
    how="$how, latest checkpoint truncated, --restart=previous"
    run_it -o "$out" --restart=previous > "$out.restart.log" 2>&1
    rc=$?
  else
    how="$how, --restart"
    run_it -o "$out" --restart > "$out.restart.log" 2>&1
    rc=$?
  fi
  [ "$rc" -eq 0 ] || { row faults "kill: $label" "$how: exit $rc: $(tail -1 "$out.restart.log")" FAIL; return; }
  if compgen -G "$out/.tmp-*" > /dev/null; then
    row faults "kill: $label" "$how: temporary files left: $(cd "$out" && echo .tmp-* | cut -c1-80)" FAIL
  elif n=$(every_file_same "$out" "$ref" "$template"); then
    row faults "kill: $label" "$how: $n files byte-identical" PASS
  else
    row faults "kill: $label" "$how: the series differs from the uninterrupted run's" FAIL
  fi
}

part_faults() {
  # The suite's cases (solver/tests/faults.rs), on CUDA.
  nan heat heat-benchmark 30:1000 \
    "diverged at step 30|phi NaN at point 1000 (8, 14, 3)|checkpoint of step 20" \
    "grid.dims=[16,15,16]" time.steps=100 output.every=20 output.checkpoint_every=10
  nan shallow-water swe-column 40:7550 \
    "diverged at step 40|depth NaN in cell 7550 (x fastest)|checkpoint of step 20" \
    output.every=20 output.checkpoint_every=20 time.check_every=10 time.end_time=10
  # Cell (64, 64) of a 128^2 grid.
  nan euler euler-riemann-2d 10:8256 "diverged at step 10|NaN|checkpoint of step 8" \
    "grid.dims=[128,128,1]" output.every=4 output.checkpoint_every=2
  if [ "$gpus" -ge 2 ]; then
    nan heat-2-gpus heat-benchmark 30:1000 \
      "diverged at step 30|phi NaN at point 1000 (8, 14, 3)|checkpoint of step 20" \
      "grid.dims=[16,15,16]" time.steps=100 output.every=20 output.checkpoint_every=10 run.gpus=2
    if [ -x "$D/solver-mpi" ] && command -v mpirun > /dev/null; then
      # Point (8, 14, 12): in the upper half of z, on rank 1.
      nan heat-2-ranks heat-benchmark 30:3112 "diverged at step 30|on rank 1|checkpoint of step 20" \
        "grid.dims=[16,15,16]" time.steps=100 output.every=20 output.checkpoint_every=10 \
        -- mpirun --allow-run-as-root -np 2 -x CFD_INJECT_NAN -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH
    else
      row faults "NaN: heat-2-ranks" "no $D/solver-mpi or no mpirun" SKIP
    fi
  else
    row faults "NaN: 2 GPUs, 2 ranks" "one GPU here" SKIP
  fi
  kill_restart heat heat-benchmark "grid.dims=[24,23,24]" time.steps=30 output.every=1 output.checkpoint_every=1
  kill_restart shallow-water swe-column output.every=2 output.checkpoint_every=2
  kill_restart euler euler-riemann-2d "grid.dims=[128,128,1]" output.every=2 output.checkpoint_every=2
  DAMAGE=1 kill_restart heat-damaged heat-benchmark "grid.dims=[24,23,24]" time.steps=30 output.every=1 \
    output.checkpoint_every=1
}

# ---------------------------------------------------------------------------------- runs
part_runs() {
  local c v out linf rc
  for c in heat-decay heat-gaussian heat-erfc; do
    "$S" cases $c > "$W/$c.toml"
    for v in register-queue naive; do
      out=$W/run-$c-$v
      if "$S" run "$W/$c.toml" --backend cuda -q --set heat.kernel=$v -o "$out" > "$out.log" 2>&1; then
        linf=$(python3 -c "import json, sys; print('%.3e' % json.load(open(sys.argv[1]))['errors']['linf'])" "$out/summary.json")
        row runs "$c $v" "linf error $linf against the exact solution" PASS
      else
        row runs "$c $v" "$(tail -1 "$out.log")" FAIL
      fi
    done
  done
  "$S" cases heat-benchmark > "$W/b.toml"
  "$S" run "$W/b.toml" --backend cuda -q --set "grid.dims=[32,32,32]" --set time.cfl=5 -o "$W/div" > "$W/div.log" 2>&1
  rc=$?
  cp "$W/div.log" "$R/run-unstable.txt"
  case $rc in
    1) row runs "heat at CFL 5" "stopped (exit 1): $(grep -m1 -o 'diverged.*' "$W/div.log" | cut -c1-80)" PASS ;;
    2) row runs "heat at CFL 5" "refused before step 1 (exit 2): $(head -1 "$W/div.log" | cut -c1-80)" PASS ;;
    *) row runs "heat at CFL 5" "exit $rc: $(tail -1 "$W/div.log")" FAIL ;;
  esac
}

# ---------------------------------------------------------------------------------- bench
part_bench() {
  local meshes="" d r cpu="" sizes="" fam rc
  for d in ${ADVECT_DIMS:-26 55}; do
    for r in ${ADVECT_ORDERS:-none rcm hilbert}; do
      "$M" generate box --dims "$d,$d,$d" --reorder "$r" -o "$W/box$d-$r.pmesh" > /dev/null 2>&1
      meshes="$meshes,$W/box$d-$r.pmesh"
    done
  done
  if [ -z "${SKIP_CHANNEL:-}" ]; then
    if [ -f "$D/channel-1m.msh.xz" ]; then
      python3 -c "
import lzma, shutil, sys
with lzma.open(sys.argv[1]) as a, open(sys.argv[2], 'wb') as b:
    shutil.copyfileobj(a, b, 1 << 24)" "$D/channel-1m.msh.xz" "$W/channel-1m.msh"
    elif [ -f "$D/channel-1m.msh" ]; then
      ln -s "$(cd "$D" && pwd -P)/channel-1m.msh" "$W/channel-1m.msh"
    fi
    if [ -f "$W/channel-1m.msh" ]; then
      for r in ${ADVECT_ORDERS:-none rcm hilbert}; do
        "$M" prepare "$W/channel-1m.msh" --reorder "$r" -o "$W/channel1m-$r.pmesh" > /dev/null 2>&1 \
          && meshes="$meshes,$W/channel1m-$r.pmesh"
      done
    fi
  fi
  [ "${CPU:-0}" = 1 ] && cpu="--cpu"
  [ -n "${BENCH_SIZES:-}" ] && sizes="--sizes $BENCH_SIZES"
  : > "$R/bench.txt"
  # Navier-Stokes runs on its template's mesh only (its set-up on each 1M-tet order takes
  # minutes; scripts/gpu/ns.sh benchmarks it on a DFG mesh), and in f64.
  for fam in heat advect euler shallow-water navier-stokes; do
    local extra=()
    [ -n "$meshes" ] && extra+=(--mesh "${meshes#,}")
    # shellcheck disable=SC2206
    [ -n "$sizes" ] && extra+=($sizes)
    [ "$fam" = navier-stokes ] && extra=(--precision f64)
    rm -f "$R/bench-$fam.json"
    # shellcheck disable=SC2086
    "$S" bench $fam "${extra[@]}" --steps "${BENCH_STEPS:-20}" --reps "${BENCH_REPS:-2}" $cpu \
      --json "$R/bench-$fam.json" 2>&1 | tee -a "$R/bench.txt"
    rc=${PIPESTATUS[0]}
    bench_rows "$fam" "$R/bench-$fam.json" "$rc"
  done
  if [ "${WITH_1024:-1}" = 1 ]; then
    rm -f "$R/bench-heat-1024.json"
    "$S" bench heat --sizes 1024 --precision f32 --steps 10 --reps 2 --json "$R/bench-heat-1024.json" 2>&1 \
      | tail -n +3 | tee -a "$R/bench.txt"
    bench_rows "heat 1024^3" "$R/bench-heat-1024.json" "${PIPESTATUS[0]}"
  fi
}

# bench_rows LABEL JSON RC: a table row per precision: the largest case's seconds per step and
# share of the copy bandwidth.
bench_rows() {
  local label=$1 json=$2 rc=$3
  if [ "$rc" -ne 0 ] || [ ! -f "$json" ]; then
    row bench "$label" "solver bench exited $rc: $(grep -iE 'error' "$R/bench.txt" | tail -1 | cut -c1-100)" FAIL
    return
  fi
  python3 - "$json" "$label" <<'PY' | while IFS=$'\t' read -r name figure; do row bench "$name" "$figure" PASS; done
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
for p in sorted({r["precision"] for r in rows}):
    mine = [r for r in rows if r["precision"] == p]
    big = max(mine, key=lambda r: (r["updates_per_step"], -r["seconds_per_step"]))
    print(f"{sys.argv[2]} {p}\t{len(mine)} rows; largest: {big['variant']} {big['size']}: "
          f"{big['seconds_per_step']:.3e} s/step, {100 * big['fraction_of_copy_bandwidth']:.0f} % of copy bandwidth")
PY
}

# ---------------------------------------------------------------------------------- runners
part_euler() {
  rm -f "$R/euler-runs.txt"   # euler.sh appends to it
  EULER_BENCH=0 OUT="$R" bash "$H/euler.sh" > "$R/euler.txt" 2>&1
  local rc=$?
  [ -f "$R/euler-runs.txt" ] && cat "$R/euler-runs.txt"
  row euler "scripts/gpu/euler.sh" "$(count . "$R/euler-runs.txt") runs (euler-runs.txt), $(count '^FAIL' "$R/euler.txt") failures" \
    "$([ $rc -eq 0 ] && echo PASS || echo FAIL)"
}

part_cg() {
  OUT="$R" bash "$H/cg.sh" > "$R/cg.txt" 2>&1
  local rc=$?
  sed -n '/^| solver/,$p' "$R/cg.txt"
  if [ -f "$R/bench-cg.json" ]; then
    python3 - "$R/bench-cg.json" <<'PY' | while IFS=$'\t' read -r name figure; do row cg "$name" "$figure" PASS; done
import json, sys
for x in json.load(open(sys.argv[1]))["rows"]:
    if x.get("backend", "cuda") == "cuda":
        print(f"bench cg {x['preconditioner']} ({x['unknowns']} unknowns)\t{x['iterations']} iterations to 1e-8, "
              f"{x['seconds_per_solve']:.3e} s/solve, {100 * x['fraction_of_copy_bandwidth']:.0f} % of copy bandwidth")
PY
  fi
  row cg "scripts/gpu/cg.sh" "CPU-vs-CUDA rows: $(count '^PASS check' "$R/cg-check.txt") PASS, $(count '^FAIL' "$R/cg.txt") failures" \
    "$([ $rc -eq 0 ] && echo PASS || echo FAIL)"
}

part_parts() {
  if [ "$gpus" -lt 2 ]; then
    row parts "2 GPUs against 1" "one GPU here" SKIP
    return
  fi
  rm -f "$R"/parts-same.txt "$R"/parts-bench.txt   # parts.sh appends to them
  GPU="$D" OUT="$R" PARTS_CHECK=0 PARTS_SAME=final PARTS_BENCHES="euler-plm euler-hllc heat swe" \
    bash "$H/parts.sh" > "$R/parts.txt" 2>&1
  local rc=$?
  grep -E "differ|^\|" "$R/parts.txt"
  row parts "2 GPUs write the same files as 1" \
    "$(count ' 0 differ' "$R/parts-same.txt") of $(count 'differ' "$R/parts-same.txt") comparisons identical" \
    "$([ $rc -eq 0 ] && echo PASS || echo FAIL)"
  grep -E '^\| .* \| [0-9.]+x \|' "$R/parts.txt" | awk -F'|' '{ gsub(/^ +| +$/, "", $2); gsub(/^ +| +$/, "", $3); gsub(/ /, "", $6); print $2 " " $3 "\t" $6 }' \
    | while IFS=$'\t' read -r name speedup; do row parts "$name" "2 GPUs: $speedup the speed of 1" PASS; done
}

# ---------------------------------------------------------------------------------- main
for p in $parts; do
  echo
  echo "================ $p"
  "part_$p"
done

echo
echo "================ summary: $(head -1 "$R/device.txt")"
python3 - "$TABLE" <<'PY' | tee "$R/table.txt"
import sys, textwrap
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
w = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(["part", "name"])]
w = [min(w[0], 8), min(w[1], 48)]
print(f"{'part':<{w[0]}}  {'name':<{w[1]}}  {'result':<6}  result or figure")
for part, name, figure, result in rows:
    lines = textwrap.wrap(figure, 90) or [""]
    print(f"{part:<{w[0]}}  {name[:w[1]]:<{w[1]}}  {result:<6}  {lines[0]}")
    for l in lines[1:]:
        print(" " * (w[0] + w[1] + 12) + l)
n = {k: sum(1 for r in rows if r[3] == k) for k in ("PASS", "FAIL", "SKIP")}
print(f"run.sh: {n['PASS']} PASS, {n['FAIL']} FAIL, {n['SKIP']} SKIP")
PY
if grep -q $'\tFAIL$' "$TABLE"; then exit 1; fi
