#!/usr/bin/env bash
# Session 17, call 3 (one H100): CPU vs CUDA of every navier-stokes check row (the LES diffusion
# cap, the Re 3900 template on its built-in span), beside the Re 3900 LES on the 1.07 M-tet span
# with the cap (t = 160, statistics from 40) and its last frame resampled for the pictures.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
R=${OUT:-/tmp/out}; mkdir -p $R .ckpt
EXTRACT=1 bash .gpu32/les.sh re3900 570 m24.msh.gz 2.5641025641025643e-4 160 40 --set 'output.compression="none"' > .ckpt/les.log 2>&1 & pl=$!
CFD_KERNEL_CACHE=.ckpt/cache-check /usr/bin/time -f "check %e s" .gpu32/solver check navier-stokes > $R/check-ns.txt 2>&1; echo "check rc $?"
tail -5 $R/check-ns.txt
wait $pl; cat .ckpt/les.log
