#!/usr/bin/env python3
"""Render a field of a solver run on the middle plane, one band per output step, as a PNG
(like the paper's fig. 3: initial, forward, back). Each band is labelled with its time (the
.pvd's `timestep`); a colour bar under the bands gives the field's name, range and ticks.
Headless: resamples with VTK and colours and labels the image with numpy, without OpenGL, so it
runs on machines with no display.

The field may be point or cell data of .vti (ImageData) or .vtu (UnstructuredGrid) files; it is
looked up in point data first, then cell data. A field of several components (e.g. velocity) is
shown by its magnitude, labelled |velocity|. The colour range is the shown steps' min and max
unless --range is given; samples outside the mesh are grey. Colour maps: viridis (default),
cividis, coolwarm (diverging), or any matplotlib name if matplotlib is installed. Text uses PIL
with DejaVu Sans where python3-pil has it, else (or with --bitmap-font) a built-in 5x7 font.

Usage: scripts/viz/render_slice.py RUN_DIR/NAME.pvd [-o slice.png] [--field F] [--axis z]
       [--steps 0,30,60] [--width 1200] [--cmap viridis] [--range LO HI] [--bitmap-font]
Needs python3-vtk9 and python3-numpy (scripts/setup.sh installs them); use /usr/bin/python3 if
a virtualenv hides them.
"""
import argparse
import os
import xml.etree.ElementTree as ET

import numpy as np
import vtk
from vtk.util.numpy_support import numpy_to_vtk, vtk_to_numpy

# 17 evenly spaced colours of each map: matplotlib's viridis and cividis, Moreland's cool-warm.
COLOUR_MAPS = {
    "viridis": "440154 48186a 472d7b 424086 3b528b 33638d 2c728e 26828e 21918c 1f9f88 27ad81 3dbc74 "
    "5cc863 81d34d aadc32 d5e21a fde725",
    "cividis": "00224e 002e6a 1a386f 32436d 434e6c 535a6d 61656f 6f7073 7d7c78 8b8778 9a9376 aaa073 "
    "bbad6d ccba64 ddc858 efd748 fee838",
    "coolwarm": "3b4cc0 4d68d7 6282ea 779af7 8db0fe a3c2ff b8d0f9 ccd9ee dddddd ecd3c5 f5c4ad f7b194 "
    "f49a7b ec7f63 de604d cb3e38 b40426",
}
OUTSIDE = (128, 128, 128)  # samples the probe found in no cell
GAP = 4  # white rows between bands

# Classic 5x7 LCD font, ASCII 32..126: 5 column bytes per glyph, bit 0 the top row.
FONT_5X7 = bytes.fromhex(
    "000000000000005f00000007000700147f147f14242a7f2a12231308646236495522500005030000001c2241000041221c00"
    "14083e081408083e080800503000000808080808006060000020100804023e5149453e00427f400042615149462141454b31"
    "1814127f1027454545393c4a49493001710905033649494936064949291e0036360000005636000008142241001414141414"
    "00412214080201510906324979413e7e1111117e7f494949363e414141227f4141221c7f494949417f090909013e4149497a"
    "7f0808087f00417f41002040413f017f081422417f404040407f020c027f7f0408107f3e4141413e7f090909063e4151215e"
    "7f09192946464949493101017f01013f4040403f1f2040201f3f4038403f631408146307087008076151494543007f414100"
    "02040810200041417f0004020102044040404040000102040020545454787f484444383844444420384444487f3854545418"
    "087e0901020c5252523e7f0804047800447d40002040443d007f1028440000417f40007c041804787c080404783844444438"
    "7c14141408081414187c7c080404084854545420043f4440203c4040207c1c2040201c3c4030403c44281028440c5050503c"
    "4464544c44000836410000007f000000413608001008081008"
)


def datasets(pvd):
    """(time, file) of each DataSet of a .pvd, in order."""
    root = ET.parse(pvd).getroot()
    base = os.path.dirname(os.path.abspath(pvd))
    sets = enumerate(root.iter("DataSet"))
    return [(float(d.get("timestep", i)), os.path.join(base, d.get("file"))) for i, d in sets]


def read(path):
    r = vtk.vtkXMLUnstructuredGridReader() if path.endswith(".vtu") else vtk.vtkXMLImageDataReader()
    r.SetFileName(path)
    r.Update()
    return r.GetOutput()


def with_only(data, field, path):
    """A copy of `data` carrying only `field` (its point data if there, else its cell data),
    and the field's number of components."""
    names = []
    for kind in ("Point", "Cell"):
        attrs = getattr(data, f"Get{kind}Data")()
        arr = attrs.GetArray(field)
        if arr is not None:
            copy = data.NewInstance()
            copy.CopyStructure(data)
            getattr(copy, f"Get{kind}Data")().AddArray(arr)
            return copy, arr.GetNumberOfComponents()
        names += [attrs.GetArrayName(i) for i in range(attrs.GetNumberOfArrays())]
    raise SystemExit(f"no field '{field}' in {path} (it has: {', '.join(names) or 'none'})")


def slice_values(data, field, axis, width, path):
    """The field (its magnitude if a vector) on a regular grid in the middle plane normal to
    `axis`, as rows top (high second coordinate) to bottom; NaN outside the mesh. Also the
    field's number of components."""
    source, ncomp = with_only(data, field, path)
    b = data.GetBounds()
    k = "xyz".index(axis)
    u, v = [i for i in range(3) if i != k]
    lo = [b[2 * i] for i in range(3)]
    hi = [b[2 * i + 1] for i in range(3)]
    nu = width
    nv = max(2, int(round(width * (hi[v] - lo[v]) / (hi[u] - lo[u]))))
    grid = vtk.vtkImageData()
    dims, spacing, origin = [1, 1, 1], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]
    dims[u], dims[v] = nu, nv
    for i, n in ((u, nu), (v, nv)):  # samples at the pixels' centres
        spacing[i] = (hi[i] - lo[i]) / n
        origin[i] = lo[i] + 0.5 * spacing[i]
    origin[k] = 0.5 * (lo[k] + hi[k])
    grid.SetDimensions(dims)
    grid.SetSpacing(spacing)
    grid.SetOrigin(origin)
    # Point data is interpolated; cell data gives each sample the value of its cell. One thread,
    # so that a sample on a face (as on the middle plane of an even number of layers) always
    # gets the same one of its cells.
    vtk.vtkSMPTools.SetBackend("Sequential")
    probe = vtk.vtkProbeFilter()
    probe.SetInputData(grid)
    probe.SetSourceData(source)
    probe.Update()
    out = probe.GetOutput().GetPointData()
    values = vtk_to_numpy(out.GetArray(field)).astype(float)
    if values.ndim == 2:
        values = np.linalg.norm(values, axis=1) if values.shape[1] > 1 else values[:, 0]
    values[vtk_to_numpy(out.GetArray(probe.GetValidPointMaskArrayName())) == 0] = np.nan
    # The plane's points run u fastest, then v (the normal axis has one layer).
    return np.flipud(values.reshape(nv, nu)), ncomp


def colour_map(name):
    """A function from values in [0, 1] to uint8 RGB."""
    if name in COLOUR_MAPS:
        table = np.array([[int(c[i : i + 2], 16) for i in (0, 2, 4)] for c in COLOUR_MAPS[name].split()], float)
        knots = np.linspace(0.0, 1.0, len(table))
        return lambda t: np.stack([np.interp(t, knots, table[:, c]) for c in range(3)], -1).round().astype(np.uint8)
    try:
        import matplotlib

        cmap = matplotlib.colormaps[name]
        return lambda t: (cmap(t)[..., :3] * 255).round().astype(np.uint8)
    except (ImportError, KeyError):
        raise SystemExit(f"unknown colour map '{name}' (built in: {', '.join(COLOUR_MAPS)})")


def colour(values, lo, hi, cmap):
    t = np.clip((values - lo) / (hi - lo), 0.0, 1.0)
    rgb = cmap(np.nan_to_num(t))
    rgb[np.isnan(values)] = OUTSIDE
    return rgb


class BitmapFont:
    """The built-in 5x7 font, each pixel drawn as a scale x scale block."""

    def __init__(self, scale):
        self.scale, self.height = scale, 7 * scale

    def mask(self, text):
        columns = []
        for ch in text:
            code = ord(ch) - 32 if 32 <= ord(ch) < 127 else ord("?") - 32
            columns += list(FONT_5X7[5 * code : 5 * code + 5]) + [0]
        bits = (np.array(columns[:-1], np.uint8)[None, :] >> np.arange(7, dtype=np.uint8)[:, None]) & 1
        return np.kron(bits, np.ones((self.scale, self.scale))).reshape(self.height, -1)


class PilFont:
    """A TrueType font drawn by PIL, antialiased."""

    def __init__(self, font):
        ascent, descent = font.getmetrics()
        self.font, self.height = font, ascent + descent

    def mask(self, text):
        from PIL import Image, ImageDraw

        img = Image.new("L", (max(1, int(np.ceil(self.font.getlength(text)))), self.height))
        ImageDraw.Draw(img).text((0, 0), text, font=self.font, fill=255)
        return np.asarray(img, float) / 255.0


def text_font(scale, bitmap_only):
    if not bitmap_only:
        try:
            from PIL import ImageFont

            return PilFont(ImageFont.truetype("DejaVuSans.ttf", 8 * scale))
        except (ImportError, OSError):
            pass
    return BitmapFont(scale)


def blend(canvas, x, y, alpha, rgb):
    """Paint `rgb` into the canvas through `alpha` (a 2D array in [0, 1]) with its top left at x, y."""
    h, w = alpha.shape
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, canvas.shape[1]), min(y + h, canvas.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    a = alpha[y0 - y : y1 - y, x0 - x : x1 - x, None]
    region = canvas[y0:y1, x0:x1]
    region[...] = (region * (1.0 - a) + np.array(rgb, float) * a).round().astype(np.uint8)


def label(canvas, x, y, text, font):
    """White text on a darkened box, legible over any colours."""
    mask = font.mask(text)
    pad = max(2, font.height // 4)
    blend(canvas, x, y, np.full((mask.shape[0] + 2 * pad, mask.shape[1] + 2 * pad), 0.6), (0, 0, 0))
    blend(canvas, x + pad, y + pad, mask, (255, 255, 255))


def number(x):
    return f"{x + 0.0:.4g}"  # + 0.0 turns -0 into 0


def ticks(lo, hi):
    """lo, hi and the round numbers between them (3 to 6, steps of 1, 2 or 5), away from the ends."""
    span = hi - lo
    step = 10.0 ** np.floor(np.log10(span / 3))
    step *= next(m for m in (1, 2, 5, 10) if span / (m * step) <= 6)
    inner = np.arange(np.ceil(lo / step), np.floor(hi / step) + 1) * step
    return [lo, hi] + [t for t in inner if lo + 0.12 * span < t < hi - 0.12 * span]


def colour_bar(width, font, cmap, lo, hi, title):
    """A white strip holding the title, the colour bar from lo to hi and its tick labels."""
    h = font.height
    line = max(1, h // 10)
    bar_h, tick_h = 2 * h, h // 2
    x0, x1 = width // 8, width - width // 8
    bar_top = h // 2 + h + h // 2
    labels_top = bar_top + bar_h + tick_h + h // 4
    strip = np.full((labels_top + h + h // 2, width, 3), 255, np.uint8)
    mask = font.mask(title)
    blend(strip, (width - mask.shape[1]) // 2, h // 2, mask, (0, 0, 0))
    strip[bar_top : bar_top + bar_h, x0:x1] = cmap(np.linspace(0.0, 1.0, x1 - x0))[None]
    black = np.ones((bar_h + 2 * line, x1 - x0 + 2 * line))
    black[line:-line, line:-line] = 0.0
    blend(strip, x0 - line, bar_top - line, black, (0, 0, 0))
    taken = []  # the x ranges of labels drawn, so that none overlaps another
    for value in ticks(lo, hi):
        x = x0 + int(round((value - lo) / (hi - lo) * (x1 - x0 - 1)))
        mask = font.mask(number(value))
        left = min(max(x - mask.shape[1] // 2, 0), width - mask.shape[1])
        if any(left < b + h and a < left + mask.shape[1] + h for a, b in taken):
            continue
        taken.append((left, left + mask.shape[1]))
        blend(strip, x - line // 2, bar_top + bar_h, np.ones((tick_h, line)), (0, 0, 0))
        blend(strip, left, labels_top, mask, (0, 0, 0))
    return strip


def write_png(canvas, path):
    """Write an RGB uint8 array (top row first) with VTK's PNG writer."""
    img = vtk.vtkImageData()
    img.SetDimensions(canvas.shape[1], canvas.shape[0], 1)
    img.GetPointData().SetScalars(numpy_to_vtk(np.ascontiguousarray(np.flipud(canvas)).reshape(-1, 3), deep=True))
    writer = vtk.vtkPNGWriter()
    writer.SetFileName(path)
    writer.SetInputData(img)
    writer.Write()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pvd")
    ap.add_argument("-o", "--output", default="slice.png")
    ap.add_argument("--field", default="F")
    ap.add_argument("--axis", default="z", choices=["x", "y", "z"])
    ap.add_argument("--steps", help="output indices in the series to show (default: all)")
    ap.add_argument("--width", type=int, default=1200)
    ap.add_argument("--cmap", default="viridis", help=f"colour map: {', '.join(COLOUR_MAPS)} (default viridis)")
    ap.add_argument("--range", type=float, nargs=2, metavar=("LO", "HI"), help="colour range (default: the data's)")
    ap.add_argument("--bitmap-font", action="store_true", help="use the built-in font even where PIL is available")
    args = ap.parse_args()
    series = datasets(args.pvd)
    if args.steps:
        series = [series[int(s)] for s in args.steps.split(",")]
    cmap = colour_map(args.cmap)
    font = text_font(max(2, round(args.width / 400)), args.bitmap_font)
    slices = [(t, *slice_values(read(path), args.field, args.axis, args.width, path)) for t, path in series]
    if args.range:
        lo, hi = args.range
    else:
        finite = np.concatenate([v[np.isfinite(v)] for _, v, _ in slices])
        lo, hi = (finite.min(), finite.max()) if finite.size else (0.0, 1.0)
        if hi <= lo:  # a constant field
            lo, hi = lo - 0.5 * max(abs(lo), 1.0), hi + 0.5 * max(abs(hi), 1.0)
    parts = []
    for t, values, _ in slices:
        band = colour(values, lo, hi, cmap)
        label(band, font.height // 2, font.height // 2, f"t = {number(t)}", font)
        parts += [band, np.full((GAP, args.width, 3), 255, np.uint8)]
    title = f"|{args.field}|" if slices[0][2] > 1 else args.field
    parts.append(colour_bar(args.width, font, cmap, lo, hi, title))
    write_png(np.concatenate(parts), args.output)
    print(f"wrote {args.output}: {len(series)} bands (top: first step) of '{title}' on the middle {args.axis} plane, "
          f"{args.cmap} over [{number(lo)}, {number(hi)}]")


if __name__ == "__main__":
    main()
