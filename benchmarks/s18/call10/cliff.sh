#!/usr/bin/env bash
# Session 18, call 10 (one H100): which part of the step makes the 4.44 M-tet span slow (2.07
# steps/s against 25.8 on 1.07 M): the template as it ships, without the LES model, and without
# it with two-point face gradients; ~70 s of steps each, stopped by Ctrl-C (the summary gives
# the steps a second of stepping alone); the device's memory in use while the first runs.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
D=.gpu33; R=${OUT:-/tmp/out}; W=$(mktemp -d); mkdir -p $R; export CFD_KERNEL_CACHE=$W/cache
python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'), 1 << 24)" $D/f4.msh.xz $W/f4.msh
$D/meshtool prepare $W/f4.msh -o $W/f4.pmesh 2>&1 | tail -1; rm -f $W/f4.msh
$D/solver cases cylinder-re3900-les > $W/c.toml
v() {  # label sets...
  local label=$1; shift; local extra=(); for s in "$@"; do extra+=(--set "$s"); done
  timeout -s INT ${LIMIT:-95} $D/solver run $W/c.toml --backend cuda -q --set mesh=\"$W/f4.pmesh\" --set output.every=1000000 "${extra[@]}" -o $W/$label > $R/$label.log 2>&1
  python3 -c "
import json; d=json.load(open('$W/$label/summary.json')); tm=d['timing']; so=d.get('solves') or {}
print('$label', 'steps', d['steps'], 'stepping s', round(tm['stepping'],1), 'steps/s', round(d['steps_this_run']/tm['stepping'],3), 'setup s', round(tm['setup'],1), 'p it', round(so['pressure']['mean_iterations'],1), 'u it', round(so['momentum']['mean_iterations'],1))" | tee -a $R/final.txt
}
nvidia-smi --query-gpu=memory.used,memory.total,utilization.gpu --format=csv -l 10 > $R/smi.csv 2>&1 & sp=$!
v ships
v no-model 'navier-stokes.les="none"'
kill $sp
v no-model-cells 'navier-stokes.les="none"' 'navier-stokes.face_gradients="cells"'
cat $R/smi.csv | tail -6
