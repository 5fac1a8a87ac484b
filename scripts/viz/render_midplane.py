#!/usr/bin/env python3
"""Draw the density on the vertical mid-plane of a 3D Rayleigh-Taylor run, several times side by
side (viridis, one colour range, a colour bar labelled "density", the time above each frame),
from the .npz that scripts/viz/rt_midplane.py writes on the device (the frames themselves are tens
of GB there). The 3D companion of scripts/viz/render_rt.py, which needs ParaView and whole frames.

Usage: render_midplane.py MIDPLANE.npz -o PNG [--times 0 4 8 12] [--extent -0.25 0.25 -0.75 0.75]

Needs numpy and matplotlib.
"""
import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("npz")
ap.add_argument("-o", "--output", default="rt-3d-midplane.png")
ap.add_argument("--times", type=float, nargs="*", help="times to show (default: every frame)")
ap.add_argument("--extent", type=float, nargs=4, default=[-0.25, 0.25, -0.75, 0.75],
                help="x0 x1 z0 z1 of the plane (the euler-rt-3d template's box)")
ap.add_argument("--title", default=None)
a = ap.parse_args()

d = np.load(a.npz)
t, rho, dims = d["time"], d["density"].astype(np.float32), d["dims"]
picks = range(len(t)) if not a.times else [int(np.argmin(np.abs(t - s))) for s in a.times]
picks = list(picks)
lo, hi = float(rho[picks].min()), float(rho[picks].max())
width = (a.extent[1] - a.extent[0]) / (a.extent[3] - a.extent[2])
fig, axes = plt.subplots(1, len(picks), figsize=(1.1 + 6 * width * len(picks), 6.4), squeeze=False)
for ax, i in zip(axes[0], picks):
    im = ax.imshow(rho[i], origin="lower", extent=a.extent, cmap="viridis", vmin=lo, vmax=hi,
                   interpolation="nearest")
    ax.set_title(f"t = {t[i]:g}")
    ax.set_xticks([])
    ax.set_yticks([])
fig.colorbar(im, ax=axes[0].tolist(), label="density", shrink=0.8)
fig.suptitle(a.title or f"{dims[0]} x {dims[1]} x {dims[2]}, vertical mid-plane y = 0")
fig.savefig(a.output, dpi=110, bbox_inches="tight")
print(f"{a.output}: {len(picks)} frames, density {lo:.3f}..{hi:.3f}")
