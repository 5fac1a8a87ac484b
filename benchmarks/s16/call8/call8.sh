#!/usr/bin/env bash
# Session 16, call 8 (2 GPUs): the final build (sweep shared memory requested as 15 REAL again):
# Euler 512^3 f32 and heat 512^3 f64 on one GPU and on two (run.gpus = 2), MUSCL-Hancock exact
# and fast on one GPU; 1 vs 2 GPUs byte identity on the RT-3D template.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export NCCL_NVLS_ENABLE=0
D=.gpu31; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi -L | tee $R/devices.txt
for only in "rt-3d plm-rk3 hll" "cube hllc"; do
  $D/solver bench euler --only "$only" --sizes 128 --precision f32 --steps 2 --reps 1 >/dev/null 2>&1  # compile once
  for rep in 1 2; do for b in solver; do for g in 1 2; do
    $D/$b bench euler --only "$only" --sizes 512 --precision f32 --steps 20 --reps 3 --gpus $g 2>&1 | grep "^euler" | sed "s/^/$b gpus=$g rep$rep: /" | tee -a $R/final.txt
  done; done; done
done
$D/solver bench euler --only "cube hllc" --sizes 128 --precision f32 --steps 2 --reps 1 --set 'run.math="fast"' >/dev/null 2>&1
$D/solver bench euler --only "cube hllc" --sizes 512 --precision f32 --steps 20 --reps 3 --set 'run.math="fast"' 2>&1 | grep "^euler" | sed "s/^/solver fast gpus=1: /" | tee -a $R/final.txt
$D/solver bench heat --only register-queue --sizes 128 --precision f64 --steps 2 --reps 1 >/dev/null 2>&1
for rep in 1 2; do for g in 1 2; do
  $D/solver bench heat --only register-queue --sizes 512 --precision f64 --steps 20 --reps 3 --gpus $g 2>&1 | grep "^heat" | sed "s/^/heat gpus=$g rep$rep: /" | tee -a $R/final.txt
done; done
$D/solver cases euler-rt-3d > $W/rt.toml
for g in 1 2; do $D/solver run $W/rt.toml --backend cuda -q --set run.precision=f32 --set time.end_time=1.0 --set run.gpus=$g -o $W/rt-g$g > $R/rt-g$g.log 2>&1; echo "rt gpus=$g rc $?" | tee -a $R/final.txt; done
for f in $(cd $W/rt-g1 && ls *.vti *.pvd 2>/dev/null); do cmp -s $W/rt-g1/$f $W/rt-g2/$f && echo "same $f" || echo "DIFFERENT $f"; done | tee -a $R/final.txt | tail -3
python3 - $R/final.txt <<'PY'
import re, sys, collections
rates = collections.defaultdict(list)
for l in open(sys.argv[1]):
    m = re.match(r"(\S+) gpus=(\d) rep\d: (?:euler|heat)\s+(.*?)\s+512\^3\s+f\d\d\s+\d+\s+\S+\s+(\S+)", l)
    if m: rates[(m.group(3), m.group(1), m.group(2))].append(float(m.group(4)))
for (b, s, g), v in sorted(rates.items()):
    print(b, s, "gpus", g, "cell-updates/s", max(v))
for b in sorted(set(k[0] for k in rates)):
    for s in ("solver", "heat"):
        if (b, s, "1") in rates and (b, s, "2") in rates:
            print("speed-up", b, s, "%.3f" % (max(rates[(b, s, "2")]) / max(rates[(b, s, "1")])))
PY
