#!/usr/bin/env bash
# DFG 2D-2 (Schaefer & Turek 1996, Re 100 shedding) on the device machine, with --backend cuda:
# each slab mesh (from meshes/channel2d.geo) is prepared once, the `dfg-2d-2` template runs on it
# for each time step of DFG2D_DT, and a table of Cd max, Cl max, St and dp against the
# benchmark's intervals closes the output.
#   bash .gpu/dfg2d.sh SLAB.msh...   (from the repository root; STAGE_NS=1 scripts/gpu/stage.sh stages
#                                     .gpu/dfg2d-73k.msh)
# Knobs: DFG_DIR (binaries, default .gpu), DFG2D_DT (space-separated steps, default "0.002"),
# DFG2D_END (end time, default the template's 8), DFG_EXTRA (more --set overrides). Results in
# $OUT (or $DFG_DIR/results): each run's summary.json and forces.csv.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
D=${DFG_DIR:-.gpu}
S=$D/solver
R=${OUT:-$D/results}
mkdir -p "$R"
status=0
[ -x "$S" ] || { echo "FAIL: $S missing (stage it and carry its folder)"; exit 1; }
nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | tee "$R/dfg2d-device.txt"
$S cases dfg-2d-2 > "$R/dfg2d.toml"
for msh in "$@"; do
  name=$(basename "${msh%.*}")
  pm="$R/$name.pmesh"
  "$D/meshtool" prepare "$msh" -o "$pm" > "$R/$name-prepare.txt" 2>&1 || { echo "FAIL: prepare $msh"; status=1; continue; }
  for dt in ${DFG2D_DT:-0.002}; do
    out="$R/$name-dt$dt"
    extra=(); for e in ${DFG_EXTRA:-}; do extra+=(--set "$e"); done
    [ -n "${DFG2D_END:-}" ] && extra+=(--set "time.end_time=$DFG2D_END")
    $S run "$R/dfg2d.toml" --backend cuda -q -o "$out" --set "mesh=\"$(realpath "$pm")\"" --set "time.dt=$dt" \
      "${extra[@]}" > "$out.log" 2>&1 || { echo "FAIL: $out (see $out.log)"; status=1; }
  done
done
echo "== DFG 2D-2 (cuda); intervals: Cd max [3.22, 3.24], Cl max [0.99, 1.01], St [0.295, 0.305], dp [2.46, 2.50]"
python3 - "$R" <<'PY' || echo "FAIL: table"
import glob, json, os, sys
print("| run | tets | steps | loop s | Cd max | Cl max | St | dp | inside |")
print("|---|---|---|---|---|---|---|---|---|")
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*-dt*", "summary.json"))):
    s = json.load(open(p)); b = s.get("bounds", {})
    v = lambda k: "%.4f" % b[k]["value"] if k in b else "-"
    inside = sum(1 for x in b.values() if x["inside"])
    print(f"| {os.path.basename(os.path.dirname(p))} | {s['cells']} | {s['steps']} | {s['wall_seconds']:.1f} | {v('cd_max')} | {v('cl_max')} | {v('st')} | {v('dp')} | {inside}/{len(b)} |")
PY
exit $status
