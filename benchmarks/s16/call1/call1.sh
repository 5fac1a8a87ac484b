#!/usr/bin/env bash
# Session 16, call 1: wip-march-slopes (solver-w) vs main (solver): bit identity + PLM 512^3;
# check navier-stokes (rows not yet run on a device); DFG 2D-2 on 72.5k with the relaxed flux memory.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
D=.gpu31; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/device.txt
ts() { echo "[$(date +%s)] $*" | tee -a $R/final.txt; }
gunzip -c $D/d72.pmesh.gz > $W/d72.pmesh
ts start
$D/solver-w check euler > $R/check-euler-w.txt 2>&1; ts "check euler (wip) rc $?"
for rep in 1 2; do for b in solver solver-w; do for m in exact fast; do
  $D/$b bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 10 --reps 3 --set "run.math=\"$m\"" 2>&1 | grep "^euler" | sed "s/^/$b $m rep$rep: /" | tee -a $R/final.txt
done; done; done
ts bench done
$D/solver check navier-stokes > $R/check-ns.txt 2>&1; ts "check navier-stokes rc $?"
$D/solver cases dfg-2d-2 > $W/d2.toml
run_dfg() { # label dt tau
  $D/solver run $W/d2.toml --backend cuda -q --set "mesh=\"$W/d72.pmesh\"" --set time.dt=$2 --set 'navier-stokes.face_gradients="fits-full"' \
    --set 'navier-stokes.flux_memory="full"' --set navier-stokes.flux_memory_time=$3 --set output.every=100000 -o $W/dfg-$1 > $R/dfg-$1.log 2>&1
  echo "rc $?" >> $R/dfg-$1.log
  cp $W/dfg-$1/summary.json $R/dfg-$1-summary.json 2>/dev/null
  python3 - "$1" "$W/dfg-$1/summary.json" <<'PY' | tee -a $R/final.txt
import json,sys
try: d=json.load(open(sys.argv[2]))
except Exception as e: print(sys.argv[1], 'no summary', e); sys.exit()
b=d.get('bounds',{}) or {}
print('dfg %-14s steps %s stepping %.1f s |' % (sys.argv[1], d.get('steps'), d.get('timing',{}).get('stepping',-1)), ' '.join('%s %.4f (%s%+.1f%%)' % (k, v['value'], 'in ' if v['inside'] else '', 100*(v.get('relative_miss') or 0)) for k,v in b.items()))
PY
}
run_dfg t0.1-dt0.004 0.004 0.1 &
run_dfg t0.1-dt0.002 0.002 0.1 &
run_dfg t0.02-dt0.002 0.002 0.02 &
run_dfg t0.1-dt0.001 0.001 0.1 &
wait
ts dfg done
grep -i "fail" $R/check-*.txt | head -8
tail -4 $R/check-euler-w.txt $R/check-ns.txt
cat $R/final.txt
