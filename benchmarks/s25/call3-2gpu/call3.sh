#!/usr/bin/env bash
# Session 25, call 3 (2 GPUs, kind nvidia-h100-x2): the Rayleigh-Taylor 3D template on 2 GPUs to
# the PLM paper's t = 12 at 224 x 224 x 672 (33.7 M cells, f32, exact math; 1024^3 would take
# ~175,000 steps, hours): wall time, steps, the growth rate of the single mode and the density on
# the vertical mid-plane of every frame (half a unit of time apart) to draw here
# (scripts/render_midplane.py).
set -uo pipefail
source benchmarks/device_lib.sh  # N, R, W
export NCCL_NVLS_ENABLE=0
$N cases euler-rt-3d > $W/rt3.toml
/usr/bin/time -f "wall %e s, max rss %M kB" timeout 500 $N run $W/rt3.toml --backend cuda -q --set run.precision=f32 \
  --set run.gpus=2 --set "grid.dims=[224,224,672]" --set output.interval=0.5 --set 'output.compression="none"' \
  -o $W/rt3 > $R/rt3-run.txt 2>&1
echo "run rc $?" >> $R/rt3-run.txt
cp $W/rt3/summary.json $R/rt3-summary.json
du -sh $W/rt3 >> $R/rt3-run.txt
/usr/bin/time -f "post-processing wall %e s" python3 scripts/rt_midplane.py $W/rt3 --npz $R/rt3-midplane.npz --max-kh 0.5 --workers 13 > $R/rt3-growth.txt 2>&1
cat $R/rt3-run.txt; tail -30 $R/rt3-growth.txt
python3 -c "import json;s=json.load(open('$R/rt3-summary.json'));print('steps',s.get('steps'),'time',s.get('time'),'timing',s.get('timing'));print('decomposition',s.get('decomposition'))"
