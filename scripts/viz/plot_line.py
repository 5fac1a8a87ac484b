#!/usr/bin/env python3
"""Plot fields of a one-dimensional structured run (a grid of N x 1 x 1 cells: the Toro shock
tubes, the dam breaks) along x, one curve per output frame, one panel per field, as a PNG.
Reads the .vti frames of the run's .pvd with numpy (scripts/viz/vti.py), draws with matplotlib
(Agg, no display). A field of several components is shown by its x component.

Usage: scripts/viz/plot_line.py RUN_DIR [-o line.png] [--fields density,velocity,pressure]
       [--last] [--title TEXT]
Needs python3-numpy and python3-matplotlib (scripts/setup.sh installs them).
"""
import argparse
import os
import sys
import xml.etree.ElementTree as ET

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vti  # noqa: E402


def cell_centres_x(path, n):
    """x of the cell centres from the image's Origin and Spacing."""
    image = ET.parse(path).getroot().find("ImageData")
    x0 = float(image.get("Origin").split()[0])
    dx = float(image.get("Spacing").split()[0])
    return x0 + (np.arange(n) + 0.5) * dx


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir")
    ap.add_argument("-o", "--output", default="line.png")
    ap.add_argument("--fields", default="density,velocity,pressure")
    ap.add_argument("--last", action="store_true", help="only the last frame")
    ap.add_argument("--title", default=None)
    args = ap.parse_args()
    fields = args.fields.split(",")
    frames = list(vti.frames(args.run_dir))
    if args.last:
        frames = frames[-1:]
    fig, axes = plt.subplots(len(fields), 1, figsize=(7, 2.2 * len(fields)), sharex=True, squeeze=False)
    for t, path in frames:
        for ax, name in zip(axes[:, 0], fields):
            values, cells = vti.read_cell_array(path, name)
            if cells[1] * cells[2] != 1:
                sys.exit(f"{path}: {cells[0]} x {cells[1]} x {cells[2]} cells; this plots 1D runs only")
            x = cell_centres_x(path, cells[0])
            ax.plot(x, values[:, 0], lw=1.2, label=f"t = {t:g}")
            ax.set_ylabel(name)
    axes[-1, 0].set_xlabel("x")
    axes[0, 0].legend(fontsize=8, loc="best")
    if args.title:
        axes[0, 0].set_title(args.title)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
