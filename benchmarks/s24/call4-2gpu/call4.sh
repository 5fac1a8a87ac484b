#!/usr/bin/env bash
# Session 24, call 4 (2 GPUs, kind nvidia-h100-x2): heat's 2-GPU stage begins the exchange
# before the ends' x and y ghosts are filled (CFD_HEAT_EXCHANGE_FIRST=0: after, as before):
# 2 GPUs write the same files as 1 (heat cases of gpu_parts.sh), 512^3 f64 speed-up both ways,
# interleaved; on one GPU, heat's register-queue stage launched early: CPU = CUDA and the same
# bytes as base (7992cc7).
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W; same
export NCCL_NVLS_ENABLE=0
GPU=.gpu PARTS_CHECK=0 PARTS_SAME=heat PARTS_BENCH=0 OUT=$W/parts bash scripts/gpu_parts.sh > $R/parts.txt 2>&1
echo "gpu_parts heat rc $?" >> $R/parts.txt
CFD_HEAT_EXCHANGE_FIRST=0 GPU=.gpu PARTS_CHECK=0 PARTS_SAME=heat PARTS_BENCH=0 OUT=$W/parts0 bash scripts/gpu_parts.sh > $R/parts-knob0.txt 2>&1
echo "gpu_parts heat (exchange after the fills) rc $?" >> $R/parts-knob0.txt
hb() { .gpu/solver bench heat --only register-queue --sizes 512 --precision f64 --gpus $1 --reps 3 2>&1 | grep '^heat' | tr -s ' ' | cut -c1-100; }
{ echo "1 GPU: $(hb 1)"
  for rep in 1 2 3; do
    echo "rep $rep exchange first: $(hb 2)"
    echo "rep $rep fills first:    $(CFD_HEAT_EXCHANGE_FIRST=0 hb 2)"
  done
  echo "nowait (timing only): $(CFD_PARTS_EXCHANGE=nowait hb 2)"
  echo "off (timing only):    $(CFD_PARTS_EXCHANGE=off hb 2)"
  echo "1 GPU: $(hb 1)"
} > $R/heat-bench.txt 2>&1
$N check heat > $W/check-heat.txt 2>&1; echo "check heat rc $? pass $(grep -c ' PASS' $W/check-heat.txt) fail $(grep -c ' FAIL' $W/check-heat.txt)" > $R/checks.txt
{ for t in heat-gaussian heat-erfc heat-decay heat-benchmark; do
    $N cases $t > $W/$t.toml
    ex=(); [ $t = heat-benchmark ] && ex=(--set time.steps=100 --set output.every=50)
    for p in f64 f32; do same $t-$p $W/$t.toml --backend cuda --set run.precision=$p "${ex[@]}"; done
  done; } > $R/same.txt 2>&1
tail -8 $R/parts.txt; tail -8 $R/parts-knob0.txt; cat $R/heat-bench.txt $R/checks.txt $R/same.txt
