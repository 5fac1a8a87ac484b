#!/usr/bin/env bash
# On the device (one GPU): the cylinder-re3900-les template on a span mesh carried as MSH.xz in
# $D (default .gpu; MESH names it: D/MESH.msh.xz), prepared once into /tmp/ck, run or continued
# (--restart from /tmp/ck/MESH/checkpoint.bin, which lives only while the machine stays lent)
# until LIMIT_S seconds; at the limit Ctrl-C writes the checkpoint and the summary so far.
# RE_SET: more --set overrides ("time.end_time=180 navier-stokes.statistics.start=60").
# Results in $OUT (or /tmp/out): final.txt, run-MESH.log, summary-MESH.json, forces-MESH.csv.gz.
#   bash .gpu/les_run.sh MESH LIMIT_S   (run it again with the same MESH to continue the run)
set -uo pipefail
M=$1; LIMIT=$2
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
D=${D:-.gpu}; C=/tmp/ck; R=${OUT:-/tmp/out}; mkdir -p $R $C
export CFD_KERNEL_CACHE=$C/cache
nvidia-smi --query-gpu=name --format=csv,noheader | tee -a $R/final.txt
if [ ! -f $C/$M.pmesh ]; then
  python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'), 1 << 24)" $D/$M.msh.xz $C/$M.msh && $D/meshtool prepare $C/$M.msh -o $C/$M.pmesh 2>&1 | tail -2 | tee -a $R/final.txt
  rm -f $C/$M.msh
fi
$D/solver cases cylinder-re3900-les > $C/c.toml
extra=(); for e in ${RE_SET:-}; do extra+=(--set "$e"); done   # RE_SET: more --set overrides
restart=""; [ -f $C/$M/checkpoint.bin ] && restart="--restart"
left=$((LIMIT - SECONDS)); echo "$M run for $left s $restart" | tee -a $R/final.txt
timeout -s INT $left $D/solver run $C/c.toml --backend cuda -q $restart \
  --set mesh=\"$C/$M.pmesh\" --set output.every=1000000 --set output.checkpoint_every=500 "${extra[@]}" -o $C/$M > $R/run-$M.log 2>&1
echo "rc $?" | tee -a $R/final.txt; tail -2 $R/run-$M.log | tee -a $R/final.txt
cp $C/$M/summary.json $R/summary-$M.json 2>/dev/null; gzip -c $C/$M/forces.csv > $R/forces-$M.csv.gz 2>/dev/null
python3 - $R/summary-$M.json <<'PY' | tee -a $R/final.txt
import json, sys
d = json.load(open(sys.argv[1])); tm = d["timing"]
print("cells", d["cells"], "steps", d["steps"], "this run", d.get("steps_this_run"), "stepping s", round(tm["stepping"], 1),
      "steps/s", round(d["steps_this_run"] / max(tm["stepping"], 1e-9), 2), "stop", d.get("stop_reason"))
print("signals", json.dumps(d.get("signals"))); print("wake", d.get("wake")); print("les", d.get("les"))
PY
