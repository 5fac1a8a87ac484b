#!/usr/bin/env bash
# Session 17 (one H100): one LES of the cylinder in a spanwise-periodic span (meshes/cylinder-span.geo),
# run or continued in .ckpt/LABEL (ignored, kept on a warm machine): Ctrl-C at the limit writes the
# checkpoint, the next call restarts from it. With EXTRACT=1 a finished run's last frame is
# resampled for the pictures (extract_wake.py).
# bash .gpu32/les.sh LABEL LIMIT_S MESH_GZ NU END START [--set k=v ...]
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
L=$1; LIMIT=$2; MESH=$3; NU=$4; END=$5; START=$6; shift 6
D=.gpu32; C=.ckpt; R=${OUT:-/tmp/out}; mkdir -p $R $C; T=$C/keep-$L; mkdir -p $T
export CFD_KERNEL_CACHE=$C/cache-$L
stem=$(basename $MESH .msh.gz)
if [ ! -f $C/$stem.pmesh ]; then
  gunzip -c $D/$MESH > $C/$stem.msh
  /usr/bin/time -f "prepare %e s" $D/meshtool prepare $C/$stem.msh -o $C/$stem.pmesh > $T/prepare.txt 2>&1; tail -2 $T/prepare.txt
fi
sed -e "s|mesh = \"span.pmesh\"|mesh = \"$PWD/$C/$stem.pmesh\"|" -e "s|^viscosity = .*|viscosity = $NU|" \
    -e "s|^end_time = .*|end_time = $END|" -e "s|^statistics = .*|statistics = { start = $START }|" $D/re3900.toml > $C/$L.toml
restart=""; [ -f $C/$L/checkpoint.bin ] && restart="--restart"
left=$((LIMIT - SECONDS)); echo "$L: run for $left s $restart $*" | tee -a $T/final.txt
/usr/bin/time -f "run wall %e s" timeout -s INT $left $D/solver run $C/$L.toml -q $restart "$@" -o $C/$L > $T/run-$SECONDS.log 2>&1; echo "$L: run rc $?" | tee -a $T/final.txt
cp $C/$L/summary.json $C/$L/forces.csv $C/$L/energy.csv $C/$L/residuals.csv $T/ 2>/dev/null
python3 - $T $L <<'PY' | tee -a $T/final.txt
import json, os, sys, csv
t, label = sys.argv[1], sys.argv[2]
if os.path.exists(t + "/summary.json"):
    d = json.load(open(t + "/summary.json")); s = d.get("signals") or {}; tm = d["timing"]
    print(label, "cells", d["cells"], "steps", d["steps"], "this run", d.get("steps_this_run"), "stepping s", round(tm["stepping"], 1), "steps/s", round(d["steps_this_run"] / max(tm["stepping"], 1e-9), 2), "total s", round(tm["total"], 1), "stop", d.get("stop_reason"))
    print(label, "signals", json.dumps(s)[:1200])
    print(label, "wake", d.get("wake")); print(label, "les", d.get("les"))
rows = list(csv.DictReader(open(t + "/forces.csv")))
print(label, "forces.csv rows", len(rows), "last t", rows[-1]["time"], "cd", rows[-1]["cd"], "cl", rows[-1]["cl"])
PY
if [ "${EXTRACT:-0}" = 1 ]; then
  f=$(ls $C/$L/step_*.vtu 2>/dev/null | tail -1)
  [ -n "$f" ] && /usr/bin/time -f "extract %e s" python3 $D/extract_wake.py $f $T/wake-$L.npz 2>&1 | tail -5 | tee -a $T/final.txt
fi
tar czf $R/$L.tgz -C $C keep-$L
