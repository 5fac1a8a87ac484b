#!/usr/bin/env bash
# Run on the device machine from the repository root (carry .gpu): every CUDA check and
# benchmark, then a short table. Results land in $OUT (or .gpu/results).
# Knobs (environment): ONLY=advect (advection part only); ADVECT_DIMS (box sizes, default
# "26 55": 0.1M and 1M cells; "110" is 8M); ADVECT_ORDERS (default "none rcm hilbert");
# ONE_THREAD_MAX (largest mesh timed on one CPU thread, default 2000000); SKIP_CHECK=1 (no
# CPU-vs-CUDA advection check); SKIP_CHANNEL=1 (no 1M-tet Gmsh channel); TILES, BENCH_SIZES, BENCH_EXTRA, BENCH_STEPS (heat bench).
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
S=.gpu/solver
R=${OUT:-.gpu/results}
W=$(mktemp -d)
mkdir -p "$R"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$R/device.txt"
$S devices
status=0
fail() { echo "FAIL: $*"; status=1; }
M=.gpu/meshtool
advect() {
  if [ -z "${SKIP_CHECK:-}" ]; then
    echo "== advection: CPU vs CUDA on the paper's test (duct.msh from meshes/duct.geo, staged by gpu_stage.sh)"
    $M prepare .gpu/duct.msh -o "$W/duct.pmesh" 2>&1 | tail -1
    $S check advect --mesh "$W/duct.pmesh" --steps 60 || fail "check advect"
  fi
  echo "== advection benchmark: box meshes in input, RCM and Hilbert order"
  list=""
  for d in ${ADVECT_DIMS:-26 55}; do for r in ${ADVECT_ORDERS:-none rcm hilbert}; do
    $M generate box --dims $d,$d,$d --reorder $r -o "$W/box$d-$r.pmesh" 2>/dev/null
    list="$list,$W/box$d-$r.pmesh"
  done; done
  if [ -f .gpu/channel-1m.msh ] && [ -z "${SKIP_CHANNEL:-}" ]; then   # a 1M-tet Gmsh mesh (gpu_stage.sh stages it)
    for r in ${ADVECT_ORDERS:-none rcm hilbert}; do
      $M prepare .gpu/channel-1m.msh --reorder $r -o "$W/channel1m-$r.pmesh" 2>/dev/null
      list="$list,$W/channel1m-$r.pmesh"
    done
  fi
  $S bench advect --meshes "${list#,}" --steps 5 --one-thread-max ${ONE_THREAD_MAX:-2000000} || fail "bench advect"
}
if [ "${ONLY:-}" = advect ]; then advect 2>&1 | tee "$R/advect.txt"; exit $status; fi
{
echo "== CPU vs CUDA agreement (benchmark cube, 100 steps; 45^3 is not a multiple of the tile)"
$S check heat --n 64 --steps 100 || fail "check heat 64"
$S check heat --n 45 --steps 100 || fail "check heat 45"
} 2>&1 | tee "$R/check_heat.txt"
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
$S run "$W/b.toml" --backend cuda -q --set grid.dims=[64,64,64] --set time.steps=20 --set output.every=10 -o "$W/full" || fail "full run"
$S run "$W/b.toml" --backend cuda -q --set grid.dims=[64,64,64] --set time.steps=10 --set output.every=10 --set output.checkpoint_every=10 -o "$W/part" || fail "part run"
$S run "$W/b.toml" --backend cuda -q --set grid.dims=[64,64,64] --set time.steps=20 --set output.every=10 -o "$W/part" --restart || fail "restart"
cmp "$W/full/step_0000020.vti" "$W/part/step_0000020.vti" && echo "restart: identical" || fail "restart differs"
echo "== diverging run (CFL 5) stops with a message"
$S run "$W/b.toml" --backend cuda -q --set grid.dims=[32,32,32] --set time.cfl=5 -o "$W/div"; rc=$?
[ $rc -eq 1 ] && echo "diverging run: exit 1 as expected" || fail "diverging run exit $rc"
} 2>&1 | tee "$R/runs.txt"
advect 2>&1 | tee "$R/advect.txt"
echo "== benchmark"
for t in ${TILES:-}; do
  echo "-- tile $t"; CFD_HEAT_TILE=$t $S bench heat --sizes 512 --steps 20 | tail -n +3
done
$S bench heat --sizes ${BENCH_SIZES:-128,256,512} ${BENCH_EXTRA:---with-1024 --cpu} --steps ${BENCH_STEPS:-20} --json "$R/bench_heat.json" | tee "$R/bench_heat.txt" || fail bench
echo
echo "================ summary ================"
grep -E "PASS|FAIL|identical|expected|linf" "$R/check_heat.txt" "$R/runs.txt" | sed 's/^[^:]*://'
cat "$R/advect.txt" | grep -v "^=="
cat "$R/bench_heat.txt"
exit $status
