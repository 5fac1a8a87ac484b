#!/usr/bin/env bash
# Session 25, call 5 (2 GPUs, kind nvidia-h100-x2): the solver crate's unit tests on a machine
# with 2 GPUs (the peer group's test of the pools opened to each other runs there, skipped
# elsewhere), and the final build's heat 512^3 f64 speed-up once more.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W
export NCCL_NVLS_ENABLE=0
.gpu/solver-lib-tests a_group_opens --nocapture 2>&1 | tail -8 | tee $R/peer-test.txt
.gpu/solver-lib-tests -q grid:: 2>&1 | tail -4 | tee -a $R/peer-test.txt
hb() { $1 bench heat --only register-queue --sizes 512 --precision f64 --gpus $2 --reps 3 2>&1 | grep '^heat' | tr -s ' ' | cut -c1-100; }
{ echo "1 GPU: $(hb $N 1)"; echo "2 GPUs: $(hb $N 2)"; } | tee $R/heat.txt
