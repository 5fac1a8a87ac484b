#!/usr/bin/env bash
# Session 16, call 10 (one H100): a first Re 3900 LES of the cylinder (dynamic model, span pi D
# periodic, meshes/cylinder-span.geo size 0.04 far 1.0 layers 48: 738,576 tets, dt 0.02): a
# 100-step probe for the steps per second, then as long a run as fits the call.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
D=.gpu31; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d); T=$W/keep; mkdir -p $T
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name --format=csv,noheader | tee $T/device.txt
/usr/bin/time -f "prepare %e s" $D/meshtool prepare $D/span.msh -o $W/span.pmesh > $T/prepare.txt 2>&1; tail -3 $T/prepare.txt
sed "s|mesh = \"span.pmesh\"|mesh = \"$W/span.pmesh\"|" $D/re3900.toml > $W/re3900.toml
$D/solver run $W/re3900.toml -q --set time.end_time=2.0 --set navier-stokes.statistics.start=1.0 -o $W/probe > $T/probe.log 2>&1
rate=$(python3 -c "import json;d=json.load(open('$W/probe/summary.json'));t=d['timing'];print(d['steps']/t['stepping'])")
python3 -c "import json;d=json.load(open('$W/probe/summary.json'));print('probe: steps', d['steps'], 'timing', d['timing'])" | tee $T/final.txt
end=$(python3 -c "print(round(min(300.0, 250.0 * $rate * 0.02), 1))")
start=$(python3 -c "print(round(0.5 * $end, 1))")
echo "rate $rate steps/s -> end_time $end, statistics from $start" | tee -a $T/final.txt
$D/solver run $W/re3900.toml -q --set time.end_time=$end --set navier-stokes.statistics.start=$start -o $W/run > $T/run.log 2>&1; echo "run rc $?" | tee -a $T/final.txt
cp $W/run/summary.json $T/; cp $W/run/forces.csv $T/ 2>/dev/null
python3 - $T/summary.json <<'PY' | tee -a $T/final.txt
import json, sys
d = json.load(open(sys.argv[1])); s = d.get("signals") or {}; t = d["timing"]
print("steps", d["steps"], "stepping s", round(t["stepping"], 1), "steps/s", round(d["steps"] / t["stepping"], 2), "total s", round(t["total"], 1))
print("cd mean", s.get("cd", {}).get("mean"), "cl min/max", s.get("cl", {}).get("min"), s.get("cl", {}).get("max"), "St", s.get("st"), "periods", s.get("periods"), "window", s.get("window"))
print("wake", d.get("wake")); print("les", d.get("les"))
PY
tar czf $R/call10.tgz -C $W keep
