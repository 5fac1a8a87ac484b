#!/usr/bin/env bash
# Session 18, call 9 (one H100): the cylinder-re3900-les template on the 1.07 M-tet span mesh of
# session 17 (size 0.04 far 0.5 layers 24) for about 200 s, stopped by Ctrl-C: its steps per
# second with this session's build against session 17's 25.1, and the interrupted run's summary.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
D=.gpu33; R=${OUT:-/tmp/out}; W=$(mktemp -d); mkdir -p $R; export CFD_KERNEL_CACHE=$W/cache
gunzip -c $D/m24.msh.gz > $W/m24.msh && $D/meshtool prepare $W/m24.msh -o $W/m24.pmesh 2>&1 | tail -2
$D/solver cases cylinder-re3900-les > $W/c.toml
timeout -s INT 230 $D/solver run $W/c.toml --backend cuda -q --set mesh=\"$W/m24.pmesh\" --set output.every=1000000 -o $W/run > $R/run.log 2>&1
echo "rc $?" | tee $R/final.txt; tail -2 $R/run.log | tee -a $R/final.txt
cp $W/run/summary.json $R/summary.json
python3 -c "
import json; d=json.load(open('$R/summary.json')); tm=d['timing']
print('cells', d['cells'], 'steps', d['steps'], 'stepping s', round(tm['stepping'],1), 'steps/s', round(d['steps_this_run']/tm['stepping'],2), 'stop', d.get('stop_reason'))
print('solves', json.dumps(d.get('solves')))" | tee -a $R/final.txt
