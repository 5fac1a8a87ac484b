#!/usr/bin/env bash
# Session 16, call 5: the drag curve's steady wakes again (Re 20, 40) with navier-stokes.wake
# (L/D, Cpb), and Re 100 for its mean wake. Runs share the GPU.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
D=.gpu31; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d); T=$W/keep; mkdir -p $T
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name --format=csv,noheader | tee $T/device.txt
$D/meshtool prepare $D/cyl.msh -o $W/cyl.pmesh > $T/prepare-cyl.txt 2>&1
python3 scripts/drag_curve.py run --solver $D/solver --mesh $W/cyl.pmesh --backend cuda --re 20,40,100 $W/dc > $T/drag_curve.txt 2>&1; echo "drag_curve rc $?" >> $T/drag_curve.txt
mkdir -p $T/dc; for re in 20 40 100; do cp $W/dc/re$re/summary.json $T/dc/re$re-summary.json; cp $W/dc/re$re.log $T/dc/; done 2>/dev/null
tar czf $R/call5.tgz -C $W keep; cat $T/drag_curve.txt
