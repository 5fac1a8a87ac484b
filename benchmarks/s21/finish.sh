#!/usr/bin/env bash
# Session 21: the continuation call. The f4 run (scripts/gpu_les_run.sh) continues from /tmp/ck/f4/checkpoint.bin
# (the machine must still be warm) to the template's end; then DFG 2D-2 on the 72.5k slab at
# dt 0.001 with the rest of the call. bash benchmarks/s21/finish.sh LIMIT_S
set -uo pipefail
LIMIT=$1; R=${OUT:-/tmp/out}; mkdir -p $R
[ -f /tmp/ck/f4/checkpoint.bin ] || echo "COLD: no checkpoint, the machine was given back" | tee -a $R/final.txt
bash scripts/gpu_les_run.sh f4 $((LIMIT - 70))
left=$((LIMIT - SECONDS)); echo "dfg2d for $left s" | tee -a $R/final.txt
[ $left -gt 30 ] && OUT=$R/dfg DFG2D_DT=0.001 timeout $left bash scripts/gpu_dfg2d.sh .gpu/dfg2d-73k.msh | tail -4 | tee -a $R/final.txt
