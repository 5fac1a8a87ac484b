#!/usr/bin/env bash
# Session 16, call 9 (one GPU): after the periodic merge (the walk in tet.cuh, ns_gradient and the
# Mesh layout changed): check navier-stokes (the new 'tgv-3d-les periodic' row and every old one),
# check advect (the same walk), and the dfg-2d-2 template on its built-in slab (a short run).
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
D=.gpu31; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/device.txt
$D/solver check navier-stokes > $W/ns.txt 2>&1; echo "check navier-stokes rc $?" | tee -a $R/final.txt
grep -E "PASS|FAIL|n/a" $W/ns.txt > $R/check-ns.txt
$D/solver check advect > $W/ad.txt 2>&1; echo "check advect rc $?" | tee -a $R/final.txt
grep -E "PASS|FAIL|n/a" $W/ad.txt > $R/check-advect.txt
grep -c PASS $R/check-ns.txt $R/check-advect.txt | tee -a $R/final.txt
grep -h "periodic\|FAIL" $R/check-ns.txt $R/check-advect.txt | tee -a $R/final.txt
