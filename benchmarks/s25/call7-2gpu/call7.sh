#!/usr/bin/env bash
# Session 25, call 7 (2 GPUs, kind nvidia-h100-x2): an f32 run's fields written as Float32
# (output.precision defaults to the run's) against the build before (ffeb235, Float64): RT 3D
# 224 x 224 x 672 f32 on 2 GPUs, 600 steps, a frame every 100 (7 frames), zlib and
# uncompressed, alternating; summary.json's timing and the frames' bytes. The same 600 steps'
# last frame read back by both: the same values (scripts/vti.py).
set -uo pipefail
source benchmarks/device_lib.sh  # N, R, W
export NCCL_NVLS_ENABLE=0
P=.gpu/solver-prev
$N cases euler-rt-3d > $W/rt3.toml; sed -i '/^end_time/d' $W/rt3.toml
for codec in zlib none; do
  for b in $P $N $P $N; do
    rm -rf $W/o-$(basename $b)
    /usr/bin/time -f "%e" -o $W/wall $b run $W/rt3.toml --backend cuda -q --set run.precision=f32 --set run.gpus=2 \
      --set "grid.dims=[224,224,672]" --set time.steps=600 --set output.every=100 --set output.interval=0 \
      --set "output.compression=\"$codec\"" -o $W/o-$(basename $b) > /dev/null 2>&1
    python3 -c "import json;t=json.load(open('$W/o-$(basename $b)/summary.json'))['timing'];print('$codec $(basename $b) wall $(cat $W/wall) s', ' '.join(f'{k} {t[k]:.3f}' for k in ['stepping','output','output_writer_busy','total']), 'frames', t['output_frames'], 'bytes', t['output_bytes'])"
  done
done | tee $R/output-timing.txt
python3 - $W/o-solver-prev $W/o-solver <<'PY' | tee -a $R/output-timing.txt
import sys, glob, os
sys.path.insert(0, "scripts")
import numpy as np
from vti import read_cell_arrays
a, b = (sorted(glob.glob(os.path.join(d, "*.vti")))[-1] for d in sys.argv[1:3])
names = ["density", "velocity", "pressure", "mach"]
x, _ = read_cell_arrays(a, names); y, _ = read_cell_arrays(b, names)
print("last frame", os.path.basename(a), "types", x["density"].dtype, "->", y["density"].dtype,
      "equal values:", all(np.array_equal(x[n].astype(np.float64), y[n].astype(np.float64)) for n in names))
PY
