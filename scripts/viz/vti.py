"""The solver's VTK image files read with numpy alone (binary, zlib-compressed, UInt64 headers),
so that analysis scripts run on the device machine too: the frames of a .pvd series and a cell
array of a .vti file."""
import base64
import glob
import os
import sys
import xml.etree.ElementTree as ET
import zlib

import numpy as np


def frames(out_dir):
    pvd = glob.glob(os.path.join(out_dir, "*.pvd"))
    if not pvd:
        sys.exit(f"no .pvd in {out_dir}")
    root = ET.parse(pvd[0]).getroot()
    for ds in root.iter("DataSet"):
        yield float(ds.get("timestep")), os.path.join(out_dir, ds.get("file"))


def read_cell_array(path, name):
    """A cell-data array of a VTI file as the solver writes it, and the cells per axis."""
    arrays, cells = read_cell_arrays(path, [name])
    return arrays[name], cells


def read_cell_arrays(path, names):
    """Several cell-data arrays of one VTI file (read once: a frame of a large grid is GBs),
    by name, and the cells per axis."""
    root = ET.parse(path).getroot()
    image = root.find("ImageData")
    ext = [int(v) for v in image.get("WholeExtent").split()]
    cells = [max(ext[2 * a + 1] - ext[2 * a], 1) for a in range(3)]
    compressed = root.get("compressor") is not None
    arrays = {}
    for da in root.iter("DataArray"):
        if da.get("Name") not in names:
            continue
        text = da.text.strip()
        dtype = {"Float64": "<f8", "Float32": "<f4"}[da.get("type")]
        ncomp = int(da.get("NumberOfComponents", "1"))
        if not compressed:
            raw = base64.b64decode(text)[8:]
        else:
            nblocks = int(np.frombuffer(base64.b64decode(text[:12])[:8], "<u8")[0])
            hlen = 8 * (3 + nblocks)
            hchars = 4 * ((hlen + 2) // 3)
            header = np.frombuffer(base64.b64decode(text[:hchars])[:hlen], "<u8")
            data = base64.b64decode(text[hchars:])
            parts, at = [], 0
            for size in header[3:]:
                parts.append(zlib.decompress(data[at:at + int(size)]))
                at += int(size)
            raw = b"".join(parts)
        arrays[da.get("Name")] = np.frombuffer(raw, dtype).reshape(-1, ncomp)
    missing = [n for n in names if n not in arrays]
    if missing:
        sys.exit(f"no cell array {', '.join(missing)} in {path}")
    return arrays, cells
