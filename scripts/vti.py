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
    root = ET.parse(path).getroot()
    image = root.find("ImageData")
    ext = [int(v) for v in image.get("WholeExtent").split()]
    cells = [max(ext[2 * a + 1] - ext[2 * a], 1) for a in range(3)]
    compressed = root.get("compressor") is not None
    for da in root.iter("DataArray"):
        if da.get("Name") != name:
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
            raw, at = b"", 0
            for size in header[3:]:
                raw += zlib.decompress(data[at:at + int(size)])
                at += int(size)
        return np.frombuffer(raw, dtype).reshape(-1, ncomp), cells
    sys.exit(f"no cell array {name} in {path}")
