#!/usr/bin/env bash
# Run on the device machine from the repository root (carry .gpu): every family's CPU-vs-CUDA
# checks (`solver check all`) and benchmarks (`solver bench FAMILY`), the CUDA run checks (exact
# solutions, restart, divergence), then a short table. Results land in $OUT (or .gpu/results).
# Knobs (environment): ADVECT_DIMS (box sizes for the unstructured benchmark, default "26 55":
# 0.1M and 1M cells; "110" is 8M); ADVECT_ORDERS (default "none rcm hilbert"); SKIP_CHANNEL=1
# (no 1M-tet Gmsh channel); BENCH_SIZES (structured sizes instead of each benchmark's own);
# BENCH_STEPS, BENCH_REPS;
# WITH_1024=0 (skip the 1024^3 f32 heat row); CPU=1 (also time the CPU backend);
# SKIP_CG=1 (not gpu_cg.sh); SKIP_EULER_RUNS=1 (not gpu_euler.sh's runs); SKIP_CHECKS=1 (no check
# all, no run checks); SKIP_BENCH=1 (no benchmarks). With a 600 s limit per command (the checks and
# every benchmark took 568 s on an H100 on 2026-11-23), run `SKIP_BENCH=1 SKIP_EULER_RUNS=1 SKIP_CG=1
# bash .gpu/gpu_run.sh`, `SKIP_CHECKS=1 WITH_1024=0 SKIP_EULER_RUNS=1 SKIP_CG=1 bash .gpu/gpu_run.sh`
# and `EULER_BENCH=0 bash .gpu/gpu_euler.sh` as separate calls.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
S=.gpu/solver
M=.gpu/meshtool
R=${OUT:-.gpu/results}
W=$(mktemp -d)
mkdir -p "$R"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$R/device.txt"
$S devices
status=0
fail() { echo "FAIL: $*"; status=1; }

echo "== meshes (duct.msh from meshes/duct.geo and the 1M-tet channel, staged by gpu_stage.sh)"
$M prepare .gpu/duct.msh -o "$W/duct.pmesh" 2>&1 | tail -1
meshes=""
[ "${SKIP_BENCH:-0}" = 1 ] && ADVECT_DIMS=" " SKIP_CHANNEL=1   # the benchmarks' meshes only
for d in ${ADVECT_DIMS:-26 55}; do for r in ${ADVECT_ORDERS:-none rcm hilbert}; do
  $M generate box --dims $d,$d,$d --reorder $r -o "$W/box$d-$r.pmesh" 2>/dev/null
  meshes="$meshes,$W/box$d-$r.pmesh"
done; done
if [ -f .gpu/channel-1m.msh ] && [ -z "${SKIP_CHANNEL:-}" ]; then
  for r in ${ADVECT_ORDERS:-none rcm hilbert}; do
    $M prepare .gpu/channel-1m.msh --reorder $r -o "$W/channel1m-$r.pmesh" 2>/dev/null
    meshes="$meshes,$W/channel1m-$r.pmesh"
  done
fi

if [ "${SKIP_CHECKS:-0}" != 1 ]; then
echo "== CPU vs CUDA: every family's checks (unstructured ones on the paper's duct)"
$S check all --mesh "$W/duct.pmesh" 2>&1 | tee "$R/check.txt" || fail "check all"

{
echo "== solver run on CUDA: heat templates against their exact solutions"
for c in heat-decay heat-gaussian heat-erfc; do
  $S cases $c > "$W/$c.toml"
  for v in register-queue naive; do
    $S run "$W/$c.toml" --backend cuda -q --set heat.kernel=$v -o "$W/run-$c-$v" || fail "run $c $v"
    python3 -c "import json;d=json.load(open('$W/run-$c-$v/summary.json'));print('%-14s %-15s linf %.3e  %s' % ('$c', '$v', d['errors']['linf'], d['device']))"
  done
done
echo "== restart on CUDA is bit-identical"
$S cases heat-benchmark > "$W/b.toml"
g="grid.dims=[64,63,64]"
$S run "$W/b.toml" --backend cuda -q --set $g --set time.steps=20 --set output.every=10 -o "$W/full" || fail "full run"
$S run "$W/b.toml" --backend cuda -q --set $g --set time.steps=10 --set output.every=10 --set output.checkpoint_every=10 -o "$W/part" || fail "part run"
$S run "$W/b.toml" --backend cuda -q --set $g --set time.steps=20 --set output.every=10 -o "$W/part" --restart || fail "restart"
cmp "$W/full/step_0000020.vti" "$W/part/step_0000020.vti" && echo "restart: identical" || fail "restart differs"
echo "== diverging run (CFL 5) stops with a message"
$S run "$W/b.toml" --backend cuda -q --set "grid.dims=[32,32,32]" --set time.cfl=5 -o "$W/div"; rc=$?
[ $rc -eq 1 ] && echo "diverging run: exit 1 as expected" || fail "diverging run exit $rc"
} 2>&1 | tee "$R/runs.txt"
fi

if [ "${SKIP_BENCH:-0}" != 1 ]; then
echo "== benchmarks: every family"
cpu=""; [ "${CPU:-0}" = 1 ] && cpu="--cpu"
sizes=""; [ -n "${BENCH_SIZES:-}" ] && sizes="--sizes $BENCH_SIZES"   # default: each benchmark's own
# Every family on the meshes above but Navier-Stokes, which runs on its template's mesh only:
# its set-up on each 1M-tet channel order (faces, fits, matrices) took the call past 600 s;
# gpu_ns.sh benchmarks it on a DFG mesh of the issue's size.
: > "$R/bench.txt"
for fam in heat advect euler shallow-water; do
  $S bench $fam $sizes --mesh "${meshes#,}" --steps ${BENCH_STEPS:-20} --reps ${BENCH_REPS:-2} $cpu \
    --json "$R/bench-$fam.json" 2>&1 | tee -a "$R/bench.txt" || fail "bench $fam"
done
$S bench navier-stokes --precision f64 --steps ${BENCH_STEPS:-20} --reps ${BENCH_REPS:-2} $cpu \
  --json "$R/bench-navier-stokes.json" 2>&1 | tee -a "$R/bench.txt" || fail "bench navier-stokes"
if [ "${WITH_1024:-1}" = 1 ]; then
  $S bench heat --sizes 1024 --precision f32 --steps 10 --reps 2 2>&1 | tail -n +3 | tee -a "$R/bench.txt" || fail "bench 1024"
fi
fi

if [ "${SKIP_EULER_RUNS:-0}" != 1 ]; then
  echo "== the Euler family's runs (growth rates, time to solution, frames): gpu_euler.sh"
  EULER_BENCH=0 OUT="$R" bash "$(dirname "$0")/gpu_euler.sh" > "$R/euler.txt" 2>&1 || fail "gpu_euler.sh"
fi

if [ "${SKIP_CG:-0}" != 1 ]; then
  echo "== the CG micro-benchmark (CPU vs CUDA, 10 M unknowns, CuPy peer): gpu_cg.sh"
  OUT="$R" bash "$(dirname "$0")/gpu_cg.sh" > "$R/cg.txt" 2>&1 || fail "gpu_cg.sh"
fi

if [ "${SKIP_PARTS:-0}" != 1 ] && [ "$(nvidia-smi -L | wc -l)" -ge 2 ]; then
  echo "== several GPUs: Euler, heat and shallow water split over 2 devices (gpu_parts.sh)"
  GPU="$(dirname "$0")" OUT="$R" PARTS_CHECK=0 PARTS_SAME=final PARTS_BENCHES="euler-plm euler-hllc heat swe" \
    bash "$(dirname "$0")/gpu_parts.sh" > "$R/parts.txt" 2>&1 || fail "gpu_parts.sh"
fi

echo
echo "================ summary ================"
[ -f "$R/check.txt" ] && grep -E "PASS|FAIL" "$R/check.txt"
[ -f "$R/runs.txt" ] && grep -E "identical|expected|linf|FAIL" "$R/runs.txt"
[ -f "$R/bench.txt" ] && cat "$R/bench.txt"
[ -f "$R/euler-runs.txt" ] && cat "$R/euler-runs.txt"
[ -f "$R/cg.txt" ] && sed -n '/^| solver/,$p' "$R/cg.txt"
[ -f "$R/parts.txt" ] && grep -E "differ|^\|" "$R/parts.txt"
exit $status
