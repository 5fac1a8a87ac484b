#!/usr/bin/env python3
"""The paper's Table V (Viñas et al., sec. 6.4): the L1 norm of the difference between two runs
of the water column falling into a tank (`swe-column`) at the same time, for h, q_x and q_y:
L1 = mean over cells of |a - b| (the paper's reference is its sequential CPU code). Reads the
last frame of each run's .pvd (numpy only, so it runs on the device machine).

Usage: swe_tank_l1.py REFERENCE_DIR OTHER_DIR [--label TEXT] [--json]
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "viz"))
from vti import frames, read_cell_array  # noqa: E402


def conserved(out_dir):
    """(time, cells, {h, qx, qy}) of the last frame of a run."""
    time, path = list(frames(out_dir))[-1]
    h, cells = read_cell_array(path, "depth")
    u, _ = read_cell_array(path, "velocity")
    h = h[:, 0].astype(np.float64)
    return time, cells, {"h": h, "qx": h * u[:, 0], "qy": h * u[:, 1]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reference")
    ap.add_argument("other")
    ap.add_argument("--label", default="")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    t0, c0, ref = conserved(a.reference)
    t1, c1, oth = conserved(a.other)
    if c0 != c1 or abs(t0 - t1) > 1e-9 * max(1.0, abs(t0)):
        sys.exit(f"swe_tank_l1: the runs differ in grid or time: {c0} at {t0}, {c1} at {t1}")
    l1 = {k: float(np.mean(np.abs(ref[k] - oth[k]))) for k in ref}
    if a.json:
        print(json.dumps({"label": a.label, "cells": c0, "time": t0, "l1": l1}))
    else:
        print(f"{a.label:<28} {c0[0]}x{c0[1]} t={t0:g}  L1 h {l1['h']:.3e}  qx {l1['qx']:.3e}  qy {l1['qy']:.3e}")


if __name__ == "__main__":
    main()
