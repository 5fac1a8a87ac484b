#!/usr/bin/env bash
# Session 16, call 3: the drag curve's laminar points (scripts/drag_curve.py, Re 20/40/100/200 on
# the 95k-tet cylinder slab, runs sharing the GPU) and a DFG 2D-2 snapshot (72.5k, the template
# as shipped, to t = 6) for the wake picture. Everything comes back in one tarball.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
D=.gpu31; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d); T=$W/keep; mkdir -p $T
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name --format=csv,noheader | tee $T/device.txt
$D/meshtool prepare $D/cyl.msh -o $W/cyl.pmesh > $T/prepare-cyl.txt 2>&1
$D/meshtool prepare $D/s0.012.msh -o $W/d72.pmesh > $T/prepare-d72.txt 2>&1
$D/solver cases dfg-2d-2 > $W/d2.toml
$D/solver run $W/d2.toml --backend cuda -q --set time.end_time=0.002 -o $W/warm > /dev/null 2>&1
( $D/solver run $W/d2.toml --backend cuda -q --set "mesh=\"$W/d72.pmesh\"" --set time.end_time=6.0 --set output.every=1000 -o $W/dfg > $T/dfg.log 2>&1; echo "dfg rc $?" >> $T/dfg.log ) &
python3 scripts/drag_curve.py run --solver $D/solver --mesh $W/cyl.pmesh --backend cuda $W/dc > $T/drag_curve.txt 2>&1; echo "drag_curve rc $?" >> $T/drag_curve.txt
wait
mkdir -p $T/dc $T/dfg
for re in 20 40 100 200; do cp $W/dc/re$re/summary.json $T/dc/re$re-summary.json; cp $W/dc/re$re/forces.csv $T/dc/re$re-forces.csv; cp $W/dc/re$re.log $T/dc/; done 2>/dev/null
cp $W/dc/*.png $T/dc/ 2>/dev/null
cp $W/dfg/summary.json $T/dfg/; last=$(ls $W/dfg/*.vtu | tail -1); cp $last $T/dfg/; cp $W/dfg/forces.csv $T/dfg/
tar czf $R/call3.tgz -C $W keep
cat $T/drag_curve.txt; tail -2 $T/dfg.log; ls -la $R
