#!/usr/bin/env python3
"""Where two shallow-water runs differ: for each frame of the first run's .pvd, the largest
difference of depth and of each velocity component from the second's, and its cell (i, j).
numpy only (scripts/viz/vti.py). Usage: swe_compare.py RUN_A RUN_B"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "viz"))
from vti import frames, read_cell_array  # noqa: E402


def main():
    a, b = sys.argv[1], sys.argv[2]
    for (t, fa), (_, fb) in zip(frames(a), frames(b)):
        line = f"t={t:<10.6g}"
        for name in ("depth", "velocity"):
            xa, cells = read_cell_array(fa, name)
            xb, _ = read_cell_array(fb, name)
            for c in range(xa.shape[1]):
                d = np.abs(xa[:, c].astype(np.float64) - xb[:, c])
                k = int(np.argmax(d))
                line += f"  {name}[{c}] {d[k]:.3e} at ({k % cells[0]},{k // cells[0]})"
        print(line)


if __name__ == "__main__":
    main()
