#!/usr/bin/env bash
# Session 25, call 2 (2 GPUs, kind nvidia-h100-x2): the build without the push (copy engines,
# the memory pools granted to each other): 2 GPUs write the same files as 1 (gpu_parts.sh's
# final set: Euler, heat, shallow water; NCCL, copy engines, mpirun), then 1 GPU against 2 at
# 512^3 (Euler PLM, MUSCL-Hancock, heat f64) and shallow water 8000^2, each with the other
# transport too (Euler and shallow water by copy engine, heat by NCCL): with direct pulls the
# copy engines may now carry Euler and shallow water as well.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W
export NCCL_NVLS_ENABLE=0
GPU=.gpu PARTS_CHECK=0 PARTS_SAME=final PARTS_BENCHES="heat euler-plm euler-hllc swe" OUT=$W/parts bash scripts/gpu_parts.sh > $R/parts.txt 2>&1
echo "gpu_parts rc $?" >> $R/parts.txt
tar -C $W/parts -cf $R/parts-bench-json.tar . 2>/dev/null
hb() { $1 bench heat --only register-queue --sizes 512 --precision f64 --gpus $2 --reps 3 2>&1 | grep '^heat' | tr -s ' ' | cut -c1-100; }
{ echo "base 1 GPU: $(hb $B 1)"; echo "base 2 GPUs: $(hb $B 2)"; echo "new 2 GPUs: $(hb $N 2)"; } > $R/heat-base.txt 2>&1
grep -v "^$" $R/parts.txt | tail -40; cat $R/heat-base.txt
