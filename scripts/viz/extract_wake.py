#!/usr/bin/env python3
"""Resample a cylinder LES frame (the solver's .vtu, inline binary, zlib or uncompressed) onto
regular grids for the pictures: the near wake in 3D (q_criterion, velocity x, vorticity z; float16)
and the mid-span plane (vorticity z), plus the span-averaged mean streamwise velocity on the
centre line (the recirculation length). Inverse-distance weights of the 4 nearest cell centroids.
  extract_wake.py FRAME.vtu OUT.npz"""
import base64, re, sys, zlib
import numpy as np
from scipy.spatial import cKDTree

text = open(sys.argv[1], "rb").read()
compressed = b"vtkZLibDataCompressor" in text[:400]
DT = {"Float64": np.float64, "Float32": np.float32, "UInt64": np.uint64, "Int64": np.int64, "UInt8": np.uint8, "Int32": np.int32}

def arrays():
    for m in re.finditer(rb'<DataArray type="(\w+)" Name="(\w+)"[^>]*>([^<]*)</DataArray>', text):
        kind, name, body = m.group(1).decode(), m.group(2).decode(), m.group(3).strip()
        if compressed:
            n = int(np.frombuffer(base64.b64decode(body[:16])[:8], np.uint64)[0])
            hl = 4 * ((8 * (3 + n) + 2) // 3)
            head = np.frombuffer(base64.b64decode(body[:hl]), np.uint64)
            data, raw, pos = base64.b64decode(body[hl:]), [], 0
            for c in head[3:3 + n]:
                raw.append(zlib.decompress(data[pos:pos + int(c)])); pos += int(c)
            buf = b"".join(raw)
        else:
            b = base64.b64decode(body); buf = b[8:8 + int(np.frombuffer(b[:8], np.uint64)[0])]
        yield name, np.frombuffer(buf, DT[kind])

A = dict(arrays())
pts = A["Points"].reshape(-1, 3)
conn = A["connectivity"].astype(np.int64).reshape(-1, 4)
cent = pts[conn].mean(axis=1)
ncell = len(cent)
print("cells", ncell, "fields", sorted(A))
tree = cKDTree(cent)

def sample(q, fields):
    d, i = tree.query(q, k=4, workers=-1)
    w = 1.0 / np.maximum(d, 1e-9); w /= w.sum(axis=1, keepdims=True)
    return [(f[i] * w).sum(axis=1) for f in fields]

vel = A["velocity"].reshape(-1, 3); vort = A["vorticity"].reshape(-1, 3)
zmax = pts[:, 2].max()
h = 0.05
x = np.arange(-1.0, 11.0 + 1e-9, h); y = np.arange(-3.0, 3.0 + 1e-9, h); z = np.arange(0.0, zmax + 1e-9, h)
X, Y, Z = np.meshgrid(x, y, z, indexing="ij")
q = np.stack([X.ravel(), Y.ravel(), Z.ravel()], axis=1)
qc, ux, wz = sample(q, [A["q_criterion"], vel[:, 0], vort[:, 2]])
inside = (X.ravel() ** 2 + Y.ravel() ** 2) < 0.25
qc[inside] = -1e3; ux[inside] = 0; wz[inside] = 0
sh = X.shape
# The mid-span plane, finer.
xs = np.arange(-2.0, 15.0 + 1e-9, 0.02); ys = np.arange(-4.0, 4.0 + 1e-9, 0.02)
XS, YS = np.meshgrid(xs, ys, indexing="ij")
(wz2,) = sample(np.stack([XS.ravel(), YS.ravel(), np.full(XS.size, 0.5 * zmax)], axis=1), [vort[:, 2]])
wz2[(XS.ravel() ** 2 + YS.ravel() ** 2) < 0.25] = np.nan
out = dict(x=x, y=y, z=z, q=qc.reshape(sh).astype(np.float16), ux=ux.reshape(sh).astype(np.float16),
           wz=wz.reshape(sh).astype(np.float16), xs=xs, ys=ys, wz_mid=wz2.reshape(XS.shape).astype(np.float16))
if "velocity_mean" in A:
    um = A["velocity_mean"].reshape(-1, 3)[:, 0]
    xl = np.arange(0.5, 8.0 + 1e-9, 0.005); zl = np.linspace(0.02 * zmax, 0.98 * zmax, 32)
    XL, ZL = np.meshgrid(xl, zl, indexing="ij")
    (ul,) = sample(np.stack([XL.ravel(), np.zeros(XL.size), ZL.ravel()], axis=1), [um])
    line = ul.reshape(XL.shape).mean(axis=1)
    cross = np.nonzero((line[:-1] < 0) & (line[1:] >= 0))[0]
    lr = None
    if len(cross):
        k = cross[0]; xc = xl[k] - line[k] * (xl[k + 1] - xl[k]) / (line[k + 1] - line[k]); lr = xc - 0.5
    print("span-averaged centre line: min u_mean %.4f at x = %.3f; recirculation length L/D %s" % (line.min(), xl[line.argmin()], lr))
    out.update(xl=xl, u_centre=line)
np.savez_compressed(sys.argv[2], **out)
print("grid", sh, "wrote", sys.argv[2])
