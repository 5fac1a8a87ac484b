#!/usr/bin/env python3
"""How small can the paper's step-test blur be at this resolution? A 1D lower bound.

The advect-step case asks for a relative volume-weighted L1 difference of at most 3.2 % after
30 + 30 semi-Lagrangian steps at CFL 3 on ~40,000 tetrahedra, with the step placed as the paper
fixes it (x length = half the y extent, middle half of y and z). This script runs the same test in
its most favourable form: one dimension (a Cartesian grid with the velocity along x blurs only
the two x faces of the box step, so its 3D error equals this 1D error), a uniform grid with
the tetrahedral mesh's sample density, exact-for-linears interpolation (linear, and cubic
Lagrange for comparison), BFECC with the same min/max limiter. Any tetrahedral mesh adds blur
at the four other faces and interpolation error across the flow, so its figure can only be
larger.

Usage: validation/advect-step/blur_bound.py [--cells 39980] [--extent 2.5 0.41 0.41] [--h 0.01112]
Needs numpy (python3-numpy).
"""
import argparse
import numpy as np


def advect(f0, shift, steps, scheme, interp):
    """30 forward + 30 backward steps of `shift` samples; returns the final field."""
    n = f0.size
    x = np.arange(n, dtype=float)

    def sample(f, d):
        xs = x - d
        i = np.clip(np.floor(xs).astype(int), 1, n - 3)
        a = xs - i
        if interp == "linear":
            v = (1 - a) * f[i] + a * f[i + 1]
        else:  # cubic Lagrange through i-1 .. i+2
            v = (-a * (1 - a) * (2 - a) / 6 * f[i - 1] + (1 + a) * (1 - a) * (2 - a) / 2 * f[i]
                 + (1 + a) * a * (2 - a) / 2 * f[i + 1] - (1 + a) * a * (1 - a) / 6 * f[i + 2])
        return v, np.minimum(f[i], f[i + 1]), np.maximum(f[i], f[i + 1])

    def step(f, d):
        v, lo, hi = sample(f, d)
        if scheme == "sl1":
            return v
        back, _, _ = sample(v, -d)
        corrected, _, _ = sample(f + 0.5 * (f - back), d)
        return np.clip(corrected, lo, hi)  # the limiter: no new extrema

    f = f0.copy()
    for s in range(2 * steps):
        f = step(f, shift if s < steps else -shift)
    return f


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cells", type=float, default=39980)
    ap.add_argument("--extent", type=float, nargs=3, default=[2.5, 0.41, 0.41])
    ap.add_argument("--cfl", type=float, default=3.0)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--h", type=float, help="the mesh's CFL length scale (summary.json: cfl_length_scale); "
                    "default: that of regular tetrahedra of the mean volume")
    args = ap.parse_args()
    lx, ly, lz = args.extent
    volume = lx * ly * lz
    mean_cell = volume / args.cells
    spacing = mean_cell ** (1 / 3)  # centroid spacing
    # h = mean volume / mean face area; for a regular tetrahedron of the same volume:
    edge = (6 * np.sqrt(2) * mean_cell) ** (1 / 3)
    h = args.h or mean_cell / (np.sqrt(3) / 4 * edge ** 2)
    width = 0.5 * ly / spacing
    print(f"{args.cells:.0f} cells in {lx} x {ly} x {lz}: centroid spacing {spacing:.4g}, h {h:.4g}")
    print(f"step length {0.5 * ly:.4g} = {width:.1f} samples; CFL {args.cfl} moves "
          f"{args.cfl * h / spacing:.2f} samples per step")
    print(f"{'scheme':<22} {'relative L1 (1D bound)':>24}")
    best = {}
    for frac in [0.0, 0.37]:  # where the step starts inside a sample interval
        n = int(width + 2 * args.steps * args.cfl * h / spacing + 40)
        xs = np.arange(n) + 0.5
        f0 = ((xs >= 20 + frac) & (xs < 20 + frac + width)).astype(float)
        for scheme, interp in [("sl1", "linear"), ("bfecc", "linear"), ("sl1", "cubic"), ("bfecc", "cubic")]:
            f = advect(f0, args.cfl * h / spacing, args.steps, scheme, interp)
            l1 = np.abs(f - f0).sum() / f0.sum()
            label = f"{scheme}+{interp}" + ("+limiter" if scheme == "bfecc" else "")
            print(f"{label:<22} {100 * l1:>23.1f}%   (step offset {frac})")
            best[label] = min(best.get(label, 1e9), l1)
    # L1 falls as 1/width (the blur zone keeps its width in samples), width as cells^(1/3).
    for label in ["bfecc+linear+limiter", "bfecc+cubic+limiter"]:
        k = best[label] / 0.032
        print(f"{label}: 3.2 % needs {k:.1f}x more samples across the step, i.e. ~{k ** 3:.0f}x the cells")


if __name__ == "__main__":
    main()
