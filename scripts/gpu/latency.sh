#!/usr/bin/env bash
# End-to-end latency of `solver run` as a user runs it, on the GPU machine (from the repository
# root, .gpu staged): `/usr/bin/time solver run CASE --backend cuda`, the kernel cache cold (emptied) then
# warm, and summary.json's `timing` breakdown. One line per run in $OUT/latency.tsv.
#   LATENCY=euler      the paper's benchmark (euler-riemann-2d, 1000^2, f32), exact and HLLC,
#                      cold + 2 warm runs, for each binary of BINARIES (default: .gpu/solver;
#                      e.g. "base:.gpu/solver-base new:.gpu/solver") and the outputs compared
#   LATENCY=templates  every structured template (heat, euler, shallow water), cold then warm
#                      (TEMPLATES="a b": only these; STATES="cold warm warm": these runs of each)
# The kernel cache lives in /tmp/gpu-kernel-cache-LABEL (kept while the machine is). VTI=DIR: where
# scripts/viz/vti.py is (default scripts/viz).
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
R=${OUT:-.gpu/results}
W=$(mktemp -d)
mkdir -p "$R"
BINARIES=${BINARIES:-new:.gpu/solver}
TSV="$R/latency.tsv"
[ -f "$TSV" ] || printf 'binary\tcase\tcache\twall_s\tmax_rss_kb\tsummary_wall_s\ttiming\n' > "$TSV"

# run LABEL BIN CACHE_STATE CASE_NAME CASE_FILE [args...]
run() {
  local label=$1 bin=$2 state=$3 name=$4 case=$5
  shift 5
  local out="$W/out-$label-$name"
  rm -rf "$out"
  export CFD_KERNEL_CACHE="/tmp/gpu-kernel-cache-$label"
  [ "$state" = cold ] && rm -rf "$CFD_KERNEL_CACHE"
  /usr/bin/time -f "%e %M" -o "$W/time" timeout 120 "$bin" run "$case" --backend cuda -q -o "$out" "$@" \
    > "$W/log" 2>&1 || { echo "FAIL: $label $name $state"; tail -3 "$W/log"; }
  read -r wall rss < <(tail -1 "$W/time")
  local summary
  summary=$(python3 -c "
import json, sys
try:
    s = json.load(open('$out/summary.json'))
except Exception as e:
    print('-\tno summary'); sys.exit()
t = s.get('timing')
t = ' '.join(f'{k}={v:.4f}' if isinstance(v, float) else f'{k}={v}' for k, v in sorted(t.items())) if t else 'output_seconds=%.4f' % s['output_seconds']
print('%.4f\t%s' % (s['wall_seconds'], t))")
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$name" "$state" "$wall" "$rss" "$summary" | tee -a "$TSV"
}

case ${LATENCY:-euler} in
euler)
  for b in $BINARIES; do
    label=${b%%:*}
    bin=${b#*:}
    "$bin" cases euler-riemann-2d > "$W/r2d.toml"
    for riemann in exact hllc; do
      for state in cold warm warm; do
        run "$label" "$bin" "$state" "r2d-f32-$riemann" "$W/r2d.toml" --set run.precision=f32 \
          --set euler.riemann=\"$riemann\"
      done
    done
  done
  # The same data written by every binary: the final frames' arrays identical.
  if [ "$(echo $BINARIES | wc -w)" -gt 1 ]; then
    python3 - "$W" $BINARIES <<'EOF'
import glob, os, sys
sys.path.insert(0, os.environ.get("VTI", "scripts/viz"))
import numpy as np, vti
w, labels = sys.argv[1], [b.split(":")[0] for b in sys.argv[2:]]
for riemann in ["exact", "hllc"]:
    files = [sorted(glob.glob(f"{w}/out-{l}-r2d-f32-{riemann}/step_*.vti")) for l in labels]
    same = all(np.array_equal(vti.read_cell_array(a, n)[0], vti.read_cell_array(b, n)[0])
               for a, b in zip(files[0], files[1]) for n in ["density", "velocity", "pressure", "mach"])
    print(f"{riemann}: frames {[os.path.basename(f) for f in files[0]]} vs {[os.path.basename(f) for f in files[1]]}:",
          "identical arrays" if same and len(files[0]) == len(files[1]) else "DIFFER")
EOF
  fi
  ;;
templates)
  for b in $BINARIES; do
    label=${b%%:*}
    bin=${b#*:}
    for t in ${TEMPLATES:-$("$bin" cases | awk '{print $1}' | grep -E '^(heat|euler|swe)-')}; do
      "$bin" cases "$t" > "$W/$t.toml"
      # Templates that read files next to them (the estuary's tide and river series).
      cp meshes/estuary* "$W/" 2>/dev/null
      for state in ${STATES:-cold warm}; do
        run "$label" "$bin" "$state" "$t" "$W/$t.toml"
      done
    done
  done
  ;;
esac
ls -la "$W"/out-*/ > "$R/outputs.txt" 2>&1
echo "kernel caches:"; du -sh /tmp/gpu-kernel-cache-* 2>/dev/null
