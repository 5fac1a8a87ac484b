#!/usr/bin/env bash
# Session 25, call 4 (2 GPUs, kind nvidia-h100-x2): the host's share of an output frame of a
# split grid (gathering the parts' fields), base (eaad080) against the new build, whose parts'
# fields are joined by one copy each: RT 3D 224 x 224 x 672 f32 on 2 GPUs, 600 steps, a frame
# every 100 (7 frames), uncompressed as in call 3 and zlib (the default); summary.json's timing.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W
export NCCL_NVLS_ENABLE=0
$N cases euler-rt-3d > $W/rt3.toml; sed -i '/^end_time/d' $W/rt3.toml
for codec in none zlib; do
  for b in $B $N $B $N; do
    rm -rf $W/o
    /usr/bin/time -f "%e" -o $W/wall $b run $W/rt3.toml --backend cuda -q --set run.precision=f32 --set run.gpus=2 \
      --set "grid.dims=[224,224,672]" --set time.steps=600 --set output.every=100 --set output.interval=0 \
      --set "output.compression=\"$codec\"" -o $W/o > /dev/null 2>&1
    python3 -c "import json;t=json.load(open('$W/o/summary.json'))['timing'];print('$codec $(basename $b) wall $(cat $W/wall) s', ' '.join(f'{k} {t[k]:.3f}' for k in ['stepping','output','output_writer_busy','total']), 'frames', t['output_frames'])"
  done
done | tee $R/output-timing.txt
