"""Render the density of a Rayleigh-Taylor run (euler-rt-2d, or the vertical mid-plane of
euler-rt-3d) at several times, side by side in one ParaView view: the same colour range
(viridis, a colour bar labelled "density"), the time above each frame. Run with ParaView's
Python:

    xvfb-run -a pvbatch scripts/viz/render_rt.py OUT/euler-rt-2d.pvd -o docs/euler-rt-2d.png [--times 0 2 4 6]

Needs Debian's python3-paraview (and xvfb on a machine with no display).
"""
import argparse
import os
import xml.etree.ElementTree as ET

from paraview.simple import (ColorBy, CreateView, GetColorTransferFunction, GetScalarBar, Render,
                             SaveScreenshot, Show, Slice, Text, Transform, XMLImageDataReader)

ap = argparse.ArgumentParser()
ap.add_argument("pvd")
ap.add_argument("-o", "--output", default="rt.png")
ap.add_argument("--times", type=float, nargs="*", help="times to show (default: every frame)")
ap.add_argument("--height", type=int, default=800, help="image height in pixels")
a = ap.parse_args()

root = ET.parse(a.pvd).getroot()
here = os.path.dirname(a.pvd)
frames = [(float(d.get("timestep")), os.path.join(here, d.get("file"))) for d in root.iter("DataSet")]
frames = [f for f in frames if os.path.exists(f[1])]
if a.times:
    frames = [min(frames, key=lambda f: abs(f[0] - t)) for t in a.times]

view = CreateView("RenderView")
view.OrientationAxesVisibility = 0
view.Background = [1, 1, 1]
if hasattr(view, "UseColorPaletteForBackground"):
    view.UseColorPaletteForBackground = 0
lut = GetColorTransferFunction("density")
lut.ApplyPreset("Viridis (matplotlib)", True)
lo, hi, width, height = float("inf"), float("-inf"), 0.0, 0.0
labels, moved_all = [], []
for i, (t, path) in enumerate(frames):
    src = XMLImageDataReader(FileName=[path], CellArrayStatus=["density"])
    src.UpdatePipeline()
    r = src.CellData["density"].GetRange()
    lo, hi = min(lo, r[0]), max(hi, r[1])
    b = src.GetDataInformation().GetBounds()
    if b[5] - b[4] > 0:  # 3D: the vertical plane through the centre, turned to face the camera
        s = Slice(Input=src)
        s.SliceType.Normal = [0, 1, 0]
        s.SliceType.Origin = [(b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2]
        src = Transform(Input=s)
        src.Transform.Rotate = [-90, 0, 0]  # z up
        width, height = b[1] - b[0], b[5] - b[4]
    else:
        width, height = b[1] - b[0], b[3] - b[2]
    moved = Transform(Input=src)
    moved.Transform.Translate = [i * 1.15 * width, 0, 0]
    moved.UpdatePipeline()
    moved_all.append(moved)
    d = Show(moved, view)
    d.SetRepresentationType("Surface")
    ColorBy(d, ("CELLS", "density"))
    d.LookupTable = lut
    label = Text(Text=f"t = {t:g}")
    ld = Show(label, view)
    ld.Color = [0, 0, 0]
    ld.FontSize = 9
    ld.WindowLocation = "Any Location"
    labels.append(ld)

lut.RescaleTransferFunction(lo, hi)
# The frames' world box; the view adds a margin on the left, room for the colour bar on the
# right and 8 % on top for the times.
boxes = [m.GetDataInformation().GetBounds() for m in moved_all]
x0, x1 = min(b[0] for b in boxes), max(b[1] for b in boxes)
y0, y1 = min(b[2] for b in boxes), max(b[3] for b in boxes)
margin, room = 0.1 * width, 1.4 * width
left = x0 - margin
world_w, world_h = (x1 - x0) + margin + room, 1.16 * (y1 - y0)
Render(view)  # the first render resets the camera: set ours after it
view.CameraParallelProjection = 1
view.CameraParallelScale = world_h / 2
centre = [left + world_w / 2, (y0 + y1) / 2 + 0.04 * (y1 - y0), 0.0]
view.CameraFocalPoint = centre
view.CameraPosition = [centre[0], centre[1], 10 * world_h]
view.CameraViewUp = [0, 1, 0]
for ld, b in zip(labels, boxes):
    ld.Position = [((b[0] + b[1]) / 2 - left) / world_w - 0.035, 0.93]
bar = GetScalarBar(lut, view)
bar.Title = "density"
bar.ComponentTitle = ""
bar.TitleColor = bar.LabelColor = [0, 0, 0]
bar.TitleFontSize = 9
bar.LabelFontSize = 8
bar.WindowLocation = "Any Location"
bar.Position = [(x1 + 0.15 * width - left) / world_w, 0.15]
bar.ScalarBarLength = 0.7
bar.Visibility = 1
pixels = [int(a.height * world_w / world_h), a.height]
Render(view)
SaveScreenshot(a.output, view, ImageResolution=pixels)
print(f"wrote {a.output}: density at t = {', '.join(f'{t:g}' for t, _ in frames)}")
