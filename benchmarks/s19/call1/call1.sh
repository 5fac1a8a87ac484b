#!/usr/bin/env bash
# Session 19, call 1 (one H100): the device walk's restart through centroid buckets and the
# bounded departure linearisation. (1) CPU vs CUDA: `solver check advect` (new row
# "bfecc+quadratic (restarts)": 2-step walks, so most points restart from the nearest centroid)
# and `solver check navier-stokes` on the paper's duct; (2) the cylinder-re3900-les template on
# the 4.44 M-tet span (session 18's cliff: 2.07 steps/s) for LIMIT_S seconds, into .ckpt/f4
# (kept on the warm machine for the next call). bash .gpu34/call1.sh LIMIT_S
set -uo pipefail
LIMIT=$1
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
D=.gpu34; C=.ckpt; R=${OUT:-/tmp/out}; mkdir -p $R $C
export CFD_KERNEL_CACHE=$C/cache
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $R/final.txt
$D/meshtool prepare $D/duct.msh -o $C/duct.pmesh > /dev/null 2>&1
timeout 150 $D/solver check advect --mesh $C/duct.pmesh > $R/check-advect.txt 2>&1; echo "check advect rc $?" | tee -a $R/final.txt
grep -E "FAIL|restarts" $R/check-advect.txt | tee -a $R/final.txt; grep -c PASS $R/check-advect.txt | sed 's/^/advect PASS rows: /' | tee -a $R/final.txt
timeout 300 $D/solver check navier-stokes > $R/check-ns.txt 2>&1; echo "check ns rc $?" | tee -a $R/final.txt
grep -E "FAIL" $R/check-ns.txt | tee -a $R/final.txt; grep -c PASS $R/check-ns.txt | sed 's/^/ns PASS rows: /' | tee -a $R/final.txt
if [ ! -f $C/f4.pmesh ]; then
  python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'), 1 << 24)" $D/f4.msh.xz $C/f4.msh && $D/meshtool prepare $C/f4.msh -o $C/f4.pmesh > /dev/null 2>&1
  rm -f $C/f4.msh
fi
$D/solver cases cylinder-re3900-les > $C/c.toml
restart=""; [ -f $C/f4/checkpoint.bin ] && restart="--restart"
left=$((LIMIT - SECONDS)); echo "f4 run for $left s $restart" | tee -a $R/final.txt
timeout -s INT $left $D/solver run $C/c.toml --backend cuda -q $restart \
  --set mesh=\"$PWD/$C/f4.pmesh\" --set output.every=1000000 --set output.checkpoint_every=500 -o $C/f4 > $R/run-f4.log 2>&1
echo "rc $?" | tee -a $R/final.txt; tail -2 $R/run-f4.log | tee -a $R/final.txt
cp $C/f4/summary.json $R/summary-f4.json 2>/dev/null
python3 - $R/summary-f4.json <<'PY' | tee -a $R/final.txt
import json, sys
d = json.load(open(sys.argv[1])); tm = d["timing"]
print("cells", d["cells"], "steps", d["steps"], "this run", d.get("steps_this_run"), "stepping s", round(tm["stepping"], 1),
      "steps/s", round(d["steps_this_run"] / max(tm["stepping"], 1e-9), 2), "stop", d.get("stop_reason"))
PY
