#!/usr/bin/env bash
# Session 25, call 6 (2 GPUs, kind nvidia-h100-x2): the solver crate's unit tests on a machine
# with 2 GPUs (the peer group's test of the pools opened to each other runs there, skipped
# elsewhere), and the final build's heat 512^3 f64 speed-up once more (asked again for 2 x H100: calls 1-5 got H200s).
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W
export NCCL_NVLS_ENABLE=0
.gpu/solver-lib-tests a_group_opens --nocapture 2>&1 | tail -8 | tee $R/peer-test.txt
.gpu/solver-lib-tests -q grid:: 2>&1 | tail -4 | tee -a $R/peer-test.txt
hb() { $1 bench heat --only register-queue --sizes 512 --precision f64 --gpus $2 --reps 3 2>&1 | grep '^heat' | tr -s ' ' | cut -c1-100; }
{ echo "1 GPU: $(hb $N 1)"; echo "2 GPUs: $(hb $N 2)"; } | tee $R/heat.txt
eb() { $N bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --gpus $1 --reps 2 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-100; }
{ echo "PLM 1 GPU: $(eb 1)"; echo "PLM 2 GPUs: $(eb 2)"; } | tee -a $R/heat.txt
