#!/usr/bin/env bash
# Session 25, call 6 (2 GPUs, kind nvidia-h100-x2): call 5 again (the peer group's test, heat
# 512^3 f64 on 1 and 2 GPUs), asked again for 2 x H100 (calls 1-5 got H200s), then the Euler PLM
# 512^3 f32 speed-up.
set -uo pipefail
bash benchmarks/s25/call5-2gpu/call5.sh
source benchmarks/device_lib.sh  # N, R
eb() { $N bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --gpus $1 --reps 2 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-100; }
{ echo "PLM 1 GPU: $(eb 1)"; echo "PLM 2 GPUs: $(eb 2)"; } | tee -a $R/heat.txt
