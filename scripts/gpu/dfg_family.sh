#!/usr/bin/env bash
# DFG 3D-1Z steady on a mesh family, on the device machine, with --backend cuda: each mesh is
# prepared once, then the template runs once per setting, and a table of cd, cl, dp and their
# errors against Braack & Richter's reference closes the output.
#   bash .gpu/dfg_family.sh MESH.msh...   (from the repository root; STAGE_NS=1 scripts/gpu/stage.sh
#                                         stages .gpu/dfg-274k.msh)
# Knobs: DFG_DIR (binaries, default .gpu), DFG_SETTINGS (space-separated "theta:cfl" pairs,
# default "0.6:2"), DFG_STEPS (cap, default 3000), DFG_TIMEOUT (seconds per run, default
# 600), DFG_EXTRA (more --set overrides, space-separated, e.g. "navier-stokes.steady.velocity_tol=1e-7")
# with DFG_TAG (a suffix that names those runs in the table). Results in $OUT (or
# $DFG_DIR/results).
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
D=${DFG_DIR:-.gpu}
S=$D/solver
R=${OUT:-$D/results}
mkdir -p "$R"
status=0
[ -x "$S" ] || { echo "FAIL: $S missing (stage it and carry its folder)"; exit 1; }
nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | tee "$R/dfg-device.txt"
$S cases dfg-3d-1z > "$R/dfg.toml"
for msh in "$@"; do
  name=$(basename "${msh%.*}")
  pm="$R/$name.pmesh"
  "$D/meshtool" prepare "$msh" -o "$pm" > "$R/$name-prepare.txt" 2>&1 || { echo "FAIL: prepare $msh"; status=1; continue; }
  for st in ${DFG_SETTINGS:-0.6:2}; do
    theta=${st%%:*}; cfl=${st##*:}
    out="$R/$name-theta$theta-cfl$cfl${DFG_TAG:+-$DFG_TAG}"
    extra=(); for e in ${DFG_EXTRA:-}; do extra+=(--set "$e"); done
    t0=$(date +%s.%N)
    timeout "${DFG_TIMEOUT:-600}" $S run "$R/dfg.toml" --backend cuda -q -o "$out" --set "mesh=\"$(realpath "$pm")\"" \
      --set "time.steps=${DFG_STEPS:-3000}" --set "time.cfl=$cfl" --set "navier-stokes.theta=$theta" \
      --set output.every=100000 --set navier-stokes.log_every=100 "${extra[@]}" > "$out.log" 2>&1 || { echo "FAIL: $out"; status=1; }
    echo "wall_s $(awk "BEGIN{print $(date +%s.%N) - $t0}")" >> "$out.log"
    tail -2 "$out.log"
  done
done
echo "== DFG 3D-1Z family (cuda)"
python3 - "$R" <<'PY' || echo "FAIL: table"
import glob, json, os, re, sys
rows = []
for p in glob.glob(os.path.join(sys.argv[1], "*-theta*-cfl*", "summary.json")):
    m = re.match(r"(.*)-theta([0-9.]+)-cfl([0-9.]+)(?:-(.*))?$", os.path.basename(os.path.dirname(p)))
    s = json.load(open(p))
    rows.append((s["cells"], float(m.group(2)), float(m.group(3)), m.group(4) or "", s))
print("| cells | theta | cfl | tag | steps (converged at) | wall s | cd (error) | cl | dp (error) |")
print("|---|---|---|---|---|---|---|---|---|")
for cells, theta, cfl, tag, s in sorted(rows, key=lambda r: r[:4]):
    e = s.get("errors") or {}
    print(f"| {cells} | {theta} | {cfl} | {tag} | {s['steps']} ({s['converged_at_step']}) | {s['wall_seconds']:.1f} | "
          f"{s['cd']:.5f} ({100 * e.get('cd', 0):+.2f} %) | {s['cl']:.5f} | {s['dp']:.5f} ({100 * e.get('dp', 0):+.2f} %) |")
print(f"device: {rows[0][4]['device'] if rows else '?'}")
PY
exit $status
