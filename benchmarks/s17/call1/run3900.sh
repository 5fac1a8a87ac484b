#!/usr/bin/env bash
# Session 17 (one H100): the Re 3900 LES of the cylinder (dynamic model, span pi D periodic,
# meshes/cylinder-span.geo size 0.04 far 0.5 layers 24: 1,073,880 tets; dt 0.02, to t = 160,
# statistics from t = 40), run across device calls: each call runs until ~LIMIT s, Ctrl-C
# writes the checkpoint into .ckpt/ (ignored, kept on the warm machine), the next call restarts.
# bash .gpu32/run3900.sh LABEL LIMIT_S
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
L=${1:-c1}; LIMIT=${2:-540}
D=.gpu32; C=.ckpt; R=${OUT:-/tmp/out}; mkdir -p $R $C; T=$C/keep-$L; mkdir -p $T
export CFD_KERNEL_CACHE=$C/cache
nvidia-smi --query-gpu=name --format=csv,noheader | tee $T/device.txt
if [ ! -f $C/m24.pmesh ]; then
  gunzip -c $D/m24.msh.gz > $C/m24.msh
  /usr/bin/time -f "prepare %e s" $D/meshtool prepare $C/m24.msh -o $C/m24.pmesh > $T/prepare.txt 2>&1; tail -2 $T/prepare.txt
fi
sed "s|mesh = \"span.pmesh\"|mesh = \"$PWD/$C/m24.pmesh\"|" $D/re3900.toml > $C/re3900.toml
restart=""; [ -f $C/run/checkpoint.bin ] && restart="--restart"
left=$((LIMIT - SECONDS)); echo "run for $left s $restart" | tee -a $T/final.txt
/usr/bin/time -f "run wall %e s" timeout -s INT $left $D/solver run $C/re3900.toml -q $restart -o $C/run > $T/run.log 2>&1; echo "run rc $?" | tee -a $T/final.txt
tail -4 $T/run.log
cp $C/run/summary.json $C/run/forces.csv $C/run/energy.csv $T/ 2>/dev/null
ls -la $C/run | head -20 > $T/ls.txt
python3 - $T <<'PY' | tee -a $T/final.txt
import json, os, sys, csv
t = sys.argv[1]
if os.path.exists(t + "/summary.json"):
    d = json.load(open(t + "/summary.json")); s = d.get("signals") or {}; tm = d["timing"]
    print("steps", d["steps"], "this run", d.get("steps_this_run"), "stepping s", round(tm["stepping"], 1), "steps/s", round(d["steps_this_run"] / tm["stepping"], 2), "total s", round(tm["total"], 1), "stop", d.get("stop_reason"))
    print("signals", json.dumps(s)[:1500])
    print("wake", d.get("wake")); print("les", d.get("les"))
rows = list(csv.DictReader(open(t + "/forces.csv")))
print("forces.csv rows", len(rows), "last t", rows[-1]["time"], "cd", rows[-1]["cd"], "cl", rows[-1]["cl"])
PY
tar czf $R/$L.tgz -C $C keep-$L
