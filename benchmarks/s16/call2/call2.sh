#!/usr/bin/env bash
# Session 16, call 2: the dfg-2d-2 template as shipped now (fits-full, flux memory relaxed over
# tau = D/U = 0.1, dt 0.001) on five slabs of meshes/channel2d.geo (26k..86k tets), and dt 0.002 on three.
# Runs share the GPU (concurrently): loop times are not timings.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
D=.gpu31; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/device.txt
$D/solver cases dfg-2d-2 > $W/d2.toml
for s in 0.02 0.015 0.0135 0.012 0.011; do
  $D/meshtool prepare $D/s$s.msh -o $W/s$s.pmesh > $R/prepare-s$s.txt 2>&1 || echo "prepare $s failed"
done
# one short warm run so that the kernel cache is filled once
$D/solver run $W/d2.toml --backend cuda -q --set time.end_time=0.002 -o $W/warm > /dev/null 2>&1
one() { # size dt
  o=$W/s$1-dt$2
  timeout 560 $D/solver run $W/d2.toml --backend cuda -q --set "mesh=\"$W/s$1.pmesh\"" --set time.dt=$2 -o $o > $R/s$1-dt$2.log 2>&1; echo "rc $?" >> $R/s$1-dt$2.log
  cp $o/summary.json $R/s$1-dt$2-summary.json 2>/dev/null
}
for s in 0.02 0.015 0.0135 0.012 0.011; do one $s 0.001 & done
for s in 0.02 0.015 0.011; do one $s 0.002 & done
wait
cp $W/s0.012-dt0.001/forces.csv $R/s0.012-dt0.001-forces.csv 2>/dev/null
last=$(ls $W/s0.012-dt0.001/*.vtu 2>/dev/null | tail -1); [ -n "$last" ] && cp $last $R/s0.012-dt0.001-last.vtu
python3 - $R <<'PY' | tee $R/final.txt
import glob, json, os, sys
print("| slab size | tets | dt | steps | Cd max [3.22,3.24] | Cl max [0.99,1.01] | St [0.295,0.305] | dp [2.46,2.50] | inside |")
print("|---|---|---|---|---|---|---|---|---|")
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*-summary.json"))):
    s = json.load(open(p)); b = s.get("bounds") or {}
    f = lambda k: ("%.4f (%+.2f%%)" % (b[k]["value"], 100*(b[k].get("relative_miss") or 0))) if k in b else "-"
    print("| %s | %s | %s | %s | %s | %s | %s | %s | %d/4 |" % (os.path.basename(p).split('-dt')[0], s.get("cells"), s.get("dt"), s.get("steps"), f("cd_max"), f("cl_max"), f("st"), f("dp"), sum(1 for x in b.values() if x["inside"])))
PY
grep -h "rc " $R/*.log | sort | uniq -c
