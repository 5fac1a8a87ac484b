"""Render the last output of a Navier-Stokes run (the DFG 3D cylinder channel) on the plane
z = 0.205 through the cylinder: one PNG coloured by the velocity magnitude, a second by the
pressure (cell data `velocity`, `pressure` of the VTU series; any other cell field of the
series, e.g. `vorticity_magnitude` or `q_criterion`, with --fields; `vorticity:Z` colours one
component of a vector, on a range symmetric about 0). Run with ParaView's Python:

    scripts/viz/pvbatch.sh scripts/viz/render_dfg_slice.py RUN_DIR OUT.png [--z 0.205] [--fields velocity pressure]

(scripts/viz/pvbatch.sh unpacks Debian's python3-paraview beside the system instead of installing it,
since it conflicts with python3-vtk9, and runs pvbatch under xvfb.)

RUN_DIR holds the run's .pvd (the only one there, or the one named by --pvd). The first field
goes to OUT.png, each further one to OUT_<field>.png. The view looks down -z with a parallel
camera on the slice's bounding box, a horizontal colour bar under it (viridis for magnitudes,
cool-warm for the pressure).
"""
import argparse
import glob
import os
import sys
import xml.etree.ElementTree as ET

from paraview.simple import (ColorBy, CreateView, GetColorTransferFunction, GetScalarBar, Render,
                             SaveScreenshot, Show, Slice, XMLUnstructuredGridReader)

ap = argparse.ArgumentParser()
ap.add_argument("run_dir")
ap.add_argument("output")
ap.add_argument("--pvd", help="the series file in RUN_DIR (default: the only .pvd there)")
ap.add_argument("--z", type=float, default=0.205, help="height of the slice (default 0.205, the channel's middle)")
ap.add_argument("--fields", nargs="+", default=["velocity", "pressure"])
ap.add_argument("--width", type=int, default=1600, help="image width in pixels")
a = ap.parse_args()

pvds = [os.path.join(a.run_dir, a.pvd)] if a.pvd else sorted(glob.glob(os.path.join(a.run_dir, "*.pvd")))
if len(pvds) != 1:
    sys.exit(f"{a.run_dir}: expected one .pvd, found {len(pvds)} ({', '.join(map(os.path.basename, pvds))}); name it with --pvd")
root = ET.parse(pvds[0]).getroot()
frames = [(float(d.get("timestep", i)), os.path.join(os.path.dirname(pvds[0]), d.get("file")))
          for i, d in enumerate(root.iter("DataSet"))]
frames = [f for f in frames if os.path.exists(f[1])]
if not frames:
    sys.exit(f"{pvds[0]}: no output file of the series exists")
time, path = frames[-1]

src = XMLUnstructuredGridReader(FileName=[path])
src.UpdatePipeline()
have = list(src.CellData.keys())
missing = [f for f in a.fields if f.split(":")[0] not in have]
if missing:
    sys.exit(f"{path}: no cell field {', '.join(missing)} (it has: {', '.join(have)})")
b = src.GetDataInformation().GetBounds()
if not b[4] <= a.z <= b[5]:
    sys.exit(f"{path}: z = {a.z} is outside the mesh (z from {b[4]} to {b[5]})")
cut = Slice(Input=src)
cut.SliceType = "Plane"
cut.SliceType.Origin = [(b[0] + b[1]) / 2, (b[2] + b[3]) / 2, a.z]
cut.SliceType.Normal = [0, 0, 1]
cut.UpdatePipeline()
sb = cut.GetDataInformation().GetBounds()
width, height = sb[1] - sb[0], sb[3] - sb[2]

view = CreateView("RenderView")
view.OrientationAxesVisibility = 0
view.Background = [1, 1, 1]
if hasattr(view, "UseColorPaletteForBackground"):
    view.UseColorPaletteForBackground = 0
shown = Show(cut, view)
shown.SetRepresentationType("Surface")

# The slice fills the top of the image; below it, 0.7 slice heights hold the colour bar with
# its title and labels. The view has the image's size, so that font sizes are in pixels.
margin = 0.03 * width
world_w, world_h = width + 2 * margin, height * 1.7 + 2 * margin
pixels = [a.width, max(200, int(round(a.width * world_h / world_w)))]
view.ViewSize = pixels
font = max(10, a.width // 80)
written = []
for i, spec in enumerate(a.fields):
    field, _, comp = spec.partition(":")
    ncomp = src.CellData[field].GetNumberOfComponents()
    lut = GetColorTransferFunction(field)
    if comp:
        # One component, signed (e.g. the spanwise vorticity of a shedding wake): a diverging map
        # on a range symmetric about 0, clipped at a fifth of the extreme so the wake shows.
        index = "XYZ".index(comp.upper())
        ColorBy(shown, ("CELLS", field, comp.upper()))
        lut.VectorMode = "Component"
        lut.VectorComponent = index
        lo, hi = cut.CellData[field].GetRange(index)
        hi = max(abs(lo), abs(hi)) / 5
        lo = -hi
        lut.ApplyPreset("Cool to Warm", True)
        title = f"{field} {comp.lower()}"
    elif ncomp > 1:
        ColorBy(shown, ("CELLS", field, "Magnitude"))
        lut.VectorMode = "Magnitude"
        lo, hi = cut.CellData[field].GetRange(-1)
        lut.ApplyPreset("Viridis (matplotlib)", True)
        title = f"{field} magnitude"
    else:
        ColorBy(shown, ("CELLS", field))
        lo, hi = cut.CellData[field].GetRange()
        lut.ApplyPreset("Cool to Warm", True)
        title = field
    shown.LookupTable = lut
    lut.RescaleTransferFunction(lo, hi if hi > lo else lo + 1.0)
    bar = GetScalarBar(lut, view)
    bar.Title = f"{title}   (z = {a.z:g}, t = {time:g})"
    bar.ComponentTitle = ""
    bar.TitleColor = bar.LabelColor = [0, 0, 0]
    bar.TitleFontSize = font
    bar.LabelFontSize = font
    bar.AddRangeLabels = 0
    bar.Orientation = "Horizontal"
    bar.WindowLocation = "Any Location"
    bar.TextPosition = "Ticks left/bottom, annotations right/top"
    bar.Position = [0.2, 0.2]
    bar.ScalarBarLength = 0.6
    bar.ScalarBarThickness = font
    bar.Visibility = 1
    Render(view)  # the first render resets the camera: set ours after it
    view.CameraParallelProjection = 1
    view.CameraParallelScale = world_h / 2
    centre = [(sb[0] + sb[1]) / 2, sb[3] + margin - world_h / 2, a.z]
    view.CameraFocalPoint = centre
    view.CameraPosition = [centre[0], centre[1], a.z + 10 * max(width, height)]
    view.CameraViewUp = [0, 1, 0]
    Render(view)
    out = a.output if i == 0 else f"{os.path.splitext(a.output)[0]}_{field}{comp and '_' + comp.lower()}.png"
    SaveScreenshot(out, view, ImageResolution=pixels)
    bar.Visibility = 0
    written.append(f"{out} ({title} over [{lo:.4g}, {hi:.4g}])")
print(f"{path} (t = {time:g}), slice z = {a.z:g}: wrote " + "; ".join(written))
