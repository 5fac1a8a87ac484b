#!/usr/bin/env bash
# Session 18, calls 8-9 (one H100): the cylinder-re3900-les template as it ships on a third,
# finer span mesh (meshes/cylinder-span.geo -setnumber size 0.024 -setnumber far 0.3
# -setnumber layers 36: 4,443,228 tets), run or continued in .ckpt/f4 (kept on the warm machine
# between the calls). At the limit, Ctrl-C writes the checkpoint and the summary of the steps so
# far. bash .gpu33/re4.sh LIMIT_S
set -uo pipefail
LIMIT=$1
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
D=.gpu33; C=.ckpt; R=${OUT:-/tmp/out}; mkdir -p $R $C
export CFD_KERNEL_CACHE=$C/cache
if [ ! -f $C/f4.pmesh ]; then
  python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'), 1 << 24)" $D/f4.msh.xz $C/f4.msh && /usr/bin/time -f "prepare %e s" $D/meshtool prepare $C/f4.msh -o $C/f4.pmesh 2>&1 | tail -3 | tee $R/prepare.txt
  rm -f $C/f4.msh
fi
$D/solver cases cylinder-re3900-les > $C/c.toml
restart=""; [ -f $C/f4/checkpoint.bin ] && restart="--restart"
left=$((LIMIT - SECONDS)); echo "run for $left s $restart" | tee -a $R/final.txt
/usr/bin/time -f "run wall %e s" timeout -s INT $left $D/solver run $C/c.toml --backend cuda -q $restart \
  --set mesh=\"$PWD/$C/f4.pmesh\" --set output.every=1000000 --set output.checkpoint_every=500 -o $C/f4 > $R/run.log 2>&1
echo "rc $?" | tee -a $R/final.txt; tail -3 $R/run.log | tee -a $R/final.txt
cp $C/f4/summary.json $R/summary.json 2>/dev/null; gzip -c $C/f4/forces.csv > $R/forces.csv.gz 2>/dev/null
python3 - $R/summary.json <<'PY' | tee -a $R/final.txt
import json, sys
d = json.load(open(sys.argv[1])); tm = d["timing"]
print("cells", d["cells"], "steps", d["steps"], "this run", d.get("steps_this_run"), "stepping s", round(tm["stepping"], 1),
      "steps/s", round(d["steps_this_run"] / max(tm["stepping"], 1e-9), 2), "stop", d.get("stop_reason"))
print("signals", json.dumps(d.get("signals"))); print("wake", d.get("wake")); print("les", d.get("les"))
PY
