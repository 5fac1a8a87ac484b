#!/usr/bin/env bash
# Session 22, call 10 (one H100): the z march's and the shallow-water step's blocks an SM
# (register caps), PLM + HLL + RK3 at 512^3 f32 and the tank at 1000^2 and 8000^2 f32.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
N=.gpu/solver; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/device.txt
{
for k in 3 4 5; do echo "== march minb $k"
  for m in fast exact; do CFD_EULER_MARCH_MINB=$k $N bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 10 --reps 2 --set "run.math=\"$m\"" 2>&1 | grep "^euler"; done
done
for k in 6 7 8; do echo "== swe minb $k"; CFD_SWE_DEFINES="SWE_MINB=$k" $N bench shallow-water --sizes 1000,8000 --precision f32 --steps 200 --reps 3 2>&1 | grep "^shallow"; done
} 2>&1 | tee $R/bench.txt
$N cases euler-rt-3d > $W/rt.toml
for k in 3 4; do CFD_EULER_MARCH_MINB=$k $N run $W/rt.toml --backend cuda -q --set run.precision=f32 --set time.end_time=1.0 -o $W/rt$k > /dev/null 2>&1; done
d=0; for f in $(cd $W/rt3 && ls *.vt*); do cmp -s $W/rt3/$f $W/rt4/$f || d=$((d+1)); done; echo "rt-3d f32 to t = 1, march minb 3 vs 4: $d files differ" | tee -a $R/bench.txt
