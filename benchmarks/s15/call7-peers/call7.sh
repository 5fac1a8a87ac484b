#!/usr/bin/env bash
# Session 15, call 7: AthenaK in double precision (its single-precision build does not compile:
# call 5) beside ours in f64 and f32, the same machine and call.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
R=${OUT:-/tmp/out}; mkdir -p $R
TRITON_PRECS=double ATHENAK_PRECS=double DEADLINE_S=420 bash benchmarks/peers/peers_issue28.sh "$R" 2>&1 | grep -v "detected during" | tail -25
N=.gpu30/solver; W=$(mktemp -d); export CFD_KERNEL_CACHE=$W/cache
for rs in hll hllc; do for p in f64 f32; do
  $N bench euler --only "rt-3d plm-rk3 hll" --sizes 256,512 --precision $p --steps 10 --reps 2 --set "euler.riemann=\"$rs\"" 2>&1 | grep "^euler" | sed "s/^/exact $rs /" | tee -a $R/ours.txt
  [ $p = f32 ] && $N bench euler --only "rt-3d plm-rk3 hll" --sizes 256,512 --precision $p --steps 10 --reps 2 --set "euler.riemann=\"$rs\"" --set 'run.math="fast"' 2>&1 | grep "^euler" | sed "s/^/fast $rs /" | tee -a $R/ours.txt
done; done
echo "== summary"; cat $R/athenak.txt; cat $R/ours.txt
