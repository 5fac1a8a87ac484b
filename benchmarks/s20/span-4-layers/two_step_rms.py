#!/usr/bin/env python3
"""The step-to-step oscillation (rms of (x[k-1] - 2 x[k] + x[k+1]) / 4) of cd and cl in windows
of steps, before (51b49a3) and after the mid-step pressure, on the same 4-layer span (CPU)."""
import csv, gzip, os
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))

def load(name):
    with gzip.open(os.path.join(here, name), "rt") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    d = np.array([[float(x) for x in r] for r in rows[1:] if len(r) == len(head)])
    return d[:, head.index("cd")], d[:, head.index("cl")]

def rms(x, a, b):
    y = x[a:b]
    return np.sqrt(np.mean(((y[:-2] - 2 * y[1:-1] + y[2:]) / 4) ** 2))

old, new = load("forces-before.csv.gz"), load("forces-after.csv.gz")
print("steps | before: cd | cl | after: cd | cl")
for a, b in [(1, 50), (50, 100), (100, 150), (150, 195)]:
    print(f"{a}-{b} | {rms(old[0], a, b):.2e} | {rms(old[1], a, b):.2e} | {rms(new[0], a, b):.2e} | {rms(new[1], a, b):.2e}")
