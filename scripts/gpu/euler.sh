#!/usr/bin/env bash
# The Euler family on the GPU machine (from the repository root, .gpu staged; run.sh runs it
# too): CPU-vs-CUDA
# checks, the paper's 2D benchmark run to its end time, the Rayleigh-Taylor growth rate at two
# resolutions with each HLL-type solver (validation/euler-rt/rt_growth.py, numpy only), where the time of a
# step goes (the CFL reduction's share, the reconstruction's share), Rayleigh-Taylor frames for
# scripts/viz/render_rt.py, and the benchmarks. Results in $OUT (or .gpu/results). Knobs:
# EULER_BENCH=0 (no benchmarks), RT_DIMS (default "128 256": N x 3N cells), RT_HLL_FINE (default
# "512"; "512 1024" adds 4 minutes: the finer grids HLL needs, f32), EULER_PROFILE=1 (an nsys profile of the 2D
# benchmark, if nsys is there).
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
S=.gpu/solver
R=${OUT:-.gpu/results}
W=$(mktemp -d)
mkdir -p "$R"
status=0
fail() { echo "FAIL: $*"; status=1; }

echo "== CPU vs CUDA: euler checks"
$S check euler 2>&1 | tee "$R/check-euler.txt" || fail "check euler"

echo "== the paper's benchmark run to t = 0.2 (1000^2, van Leer, CFL 0.95, f32), no output but the last"
$S cases euler-riemann-2d > "$W/r2d.toml"
for riemann in exact hllc; do
  for sch in muscl-hancock plm-rk3; do
    lim=van-leer
    $S run "$W/r2d.toml" --backend cuda -q --set run.precision=f32 --set euler.riemann=\"$riemann\" \
      --set euler.scheme=\"$sch\" -o "$W/r2d-$sch-$riemann" || fail "run r2d $sch $riemann"
    python3 -c "
import json; d = json.load(open('$W/r2d-$sch-$riemann/summary.json'))
print('riemann-2d 1000^2 f32 %-14s %-6s steps %d  stepping %.4f s  (run %.3f s, output %.3f s)' % ('$sch', '$riemann', d['steps'], d['wall_seconds'] - d['output_seconds'], d['wall_seconds'], d['output_seconds']))" \
      | tee -a "$R/euler-runs.txt"
  done
done
stepping() {  # name, summary.json: seconds per step without output
  python3 -c "import json; d = json.load(open('$2')); s = d['wall_seconds'] - d['output_seconds']; print('%-58s steps %5d  %.3e s/step' % ('$1', d['steps'], s / d['steps']))" | tee -a "$R/euler-runs.txt"
}
echo "== where a step goes: the same benchmark at a fixed dt (no CFL reduction, no host round trip)"
for riemann in exact hllc; do
  $S run "$W/r2d.toml" --backend cuda -q --set run.precision=f32 --set euler.riemann=\"$riemann\" --set time.dt=3.7e-4 -o "$W/r2d-fixed-$riemann" || fail "fixed dt"
  stepping "riemann-2d 1000^2 f32 muscl-hancock $riemann, fixed dt" "$W/r2d-fixed-$riemann/summary.json"
done
echo "== where a step goes: PLM + HLL + RK3 on 256^3 f32 with and without the reconstruction"
$S cases euler-rt-3d > "$W/rt3.toml"
for lim in minmod first-order; do
  $S run "$W/rt3.toml" --backend cuda -q --set run.precision=f32 --set "grid.dims=[256,256,256]" --set euler.limiter=\"$lim\" \
    --set time.end_time=0.05 --set output.every=0 -o "$W/rt3-$lim" || fail "rt3 $lim"
  stepping "rt-3d 256^3 f32 plm-rk3 hll $lim" "$W/rt3-$lim/summary.json"
done
echo "== the PLM paper's 3D run: 64 x 64 x 192 to t = 12"
for p in f32 f64; do
  $S run "$W/rt3.toml" --backend cuda -q --set run.precision=$p --set output.every=0 -o "$W/rt3-paper-$p" || fail "rt3 paper"
  stepping "rt-3d 64x64x192 $p to t = 12" "$W/rt3-paper-$p/summary.json"
done

echo "== Rayleigh-Taylor single mode, 2D: growth rate against sqrt(A g k)"
$S cases euler-rt-2d > "$W/rt.toml"
for n in ${RT_DIMS:-128 256}; do
  for riemann in hll hllc; do
    for amp in 0.01 0.001; do
      end=4.0; every=0.1; [ "$amp" = 0.001 ] && end=6.0 && every=0.2
      o="$W/rt-$n-$riemann-$amp"
      $S run "$W/rt.toml" --backend cuda -q --set "grid.dims=[$n,$((3 * n)),1]" --set euler.riemann=\"$riemann\" \
        --set euler.initial.amplitude=$amp --set time.end_time=$end --set output.interval=$every -o "$o" || fail "rt $n $riemann"
      printf "rt-2d %-4s %-5s A=%-6s " "$n" "$riemann" "$amp" | tee -a "$R/euler-runs.txt"
      python3 validation/euler-rt/rt_growth.py "$o" --max-kh 0.5 | tail -1 | tee -a "$R/euler-runs.txt"
    done
  done
done

for n in ${RT_HLL_FINE:-512}; do
  o="$W/rt-$n-hll-fine"
  $S run "$W/rt.toml" --backend cuda -q --set run.precision=f32 --set "grid.dims=[$n,$((3 * n)),1]" \
    --set euler.initial.amplitude=0.001 --set time.end_time=6.0 --set output.interval=0.2 -o "$o" || fail "rt $n hll"
  printf "rt-2d %-4s %-5s A=%-6s f32 " "$n" hll 0.001 | tee -a "$R/euler-runs.txt"
  python3 validation/euler-rt/rt_growth.py "$o" --max-kh 0.5 | tail -1 | tee -a "$R/euler-runs.txt"
done

echo "== Rayleigh-Taylor frames for scripts/viz/render_rt.py (2D 128 x 384 to t = 10, 3D 32 x 32 x 96 to t = 12, f32: small enough to bring back)"
$S run "$W/rt.toml" --backend cuda -q --set run.precision=f32 --set "grid.dims=[128,384,1]" --set time.end_time=10.0 \
  --set output.interval=2.5 -o "$W/frames/rt2d" || fail "rt2d frames"
$S run "$W/rt3.toml" --backend cuda -q --set run.precision=f32 --set "grid.dims=[32,32,96]" --set output.interval=4.0 -o "$W/frames/rt3d" || fail "rt3d frames"
tar -czf "$R/rt-frames.tar.gz" -C "$W/frames" rt2d rt3d

if [ "${EULER_PROFILE:-0}" = 1 ] && command -v nsys >/dev/null; then
  echo "== nsys: the paper's benchmark, HLLC"
  nsys profile -o "$W/prof" --force-overwrite true $S run "$W/r2d.toml" --backend cuda -q --set run.precision=f32 \
    --set euler.riemann=\"hllc\" -o "$W/prof-out" >/dev/null 2>&1
  nsys stats --report cuda_gpu_kern_sum,cuda_api_sum --format csv "$W/prof.nsys-rep" 2>/dev/null | head -40 | tee "$R/euler-profile.txt"
fi

echo "== run.math = \"fast\": the Rayleigh-Taylor growth rate as with exact math (2D 128 x 384 HLLC; 3D 64 x 64 x 192, the z march)"
for math in exact fast; do
  o="$W/rt-fast-$math"
  $S run "$W/rt.toml" --backend cuda -q --set "run.math=\"$math\"" --set "grid.dims=[128,384,1]" --set euler.riemann=\"hllc\" \
    --set euler.initial.amplitude=0.01 --set time.end_time=4.0 --set output.interval=0.1 -o "$o" || fail "rt fast $math"
  printf "rt-2d 128  hllc  A=0.01   %-5s " "$math" | tee -a "$R/euler-runs.txt"
  python3 validation/euler-rt/rt_growth.py "$o" --max-kh 0.5 | tail -1 | tee -a "$R/euler-runs.txt"
  o="$W/rt3-fast-$math"
  $S run "$W/rt3.toml" --backend cuda -q --set run.precision=f32 --set "run.math=\"$math\"" --set time.end_time=4.0 \
    --set output.interval=0.2 -o "$o" || fail "rt3 fast $math"
  printf "rt-3d 64   hll   f32      %-5s " "$math" | tee -a "$R/euler-runs.txt"
  python3 validation/euler-rt/rt_growth.py "$o" --max-kh 0.5 | tail -1 | tee -a "$R/euler-runs.txt"
done

if [ "${EULER_BENCH:-1}" = 1 ]; then
  echo "== benchmarks: euler (exact math, then the headline rows with run.math = \"fast\")"
  $S bench euler --steps ${BENCH_STEPS:-10} --reps ${BENCH_REPS:-2} --json "$R/bench-euler.json" 2>&1 | tee "$R/bench-euler.txt" || fail "bench euler"
  for only in "cube hllc:512" "rt-3d plm-rk3 hll:512" "riemann-2d hllc:1000"; do
    $S bench euler --only "${only%%:*}" --sizes "${only##*:}" --precision f32 --steps ${BENCH_STEPS:-10} --reps ${BENCH_REPS:-2} \
      --set 'run.math="fast"' 2>&1 | grep "^euler" | tee -a "$R/bench-euler.txt" || fail "bench euler fast"
  done
fi

echo
echo "================ euler summary ================"
grep -E "PASS|FAIL" "$R/check-euler.txt" | sed 's/  */ /g'
cat "$R/euler-runs.txt"
[ -f "$R/bench-euler.txt" ] && cat "$R/bench-euler.txt"
exit $status
