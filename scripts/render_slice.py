#!/usr/bin/env python3
"""Render a cell field of a solver run on the middle plane, one band per output step, as a PNG
(like the paper's fig. 3: initial, forward, back). Headless: resamples with VTK and colours the
image without OpenGL, so it runs on machines with no display.

Usage: scripts/render_slice.py RUN_DIR/NAME.pvd [-o slice.png] [--field F] [--axis z]
       [--steps 0,30,60] [--width 1200]
Needs python3-vtk9 (scripts/setup.sh installs it); use /usr/bin/python3 if a virtualenv hides it.
"""
import argparse
import os
import xml.etree.ElementTree as ET

import vtk


def datasets(pvd):
    root = ET.parse(pvd).getroot()
    base = os.path.dirname(os.path.abspath(pvd))
    return [(float(d.get("timestep")), os.path.join(base, d.get("file"))) for d in root.iter("DataSet")]


def read(path):
    r = vtk.vtkXMLUnstructuredGridReader() if path.endswith(".vtu") else vtk.vtkXMLImageDataReader()
    r.SetFileName(path)
    r.Update()
    return r.GetOutput()


def slice_image(data, field, axis, width):
    """The field on a regular grid in the middle plane normal to `axis` (x, y or z)."""
    b = data.GetBounds()
    k = "xyz".index(axis)
    plane = [i for i in range(3) if i != k]
    lo = [b[2 * i] for i in range(3)]
    hi = [b[2 * i + 1] for i in range(3)]
    nu = width
    nv = max(2, int(round(width * (hi[plane[1]] - lo[plane[1]]) / (hi[plane[0]] - lo[plane[0]]))))
    grid = vtk.vtkImageData()
    dims = [1, 1, 1]
    dims[plane[0]], dims[plane[1]] = nu, nv
    grid.SetDimensions(dims)
    origin = list(lo)
    origin[k] = 0.5 * (lo[k] + hi[k])
    grid.SetOrigin(origin)
    spacing = [1.0, 1.0, 1.0]
    spacing[plane[0]] = (hi[plane[0]] - lo[plane[0]]) / (nu - 1)
    spacing[plane[1]] = (hi[plane[1]] - lo[plane[1]]) / (nv - 1)
    grid.SetSpacing(spacing)
    # Cell data: probe gives each sample the value of the cell it falls in.
    probe = vtk.vtkProbeFilter()
    probe.SetInputData(grid)
    probe.SetSourceData(data)
    probe.Update()
    out = probe.GetOutput()
    if out.GetPointData().GetArray(field) is None:
        raise SystemExit(f"no field '{field}' in the run's output")
    flat = vtk.vtkImageData()
    flat.SetDimensions(nu, nv, 1)
    arr = vtk.vtkDoubleArray()
    arr.SetName(field)
    src = out.GetPointData().GetArray(field)
    arr.SetNumberOfTuples(nu * nv)
    for j in range(nv):
        for i in range(nu):
            idx = [0, 0, 0]
            idx[plane[0]], idx[plane[1]] = i, j
            arr.SetValue(i + nu * j, src.GetComponent(out.ComputePointId(idx), 0))
    flat.GetPointData().SetScalars(arr)
    return flat


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pvd")
    ap.add_argument("-o", "--output", default="slice.png")
    ap.add_argument("--field", default="F")
    ap.add_argument("--axis", default="z", choices=["x", "y", "z"])
    ap.add_argument("--steps", help="output indices in the series to show (default: all)")
    ap.add_argument("--width", type=int, default=1200)
    ap.add_argument("--range", type=float, nargs=2, default=[0.0, 1.0], help="colour range")
    args = ap.parse_args()
    series = datasets(args.pvd)
    if args.steps:
        wanted = [int(s) for s in args.steps.split(",")]
        series = [series[i] for i in wanted]
    lut = vtk.vtkLookupTable()
    lut.SetRange(*args.range)
    lut.SetHueRange(0.667, 0.0)  # blue (low) to red (high)
    lut.Build()
    append = vtk.vtkImageAppend()
    append.SetAppendAxis(1)
    # Top band first: vtkImageAppend stacks upwards, so add the last step first.
    for _, path in reversed(series):
        img = slice_image(read(path), args.field, args.axis, args.width)
        colours = vtk.vtkImageMapToColors()
        colours.SetLookupTable(lut)
        colours.SetOutputFormatToRGB()
        colours.SetInputData(img)
        colours.Update()
        gap = vtk.vtkImageData()
        gap.SetDimensions(args.width, 4, 1)
        gap.AllocateScalars(vtk.VTK_UNSIGNED_CHAR, 3)
        gap.GetPointData().GetScalars().Fill(255)
        append.AddInputData(colours.GetOutput())
        append.AddInputData(gap)
    append.Update()
    writer = vtk.vtkPNGWriter()
    writer.SetFileName(args.output)
    writer.SetInputData(append.GetOutput())
    writer.Write()
    print(f"wrote {args.output}: {len(series)} bands (top: first step) of '{args.field}' on the middle {args.axis} plane")


if __name__ == "__main__":
    main()
