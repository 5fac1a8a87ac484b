#!/usr/bin/env python3
"""A 3D Rayleigh-Taylor run's frames reduced to what comes back from the device: the density
on the vertical mid-plane y = 0 of every frame (one .npz, for scripts/viz/render_midplane.py) and
the growth rate of the single mode (rt_growth.py's fit, printed). Each frame is read once,
frames in parallel: at 224 x 224 x 672 a frame is most of a GB.

Needs numpy only (runs on the device machine).

Usage: rt_midplane.py OUTPUT_DIR --npz MIDPLANE.npz [--workers 8] [rt_growth.py's options]
"""
import argparse
import os
import sys
from multiprocessing import Pool

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "validation", "euler-rt"))
from rt_growth import add_options, mode_amplitude_of, report  # noqa: E402
from vti import frames, read_cell_arrays  # noqa: E402


def reduce_frame(path):
    arrays, (nx, ny, nz) = read_cell_arrays(path, ["density", "velocity"])
    rho = arrays["density"][:, 0].reshape(nz, ny, nx)
    # The plane y = 0 lies between cell rows ny/2 - 1 and ny/2 (even ny): their mean.
    mid = rho[:, ny // 2] if ny % 2 else 0.5 * (rho[:, ny // 2 - 1] + rho[:, ny // 2])
    return mid.astype(np.float32), mode_amplitude_of(arrays["velocity"], (nx, ny, nz)), (nx, ny, nz)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--npz", required=True, help="where the mid-planes go")
    ap.add_argument("--workers", type=int, default=8)
    add_options(ap)
    a = ap.parse_args()
    series = list(frames(a.out))
    with Pool(min(a.workers, len(series))) as pool:
        reduced = pool.map(reduce_frame, [p for _, p in series])
    t = np.array([s[0] for s in series])
    dims = reduced[0][2]
    # Half precision: densities 1 to 2 to 1e-3, plenty for a picture, and a small file to bring back.
    np.savez_compressed(a.npz, time=t, density=np.stack([r[0] for r in reduced]).astype(np.float16), dims=np.array(dims))
    report(t, np.array([r[1] for r in reduced]), dims, a)


if __name__ == "__main__":
    main()
