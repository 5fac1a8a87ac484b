#!/usr/bin/env python3
"""Growth rate of the single Rayleigh-Taylor mode from a solver run's output (euler-rt-2d or
euler-rt-3d): for each frame of the .pvd series, the amplitude of the perturbation's horizontal
mode (wavenumber k = 2 pi / L of each horizontal axis) in the vertical velocity at the
interface (the two cell layers beside it), then a least-squares fit of that amplitude to
linear theory, a(t) = a0 cosh(sigma t) (the run starts with the interface flat and the
velocity perturbed: the growing and decaying modes in equal parts), over the linear phase
(amplitude from the start until the displacement a / sigma reaches `--max-kh` / k). Prints the
measured and the theoretical rate sqrt(A g k) and their ratio.

Needs numpy only (it reads the solver's VTI files itself: binary, zlib-compressed, UInt64
headers), so it runs on the device machine too.

Usage: rt_growth.py OUTPUT_DIR [--max-kh 0.3] [--gravity 0.1] [--densities 1 2] [--json]
"""
import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "viz"))
from vti import frames, read_cell_array  # noqa: E402



def mode_amplitude(path):
    v, dims = read_cell_array(path, "velocity")
    return mode_amplitude_of(v, dims), dims


def mode_amplitude_of(v, dims):
    """The perturbation's mode in the vertical velocity `v` (cells x components) at the
    interface of a grid of `dims` cells."""
    nx, ny, nz = dims
    ncomp = v.shape[1]
    three_d = nz > 1
    # Vertical axis: z in 3D, y in 2D (the templates' gravity).
    if three_d:
        vert = v[:, 2].reshape(nz, ny, nx)
        mid = nz // 2
        layer = 0.5 * (vert[mid - 1] + vert[mid])  # (ny, nx)
    else:
        vert = v[:, ncomp - 1 if ncomp == 2 else 1].reshape(ny, nx)
        mid = ny // 2
        layer = 0.5 * (vert[mid - 1] + vert[mid])[None, :]  # (1, nx)
    hy, hx = layer.shape
    x = (np.arange(hx) + 0.5) / hx - 0.5  # centred, in units of the length
    y = (np.arange(hy) + 0.5) / hy - 0.5
    cx = np.cos(2 * math.pi * x)[None, :]
    cy = np.cos(2 * math.pi * y)[:, None] if hy > 1 else np.ones((1, 1))
    # Projection on cos(kx x) (2D) or cos(kx x) cos(ky y) (3D), normalized to its amplitude.
    basis = cx * cy
    return float((layer * basis).sum() / (basis * basis).sum())


def fit_cosh(t, a):
    """sigma and a0 of a = a0 cosh(sigma t), least squares in log a (golden section in sigma)."""
    la = np.log(np.abs(a))

    def resid(s):
        lc = np.log(np.cosh(s * t))
        l0 = np.mean(la - lc)
        return float(np.sum((la - lc - l0) ** 2)), math.exp(l0)

    lo, hi = 0.01, 5.0
    g = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        m1, m2 = hi - g * (hi - lo), lo + g * (hi - lo)
        if resid(m1)[0] < resid(m2)[0]:
            hi = m2
        else:
            lo = m1
    s = 0.5 * (lo + hi)
    return s, resid(s)[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    add_options(ap)
    a = ap.parse_args()
    series = [(t, *mode_amplitude(p)) for t, p in frames(a.out)]
    t = np.array([s[0] for s in series])
    amp = np.array([s[1] for s in series])
    report(t, amp, tuple(series[0][2]), a)


def add_options(ap):
    """The options of the fit (shared with rt_midplane.py)."""
    ap.add_argument("--max-kh", type=float, default=0.3, help="end of the linear phase: k times the displacement")
    ap.add_argument("--gravity", type=float, default=0.1)
    ap.add_argument("--densities", type=float, nargs=2, default=[1.0, 2.0])
    ap.add_argument("--length", type=float, default=0.5, help="horizontal period L (k = 2 pi / L)")
    ap.add_argument("--json", action="store_true")


def report(t, amp, dims, a):
    """Fit the growth rate to the mode amplitudes `amp` at times `t` and print it (options `a`)."""
    three_d = dims[2] > 1
    k = 2 * math.pi / a.length * (math.sqrt(2) if three_d else 1.0)
    atwood = (a.densities[1] - a.densities[0]) / (a.densities[1] + a.densities[0])
    theory = math.sqrt(atwood * a.gravity * k)
    # The linear phase: the displacement amplitude ~ a / sigma below max_kh / k.
    linear = np.abs(amp) / theory < a.max_kh / k
    end = int(np.argmin(linear)) if not linear.all() else len(t)
    sel = slice(1, end)  # skip t = 0 (the start itself is the fit's a0)
    sigma, a0 = fit_cosh(t[sel], amp[sel])
    out = {
        "grid": list(dims),
        "k": k,
        "theory": theory,
        "measured": sigma,
        "ratio": sigma / theory,
        "fit_window": [float(t[sel][0]), float(t[sel][-1])],
        "frames": int(len(t[sel])),
        "amplitude": [[float(x), float(y)] for x, y in zip(t, amp)],
    }
    if a.json:
        print(json.dumps(out))
    else:
        for x, y in zip(t, amp):
            print(f"t {x:6.3f}  mode amplitude {y: .5e}")
        print(f"grid {dims}: growth rate {sigma:.4f} (fit over t {out['fit_window'][0]:.2f}..{out['fit_window'][1]:.2f}, "
              f"{out['frames']} frames), theory sqrt(A g k) = {theory:.4f}, ratio {sigma / theory:.4f}")


if __name__ == "__main__":
    main()
