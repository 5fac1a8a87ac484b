#!/usr/bin/env bash
# The shallow-water family on the GPU machine (from the repository root, .gpu staged):
# CPU-vs-CUDA checks, the benchmarks (cell-updates/s against the copy bandwidth), the paper's
# one-week run (1000 x 1000, 1,679,708 steps, f32) extrapolated from >= 100,000 measured steps,
# the step's floor (benchmarks/swe_floor/floor.py: a lower bound on the step's time, needs CuPy),
# and the paper's Table V: L1 of h, q_x, q_y between the sequential CPU reference and the device
# for the tank at t = 1 s, 100^2, 400^2, 1000^2 (validation/swe-tank/swe_tank_l1.py, numpy only).
# Results in $OUT (or .gpu/results). Knobs: SWE_BENCH=0 (no benchmarks), SWE_WEEK_STEPS
# (default 100000), SWE_TANK="100 400 1000".
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
S=.gpu/solver
R=${OUT:-.gpu/results}
W=$(mktemp -d)
mkdir -p "$R"
status=0
fail() { echo "FAIL: $*"; status=1; }

echo "== registers and spills of swe.cu"
python3 scripts/dev/kernel_resources.py swe 2>&1 | tee "$R/swe-kernel-resources.txt" || fail "kernel resources"

echo "== CPU vs CUDA: shallow-water checks"
$S check shallow-water 2>&1 | tee "$R/check-swe.txt" || fail "check shallow-water"

week=${SWE_WEEK_STEPS:-100000}
echo "== the paper's one-week run: 1000^2 f32, $week steps measured, times 1,679,708"
$S bench shallow-water --sizes 1000 --steps "$week" --reps 1 --precision f32 --json "$R/bench-swe-week.json" \
  | tee "$R/swe-week.txt" || fail "week"
python3 -c "
import json; r = json.load(open('$R/bench-swe-week.json'))['rows'][0]
s = r['seconds_per_step']
print('one week, 1000^2 f32: %.3e s/step over $week steps -> %.1f s for 1,679,708 steps (paper: 91 min on one M2050, 29 min on 4); %.1f%% of copy bandwidth' % (s, s * 1679708, 100 * r['fraction_of_copy_bandwidth']))" \
  | tee -a "$R/swe-week.txt"

echo "== the step's floor: its per-cell work without the tiles' overlap (benchmarks/swe_floor/floor.py, CuPy)"
python3 benchmarks/swe_floor/floor.py --sizes 1000,8000 --json "$R/swe-floor.json" 2>&1 | tee "$R/swe-floor.txt" || fail "floor"

if [ "${SWE_BENCH:-1}" != 0 ]; then
  echo "== benchmarks"
  $S bench shallow-water --steps 200 --json "$R/bench-swe.json" 2>&1 | tee "$R/bench-swe.txt" || fail "bench"
fi

echo "== the paper's Table V: the tank at t = 1 s, L1 against the CPU (f64 and f32 references)"
$S cases swe-column > "$W/tank.toml"
for n in ${SWE_TANK:-100 400 1000}; do
  for run in "cpu f64" "cpu f32" "cuda f32" "cuda f64"; do
    set -- $run
    $S run "$W/tank.toml" --backend "$1" -q --set run.precision="$2" --set "grid.dims=[$n,$n,1]" \
      --set output.interval=0 -o "$W/tank-$n-$1-$2" || fail "tank $n $run"
  done
  for pair in "cpu-f32 cuda-f32" "cpu-f64 cuda-f64" "cpu-f64 cuda-f32"; do
    set -- $pair
    python3 validation/swe-tank/swe_tank_l1.py "$W/tank-$n-$1" "$W/tank-$n-$2" --label "$1 vs $2" | tee -a "$R/swe-tank.txt"
  done
done

echo "== summary"
grep -E "^shallow|FAIL|fail" "$R/check-swe.txt" | tail -12
tail -1 "$R/swe-week.txt"
grep "^floor" "$R/swe-floor.txt"
cat "$R/swe-tank.txt"
rm -rf "$W"
exit $status
