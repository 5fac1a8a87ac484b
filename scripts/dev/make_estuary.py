"""The bathymetry and the tide of the `swe-estuary` template (numpy only):

    python3 scripts/dev/make_estuary.py    # meshes/estuary.asc, estuary-tide.csv, estuary-river.csv

A 20 km x 10 km basin on 200 x 100 cells of 100 m: a sea shelving from 12 m to 6 m deep along
the west side (x < 4 km), where the tide enters, then a funnel-shaped estuary narrowing eastward
from 6 km to 1 km, a channel in its middle third (its thalweg rising from -6 m to -2.5 m)
between tidal flats that rise from -1 m to +2.5 m at its rims (so they dry and wet twice a
tide, the tide ranging over -1.5 m to +1.5 m), a sand bank in the mouth that emerges at low
water, and land (above +2.5 m) all round.
The tide is M2 (period 12.42 h), amplitude 1.5 m about the reference level, every 15 minutes for
one week and a day; the river brings 20 m^3/s, and a flood of 80 m^3/s on day 3 (every 3 h).
The solver embeds the files (`builtin:estuary.asc`, `builtin:estuary-tide.csv`,
`builtin:estuary-river.csv`); rerun this script and rebuild after changing it.
"""
import os

import numpy as np

NX, NY, CELL = 200, 100, 100.0
SEA_END = 4000.0  # the coast, x in metres
M2 = 44712.0  # seconds
AMPLITUDE = 1.5  # metres
BANK_TOP = 2.5  # elevation of the estuary's rims and the lowest land


def centreline(x):
    """The estuary's axis (y of its thalweg), meandering gently."""
    return 5000.0 + 500.0 * np.sin(2 * np.pi * (x - SEA_END) / 16000.0)


def elevation():
    x = (np.arange(NX) + 0.5) * CELL
    y = (np.arange(NY) + 0.5) * CELL
    X, Y = np.meshgrid(x, y)  # rows from the south
    sea = -12.0 + 6.0 * X / SEA_END
    s = np.clip((X - SEA_END) / (NX * CELL - SEA_END), 0.0, 1.0)  # 0 at the coast, 1 at the east edge
    width = 600.0 + 5400.0 * np.exp(-2.5 * s)  # the funnel
    thalweg = -6.0 + 3.5 * s
    off = np.abs(Y - centreline(X)) / (0.5 * width)  # 0 on the axis, 1 on the rims
    # A channel in the middle third, then tidal flats rising linearly from -1 m to the rims.
    channel = thalweg + (-1.0 - thalweg) * (off / 0.35) ** 2
    flats = -1.0 + (BANK_TOP + 1.0) * (off - 0.35) / 0.65
    estuary = np.where(off < 0.35, channel, flats)
    land = BANK_TOP + 0.002 * (np.abs(Y - centreline(X)) - 0.5 * width)
    z = np.where(off <= 1.0, estuary, land)
    z = np.where(X < SEA_END, sea, z)
    # A sand bank in the mouth: its crest at +0.5 m, dry below half tide.
    r2 = ((X - 5500.0) ** 2 + (Y - 4000.0) ** 2) / 700.0**2
    z = np.where(X > SEA_END, np.maximum(z, 0.5 - 5.5 * r2), z)
    return np.round(z, 2)


def write_asc(path, z):
    with open(path, "w") as f:
        f.write(f"ncols {NX}\nnrows {NY}\nxllcorner 0\nyllcorner 0\ncellsize {CELL:g}\nNODATA_value -9999\n")
        for row in z[::-1]:  # the northernmost row first
            f.write(" ".join(f"{v:g}" for v in row) + "\n")


def write_river(path):
    t = np.arange(0.0, 8 * 86400.0 + 1.0, 3 * 3600.0)
    q = 20.0 + 60.0 * np.exp(-(((t - 3 * 86400.0) / 86400.0) ** 2))
    with open(path, "w") as f:
        f.write("# the river of swe-estuary: 20 m^3/s and a flood of 80 m^3/s on day 3 (scripts/dev/make_estuary.py)\n")
        f.write("time,discharge\n")
        for a, b in zip(t, q):
            f.write(f"{a:g},{b:.3f}\n")


def write_tide(path):
    t = np.arange(0.0, 8 * 86400.0 + 1.0, 900.0)
    eta = AMPLITUDE * np.sin(2 * np.pi * t / M2)
    with open(path, "w") as f:
        f.write("# M2 tide at the sea boundary of swe-estuary (scripts/dev/make_estuary.py)\n")
        f.write("time,level\n")
        for a, b in zip(t, eta):
            f.write(f"{a:g},{b:.4f}\n")


if __name__ == "__main__":
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "meshes")
    z = elevation()
    write_asc(os.path.join(root, "estuary.asc"), z)
    write_tide(os.path.join(root, "estuary-tide.csv"))
    write_river(os.path.join(root, "estuary-river.csv"))
    wet = lambda level: int((z < level).sum())
    print(f"estuary.asc: {NX} x {NY}, z in [{z.min():.2f}, {z.max():.2f}] m; wet cells at -1.5/0/+1.5 m: "
          f"{wet(-1.5)}, {wet(0.0)}, {wet(1.5)}")
