#!/usr/bin/env bash
# The shallow-water pollutant on the GPU machine (from the repository root, .gpu staged; a host
# with 2 GPUs for part 4): the pollutant moves with the water's mass flux at the donors' shares (cpu.rs, `transport`),
# so hC / h stays within [0, 1] and the pollutant's ledger closes at the default dry depth.
# 1. CPU vs CUDA: `solver check shallow-water` (every template, 1e-12 in f64, 1e-6 in f32).
# 2. The estuary's week (time.end_time = 604800 s) at the default dry depth on one GPU, f64 and
#    f32: the ledger and the concentration's bounds seen after every step (summary.json totals),
#    and the bounds of the last frame's concentration field.
# 3. The estuary's first tide on the CPU (the device's cores) against CUDA: the totals.
# 4. 2 GPUs (run.gpus = 2, NCCL) against 1: Thacker and the estuary (2 h), f64 and f32, 1 and 2
#    ghost rows: every output file compared byte for byte.
# Results in $OUT (or .gpu/results).
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export NCCL_NVLS_ENABLE=0
S=.gpu/solver
R=${OUT:-.gpu/results}
W=$(mktemp -d)
mkdir -p "$R"
status=0
fail() { echo "FAIL: $*"; status=1; }
nvidia-smi -L | tee "$R/pollutant-devices.txt"
gpus=$(nvidia-smi -L | wc -l)

ledger() {  # label, run folder
  python3 - "$1" "$2" <<'EOF'
import json, sys
label, out = sys.argv[1], sys.argv[2]
s = json.load(open(out + "/summary.json"))
t = {k: v["end"] for k, v in s["totals"].items()}
print(f"{label}: {s['steps']} steps to t = {s['end_time']} s on {s['device']}, {s['wall_seconds']:.1f} s; dry_depth {s.get('dry_depth', '?')}")
for k in ("water", "water_clipped", "water_sources", "water_boundary_in", "water_boundary_out",
          "pollutant_start", "pollutant_sources", "pollutant_boundary_in", "pollutant_boundary_out",
          "pollutant", "pollutant_imbalance", "pollutant_imbalance_relative",
          "concentration_max_seen", "concentration_below_zero_seen"):
    if k in t:
        print(f"  {k:32s} {t[k]: .12e}")
EOF
}

echo "== 1. CPU vs CUDA: shallow-water checks"
$S check shallow-water 2>&1 | grep -v "grid halo" | tee "$R/pollutant-check.txt" || fail "check"

echo "== 2. the estuary's week on one GPU, default dry depth"
$S cases swe-estuary > "$W/e.toml"
for p in f64 f32; do
  start=$(date +%s.%N)
  $S run "$W/e.toml" --backend cuda -q --set run.precision=$p --set time.end_time=604800 \
    --set output.interval=86400 -o "$W/week-$p" || fail "week $p"
  end=$(date +%s.%N)
  ledger "estuary week, CUDA $p ($(python3 -c "print(f'{$end - $start:.1f}')") s)" "$W/week-$p" | tee -a "$R/pollutant-week.txt"
  python3 - "$W/week-$p" <<'EOF' | tee -a "$R/pollutant-week.txt"
import os, sys
sys.path.insert(0, "scripts/viz")
from vti import frames, read_cell_array
import numpy as np
fs = list(frames(sys.argv[1]))
lo, hi = np.inf, -np.inf
for t, f in fs:
    c, _ = read_cell_array(f, "concentration")
    lo, hi = min(lo, float(c.min())), max(hi, float(c.max()))
print(f"  concentration field over {len(fs)} frames: min {lo:.17g}, max {hi:.17g}")
EOF
done

echo "== 3. the estuary's first tide: CPU against CUDA"
for b in cpu cuda; do
  $S run "$W/e.toml" --backend $b -q --set output.interval=0 -o "$W/tide-$b" || fail "tide $b"
  ledger "estuary one tide, $b f64" "$W/tide-$b" | tee -a "$R/pollutant-tide.txt"
done

echo "== 4. 2 GPUs against 1"
if [ "$gpus" -ge 2 ]; then
  $S cases swe-thacker > "$W/thacker.toml"
  same() {  # name, case, sets...
    local name=$1 case=$2; shift 2
    local extra=()
    for s in "$@"; do extra+=(--set "$s"); done
    for p in f64 f32; do
      for g in 1 2; do
        $S run "$case" --backend cuda -q --set run.precision=$p --set run.gpus=$g "${extra[@]}" -o "$W/$name-$p-$g" \
          || fail "$name $p $g gpus"
      done
      n=0; bad=0
      for f in "$W/$name-$p-1"/*.vti; do
        n=$((n + 1)); cmp -s "$f" "$W/$name-$p-2/$(basename "$f")" || bad=$((bad + 1))
      done
      echo "$name $p: $n files, $bad differ" | tee -a "$R/pollutant-multi.txt"
      ledger "$name $p, 2 GPUs" "$W/$name-$p-2" | grep -E "imbalance_relative|seen" | tee -a "$R/pollutant-multi.txt"
      if [ "$bad" != 0 ] || [ "$n" -lt 2 ]; then fail "$name $p differs"; fi
    done
  }
  same thacker "$W/thacker.toml" "grid.dims=[400,300,1]" "time.end_time=2.0" "output.interval=0.5" \
    "shallow-water.pollutant=[{center=[2.9,2.0],radius=0.6}]"
  same estuary "$W/e.toml" "time.end_time=7200.0" "output.interval=2400.0"
  same estuary-ghost2 "$W/e.toml" "time.end_time=7200.0" "output.interval=2400.0" "shallow-water.ghost_rows=2"
else
  echo "one GPU: no 2-GPU comparison" | tee -a "$R/pollutant-multi.txt"
fi

echo "== summary"
grep -E "^shallow|FAIL|fail|rows" "$R/pollutant-check.txt" | tail -30
cat "$R/pollutant-week.txt" "$R/pollutant-multi.txt"
rm -rf "$W"
exit $status
