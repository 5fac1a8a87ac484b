#!/usr/bin/env python3
"""Toro's test 1 (Sod) at 400 cells with each scheme and limiter: how far the computed density
departs from monotone. The exact density falls monotonically from 1 to 0.125, so its total
variation is 0.875; the excess of the computed total variation over that, and the largest rise
from one cell to the next, measure the oscillations (at the contact and the shock) beyond it.
Usage: /usr/bin/python3 validation/euler-toro/euler_monotone.py [SOLVER]   (needs python3-vtk9, numpy)"""
import glob
import subprocess
import os
import sys
import tempfile

import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy

solver = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release", "solver")
print("| scheme | Riemann | limiter | TV excess | largest rise |")
print("|---|---|---|---|---|")
with tempfile.TemporaryDirectory() as d:
    case = f"{d}/t1.toml"
    open(case, "w").write(subprocess.run([solver, "cases", "euler-toro-1"], capture_output=True, text=True, check=True).stdout)
    for scheme, riemann in [("muscl-hancock", "exact"), ("plm-rk3", "hll")]:
        for limiter in ["first-order", "minbee", "van-leer", "superbee", "minmod"]:
            out = f"{d}/{scheme}-{limiter}"
            subprocess.run([solver, "run", case, "--backend", "cpu", "-q", "-o", out, "--set", "grid.dims=[400,1,1]",
                            "--set", f'euler.scheme="{scheme}"', "--set", f'euler.riemann="{riemann}"',
                            "--set", f'euler.limiter="{limiter}"'], check=True)
            r = vtk.vtkXMLImageDataReader()
            r.SetFileName(sorted(glob.glob(f"{out}/*.vti"))[-1])
            r.Update()
            rho = vtk_to_numpy(r.GetOutput().GetCellData().GetArray("density"))
            steps = np.diff(rho)
            print(f"| {scheme} | {riemann} | {limiter} | {np.abs(steps).sum() - (rho[0] - rho[-1]):.2e} | {max(steps.max(), 0):.2e} |")
