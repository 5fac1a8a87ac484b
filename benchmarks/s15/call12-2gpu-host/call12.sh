#!/usr/bin/env bash
# Session 15, call 12 (2 x H100): is the 2-GPU Euler loss the code or the host? The half grid
# (512 x 512 x 256, one part's work) on GPU 0 alone, then on GPU 0 and GPU 1 at once (two
# processes), then the whole 512^3 on both GPUs (run.gpus = 2); nvidia-smi's clocks and power
# sampled during each.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export NCCL_NVLS_ENABLE=0
N=.gpu30/solver; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
H='--only rt-3d --sizes 512 --precision f32 --steps 20 --reps 3'
nvidia-smi -L | tee $R/devices.txt
sample() { nvidia-smi --query-gpu=index,clocks.sm,power.draw,temperature.gpu --format=csv,noheader -lms 500 > $R/smi-$1.txt & echo $!; }
$N bench euler $H --set 'grid.dims=[512,512,256]' >/dev/null 2>&1   # compile the kernels once
p=$(sample alone); CUDA_VISIBLE_DEVICES=0 $N bench euler $H --set 'grid.dims=[512,512,256]' 2>&1 | grep "^euler" | sed 's/^/half alone gpu0 /' | tee -a $R/host.txt; kill $p
p=$(sample both)
CUDA_VISIBLE_DEVICES=0 $N bench euler $H --set 'grid.dims=[512,512,256]' > $W/b0 2>&1 & b0=$!
CUDA_VISIBLE_DEVICES=1 $N bench euler $H --set 'grid.dims=[512,512,256]' > $W/b1 2>&1 & b1=$!
wait $b0 $b1
kill $p
grep "^euler" $W/b0 | sed 's/^/half both gpu0 /' | tee -a $R/host.txt
grep "^euler" $W/b1 | sed 's/^/half both gpu1 /' | tee -a $R/host.txt
p=$(sample gpus2); $N bench euler $H --gpus 2 2>&1 | grep "^euler" | sed 's/^/whole gpus=2 /' | tee -a $R/host.txt; kill $p
p=$(sample whole1); $N bench euler $H 2>&1 | grep "^euler" | sed 's/^/whole 1 gpu /' | tee -a $R/host.txt; kill $p
for f in alone both gpus2 whole1; do echo "== $f: median SM clock MHz, power W by GPU"; python3 -c "
import sys, statistics as st
rows=[l.split(',') for l in open('$R/smi-$f.txt') if l.strip()]
for g in sorted(set(r[0] for r in rows)):
    c=[float(r[1].split()[0]) for r in rows if r[0]==g]; p=[float(r[2].split()[0]) for r in rows if r[0]==g]; t=[float(r[3]) for r in rows if r[0]==g]
    print('gpu', g, 'clock', st.median(c), 'min', min(c), 'power', st.median(p), 'max', max(p), 'temp', max(t))
" | tee -a $R/host.txt; done
