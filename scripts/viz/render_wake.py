"""Render a cylinder LES's wake from scripts/viz/extract_wake.py's resampled frame (run with
scripts/viz/pvbatch.sh): iso-surfaces of the Q-criterion coloured by the streamwise velocity,
seen obliquely from above and downstream.
  scripts/viz/pvbatch.sh scripts/viz/render_wake.py WAKE.npz OUT.png [Q_LEVEL] [TITLE]"""
import sys
import numpy as np
from paraview.simple import *  # noqa: F401,F403
from vtkmodules.vtkCommonDataModel import vtkImageData
from vtkmodules.util.numpy_support import numpy_to_vtk

d = np.load(sys.argv[1])
out, level = sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
title = sys.argv[4] if len(sys.argv) > 4 else ""
x, y, z = d["x"], d["y"], d["z"]
img = vtkImageData()
img.SetDimensions(len(x), len(y), len(z))
img.SetOrigin(x[0], y[0], z[0])
img.SetSpacing(x[1] - x[0], y[1] - y[0], z[1] - z[0])
X, Y = np.meshgrid(x, y, indexing="ij")
near = (X**2 + Y**2 < 0.62**2)[:, :, None]  # the resampling's wall sheet (cell values, not the flow)
fields = {"q": np.where(near, -1.0, d["q"].astype(np.float32)), "ux": d["ux"]}
for name in ("q", "ux"):
    # The grid is (x, y, z) in C order; VTK's points run x fastest.
    a = numpy_to_vtk(np.ascontiguousarray(fields[name].astype(np.float32).transpose(2, 1, 0)).ravel(), deep=1)
    a.SetName(name)
    img.GetPointData().AddArray(a)
src = TrivialProducer()
src.GetClientSideObject().SetOutput(img)
contour = Contour(Input=src, ContourBy=["POINTS", "q"], Isosurfaces=[level], ComputeScalars=0)

view = CreateView("RenderView")
view.ViewSize = [1600, 800]
view.Background = [1, 1, 1]
view.OrientationAxesVisibility = 0
try:
    view.UseColorPaletteForBackground = 0
except AttributeError:
    pass
disp = Show(contour, view)
ColorBy(disp, ("POINTS", "ux"))
lut = GetColorTransferFunction("ux")
lut.ApplyPreset("Cool to Warm", True)
lut.RescaleTransferFunction(-0.4, 1.4)
bar = GetScalarBar(lut, view)
bar.Title, bar.ComponentTitle = "u / U", ""
bar.TitleColor = bar.LabelColor = [0, 0, 0]
bar.Visibility = 1
cyl = Cylinder(Radius=0.5, Height=float(z[-1] - z[0]), Resolution=96, Center=[0, 0.5 * float(z[0] + z[-1]), 0])
cyl = Transform(Input=cyl)
cyl.Transform.Rotate = [90, 0, 0]

cd = Show(cyl, view)
cd.DiffuseColor = [0.55, 0.55, 0.55]
cd.ColorArrayName = [None, ""]
if title:
    t = Text(Text=title)
    td = Show(t, view)
    td.Color, td.FontSize, td.WindowLocation = [0, 0, 0], 14, "Upper Left Corner"
view.CameraPosition = [0.0, -7.0, 6.0]
view.CameraFocalPoint = [3.6, 0.0, 1.3]
view.CameraViewUp = [0.0, 0.0, 1.0]
view.CameraParallelProjection = 0
Render(view)
SaveScreenshot(out, view, ImageResolution=[1600, 800])
print("wrote", out)
