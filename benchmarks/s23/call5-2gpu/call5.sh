#!/usr/bin/env bash
# Session 23, call 5 (2 GPUs, kind nvidia-h100-x2): issue 29's 2-GPU figures with this session's
# build (the stable step's fold of wave-speed maxima, the compact clock kernel): 2 GPUs write the
# same files as 1 (every Euler scheme, heat), the 512^3 speed-ups (PLM + HLL + RK3 f32,
# MUSCL-Hancock + HLLC f32, heat f64); then on one GPU the clock kernel's duration and the 2D
# benchmark against base.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
GPU=.gpu PARTS_CHECK=0 PARTS_SAME=all PARTS_BENCHES="euler-plm heat euler-hllc" OUT=$R bash scripts/gpu_parts.sh > $R/parts.txt 2>&1
echo "gpu_parts rc $?" >> $R/parts.txt
N=.gpu/solver; B=.gpu/solver-base
{ for x in $B $N; do echo "== $x"; $x bench euler --only "riemann-2d hllc" --sizes 1000 --precision f32 --steps 20 --reps 5 --set 'run.math="fast"' 2>&1 | grep "^euler"; done
  NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null); $N cases euler-riemann-2d > $W/r2d.toml
  $NCU --metrics gpu__time_duration.sum --csv --print-units base --launch-skip 200 --launch-count 120 -k regex:euler_clock $N run $W/r2d.toml --backend cuda -q --set run.precision=f32 --set 'run.math="fast"' -o $W/nc 2>/dev/null \
    | python3 -c "import csv,sys; v=[float(r[-1].replace(',','')) for r in csv.reader(sys.stdin) if len(r)>10 and r[-1][0].isdigit()]; print('euler_clock launches', len(v), 'mean us', sum(v)/max(len(v),1)/1e3)"
} > $R/one-gpu.txt 2>&1
tail -30 $R/parts.txt; cat $R/one-gpu.txt
