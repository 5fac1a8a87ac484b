#!/usr/bin/env bash
# Session 25, call 1 (2 GPUs, kind nvidia-h100-x2): heat's 2-GPU stage with the inner planes'
# kernel storing the end planes straight into the neighbour's ghosts (push.cuh, the default)
# against the copy engines' pulls (CFD_PEER_COPY=engine, as before) and against base (eaad080):
# 2 GPUs write the same files as 1 (heat cases of gpu_parts.sh), 512^3 f64 speed-up, interleaved.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W; same
export NCCL_NVLS_ENABLE=0
GPU=.gpu PARTS_CHECK=0 PARTS_SAME=heat PARTS_BENCH=0 OUT=$W/parts bash scripts/gpu_parts.sh > $R/parts.txt 2>&1
echo "gpu_parts heat (push) rc $?" >> $R/parts.txt
CFD_PEER_COPY=engine GPU=.gpu PARTS_CHECK=0 PARTS_SAME=heat PARTS_BENCH=0 OUT=$W/parts0 bash scripts/gpu_parts.sh > $R/parts-engine.txt 2>&1
echo "gpu_parts heat (engine) rc $?" >> $R/parts-engine.txt
hb() { local s=$1; shift; $s bench heat --only register-queue --sizes 512 --precision ${P:-f64} --gpus "$@" --reps 3 2>&1 | grep '^heat' | tr -s ' ' | cut -c1-100; }
{ echo "1 GPU: $(hb $N 1)"
  for rep in 1 2 3; do
    echo "rep $rep push:   $(hb $N 2)"
    echo "rep $rep engine: $(CFD_PEER_COPY=engine hb $N 2)"
    echo "rep $rep base:   $(hb $B 2)"
  done
  echo "hollow (timing only): $(CFD_PARTS_EXCHANGE=hollow hb $N 2)"
  echo "off (timing only):    $(CFD_PARTS_EXCHANGE=off hb $N 2)"
  echo "1 GPU: $(hb $N 1)"
  echo "f32 1 GPU: $(P=f32 hb $N 1)"
  echo "f32 push:   $(P=f32 hb $N 2)"
  echo "f32 engine: $(P=f32 CFD_PEER_COPY=engine hb $N 2)"
} > $R/heat-bench.txt 2>&1
tail -8 $R/parts.txt; tail -8 $R/parts-engine.txt; cat $R/heat-bench.txt
