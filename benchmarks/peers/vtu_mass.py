#!/usr/bin/env python3
"""Total-mass change Σ V φ (last output) / Σ V φ (first output) − 1 of a run directory's .pvd
series (the first cell array of each VTU). Prints JSON {"mass_change", "first", "last"}."""
import glob
import json
import os
import re
import sys

import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy


def mass(path):
    r = vtk.vtkXMLUnstructuredGridReader()
    r.SetFileName(path)
    r.Update()
    g = r.GetOutput()
    sizes = vtk.vtkCellSizeFilter()
    sizes.SetInputData(g)
    sizes.ComputeVolumeOn()
    sizes.Update()
    v = vtk_to_numpy(sizes.GetOutput().GetCellData().GetArray("Volume"))
    phi = vtk_to_numpy(g.GetCellData().GetArray(0))
    return float(np.sum(np.abs(v) * phi))


d = sys.argv[1]
files = sorted(glob.glob(os.path.join(d, "step_*.vtu")), key=lambda f: int(re.findall(r"\d+", os.path.basename(f))[0]))
a, b = mass(files[0]), mass(files[-1])
print(json.dumps({"mass_change": b / a - 1, "first": files[0], "last": files[-1]}))
