#!/usr/bin/env bash
# Session 27, call 6 (two H100s, one process driving both): Euler on 2 GPUs after the z march
# got faster (sessions 26-27): the same files on 1 and 2 GPUs (RT 3D, f64 and f32), and the
# 2-GPU speed-up at 512^3 of PLM + HLL + RK3 f32 (exact and fast) and MUSCL-Hancock + HLLC f32
# fast, base (587148b) and new, alternating.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W
export NCCL_NVLS_ENABLE=0
nvidia-smi -L | tee -a $R/device.txt
$N cases euler-rt-3d > $W/rt3d.toml
for p in f64 f32; do
  for g in 1 2; do $N run $W/rt3d.toml --backend cuda -q --set run.precision=$p --set run.gpus=$g --set time.end_time=1.0 -o $W/rt-$p-$g; done
  d=0; for f in $(cd $W/rt-$p-1 && ls *.vt*); do cmp -s $W/rt-$p-1/$f $W/rt-$p-2/$f || d=$((d+1)); done
  echo "rt3d $p: 1 vs 2 GPUs, $(ls $W/rt-$p-1 | grep -c vt) files, $d differ"
done 2>&1 | tee $R/same.txt
eb() { local x=$1 g=$2 only=$3; shift 3
  $x bench euler --only "$only" --sizes 512 --precision f32 --gpus $g --steps 5 --reps 3 "$@" 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-100; }
{ for x in $B $N; do for g in 1 2; do
    echo "== $x $g GPUs"
    eb $x $g "rt-3d plm-rk3 hll"
    eb $x $g "rt-3d plm-rk3 hll" --set 'run.math="fast"'
    eb $x $g "toro-1 cube hllc" --set 'run.math="fast"'
  done; done
} 2>&1 | tee $R/bench.txt
echo "== summary"; cat $R/same.txt $R/bench.txt
