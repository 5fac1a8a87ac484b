#!/usr/bin/env bash
# Session 18, call 7: dfg-3d-2z on the 679k mesh at dt 0.002 to t = 30 (the benchmark's usual
# interval in FEAT3), statistics over t >= 20: does the lift's oscillation grow late?
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
D=.gpu33; R=${OUT:-/tmp/out}; W=$(mktemp -d); mkdir -p $R; export CFD_KERNEL_CACHE=$W/cache
$D/solver cases dfg-3d-2z > $W/c.toml
gunzip -c $D/c700.msh.gz > $W/c700.msh && $D/meshtool prepare $W/c700.msh -o $W/c700.pmesh > /dev/null 2>&1
/usr/bin/time -f "wall %e s" $D/solver run $W/c.toml --backend cuda -q --set mesh=\"$W/c700.pmesh\" --set time.dt=0.002 \
  --set time.end_time=30.0 --set navier-stokes.statistics.start=20.0 --set output.every=5000 -o $W/long > $R/run.log 2>&1; echo "rc $?" | tee $R/final.txt
tail -2 $R/run.log | tee -a $R/final.txt
cp $W/long/summary.json $R/summary-long.json; gzip -c $W/long/forces.csv > $R/forces-long.csv.gz
python3 -c "import json; d=json.load(open('$R/summary-long.json')); print('signals', json.dumps(d['signals'])); print('bounds', json.dumps(d.get('bounds')))" | tee -a $R/final.txt
