#!/usr/bin/env bash
# Session 18, call 5 (one H100): the dfg-3d-2z template as it ships on graded Gmsh meshes of
# meshes/channel.geo (size 0.0267 and 0.02, binary MSH 4.1, gzipped), CUDA f64 to t = 8; then
# the CPU-vs-CUDA checks of the family (the new row `dfg-3d-2z coarse` among them).
# bash .gpu33/dfg3d.sh MESH_GZ... (in .gpu33)
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
D=.gpu33; R=${OUT:-/tmp/out}; W=$(mktemp -d); mkdir -p $R
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi -L | tee $R/devices.txt
$D/solver cases dfg-3d-2z > $W/c.toml
for m in "$@"; do
  stem=$(basename $m .msh.gz)
  gunzip -c $D/$m > $W/$stem.msh
  $D/meshtool prepare $W/$stem.msh -o $W/$stem.pmesh > $W/prep-$stem.txt 2>&1 || { echo "FAIL prepare $stem"; tail -3 $W/prep-$stem.txt; continue; }
  /usr/bin/time -f "$stem wall %e s" $D/solver run $W/c.toml --backend cuda -q --set mesh=\"$W/$stem.pmesh\" -o $W/$stem > $R/run-$stem.log 2>&1
  echo "$stem rc $?" | tee -a $R/final.txt
  tail -1 $R/run-$stem.log | tee -a $R/final.txt
  cp $W/$stem/summary.json $R/summary-$stem.json 2>/dev/null
  gzip -c $W/$stem/forces.csv > $R/forces-$stem.csv.gz 2>/dev/null
  python3 - $W/$stem/summary.json $stem <<'PY' | tee -a $R/final.txt
import json, sys
d = json.load(open(sys.argv[1])); s = d.get("signals") or {}; tm = d["timing"]
print(sys.argv[2], "cells", d["cells"], "steps", d["steps"], "stepping s", round(tm["stepping"], 1), "steps/s", round(d["steps"] / max(tm["stepping"], 1e-9), 1))
print(sys.argv[2], "signals", json.dumps(s))
print(sys.argv[2], "bounds", json.dumps(d.get("bounds")))
PY
done
[ "${CHECK:-1}" = 0 ] && exit 0
timeout 400 $D/solver check navier-stokes > $R/check-ns.txt 2>&1; echo "check rc $?" | tee -a $R/final.txt
grep -c PASS $R/check-ns.txt | sed 's/^/check PASS rows: /' | tee -a $R/final.txt
grep -E "FAIL|dfg-3d-2z" $R/check-ns.txt | tee -a $R/final.txt
