#!/usr/bin/env bash
# Navier-Stokes on the device machine (carry the staged folder, run from the repo root):
#   1. `solver check navier-stokes`: CPU vs CUDA, f64, the DFG 3D-1Z template on its built-in
#      coarse mesh, 20 steps (u, p, derived fields, cd, cl, dp within 1e-10) and the CUDA
#      restart (bit-identical);
#   2. `solver bench navier-stokes` on the built-in mesh and on the given mesh (seconds per
#      step, CG iterations per step and seconds per iteration, bytes per step over the copy
#      bandwidth);
#   3. the DFG steady run with --backend cuda on the given mesh, timed (cd, cl, dp and their
#      errors from summary.json);
# a short table last. Usage: bash .gpu/ns.sh [MESH.pmesh|MESH.msh] (a .msh is prepared with
# meshtool first). Knobs: NS_DIR (binaries, default .gpu), NS_STEPS (cap of the steady run,
# default 3000), NS_RUN_TIMEOUT (seconds, default none), NS_BENCH_STEPS (20), NS_SKIP_CHECK
# (set: no check). Results in $OUT (or $NS_DIR/results).
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
D=${NS_DIR:-.gpu}
S=$D/solver
R=${OUT:-$D/results}
mkdir -p "$R"
status=0
fail() { echo "FAIL: $*"; status=1; }
[ -x "$S" ] || { echo "FAIL: $S missing (stage it and carry its folder)"; exit 1; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null | tee "$R/ns-device.txt"

mesh=${1:-}
if [ -n "$mesh" ] && [ "${mesh##*.}" = "msh" ]; then
  echo "== meshtool prepare $mesh"
  t0=$(date +%s.%N)
  "$D/meshtool" prepare "$mesh" -o "$R/dfg.pmesh" || fail "meshtool prepare"
  echo "prepared in $(awk "BEGIN{print $(date +%s.%N) - $t0}") s"
  mesh=$R/dfg.pmesh
fi

if [ -z "${NS_SKIP_CHECK:-}" ]; then
  echo "== solver check navier-stokes"
  $S check navier-stokes 2>&1 | tee "$R/ns-check.txt" || fail "solver check navier-stokes"
fi

echo "== solver bench navier-stokes (built-in coarse mesh${mesh:+ and $mesh})"
meshes=()
[ -n "$mesh" ] && meshes=(--mesh "$mesh")
$S bench navier-stokes --precision f64 --steps "${NS_BENCH_STEPS:-20}" --reps 2 --json "$R/ns-bench-coarse.json" 2>&1 \
  | tee "$R/ns-bench.txt" || fail "bench (coarse)"
if [ -n "$mesh" ]; then
  $S bench navier-stokes --precision f64 --steps "${NS_BENCH_STEPS:-20}" --reps 2 "${meshes[@]}" --json "$R/ns-bench.json" 2>&1 \
    | tee -a "$R/ns-bench.txt" || fail "bench ($mesh)"
fi

if [ -n "$mesh" ]; then
  echo "== DFG 3D-1Z steady run, --backend cuda, on $mesh"
  $S cases dfg-3d-1z > "$R/dfg.toml"
  t0=$(date +%s.%N)
  timeout "${NS_RUN_TIMEOUT:-36000}" $S run "$R/dfg.toml" --backend cuda -q -o "$R/dfg-cuda" --set "mesh=\"$(realpath "$mesh")\"" \
    --set "time.steps=${NS_STEPS:-3000}" --set output.every=100000 --set navier-stokes.log_every=50 2>&1 \
    | tee "$R/ns-dfg-run.txt" || fail "DFG steady run"
  echo "wall seconds: $(awk "BEGIN{print $(date +%s.%N) - $t0}")" | tee -a "$R/ns-dfg-run.txt"
fi

echo "== summary"
[ -f "$R/ns-check.txt" ] && grep -E "navier-stokes|backend" "$R/ns-check.txt"
python3 - "$R" <<'PY' || echo "FAIL: summary table"
import json, os, sys
r = sys.argv[1]
print("| mesh | cells | s/step | CG its/step | s/CG it | CG share | GB/s (model) | of copy |")
print("|---|---|---|---|---|---|---|---|")
dev = None
for name in ("ns-bench-coarse.json", "ns-bench.json"):
    p = os.path.join(r, name)
    if not os.path.exists(p):
        continue
    j = json.load(open(p)); dev = j["device"]
    for x in j["rows"]:
        s = x.get("solver") or {}
        print(f"| {x['size']} | {x['updates_per_step']} | {x['seconds_per_step']:.3e} | {s.get('iterations_per_step', 0):.1f} | "
              f"{s.get('seconds_per_iteration', 0):.3e} | {100*s.get('fraction_of_step', 0):.0f} % | "
              f"{x['min_bytes_per_step']/x['seconds_per_step']/1e9:.1f} | {100*x['fraction_of_copy_bandwidth']:.1f} % |")
p = os.path.join(r, "dfg-cuda", "summary.json")
if os.path.exists(p):
    s = json.load(open(p))
    fam = s.get("family", s)
    def g(k):
        for d in (s, fam, s.get("navier-stokes", {})):
            if isinstance(d, dict) and k in d:
                return d[k]
    print(f"DFG steady (cuda): converged at step {g('converged_at_step')}, cd {g('cd')}, cl {g('cl')}, dp {g('dp')}, errors {g('errors')}")
if dev:
    print(f"device: {dev}")
PY
exit $status
