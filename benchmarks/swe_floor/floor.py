#!/usr/bin/env python3
"""Time floor.cu's lower bound on the shallow-water step on the GPU.

The target it is set against: the paper's one-week run (1,679,708 steps at 1000^2) in 60 s.

The state is the benchmark's tank at its start (`solver bench shallow-water`: the swe-column
template, water at rest 1 m deep, a disc of radius 1 m raised by 1 m and polluted), the most
favourable state: the divisions with a zero numerator are skipped (swe.cu, `quotient`). The
kernel's input stays the same launch after launch (its output is not a solution).

    python3 benchmarks/swe_floor/floor.py --sizes 1000,8000 [--math exact|fma|fast] [--json out.json]

--math: exact (the solver's swe.cu options, --fmad=false: CPU and CUDA identical to the bit),
fma (contraction on: what FMA on both backends could at best give), fast (--use_fast_math,
which the family refuses: it changes wet/dry decisions).
"""
import argparse
import json
import os

import cupy as cp
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "..", "..", "kernels", "cuda")
WEEK_STEPS = 1_679_708  # the steps of the paper's one-week run at 1000^2
BUDGET = 60.0 / WEEK_STEPS  # seconds a step for the week in 60 s
STEP_BYTES = 9 * 4  # a cell's bytes a step, as `solver bench` counts them: reads h, q, hC, bed, writes 4


def copy_bandwidth(nbytes=1 << 31):
    """The device's copy bandwidth (bytes read and written a second), best of five copies."""
    a = cp.ones(nbytes // 4, cp.float32)
    b = cp.empty_like(a)
    best = float("inf")
    for _ in range(5):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        b[...] = a
        stop.record()
        stop.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(start, stop) * 1e-3)
    return 2 * nbytes / best


def column_state(n):
    """(h, q_x, q_y, hC) and the bed of the swe-column tank on n x n cells of 10 m x 10 m."""
    x = (np.arange(n) + 0.5) * 10.0 / n
    xx, yy = np.meshgrid(x, x)
    disc = (xx - 5.0) ** 2 + (yy - 5.0) ** 2 < 1.0
    h = np.where(disc, 2.0, 1.0).astype(np.float32)
    w = np.stack([h, np.zeros_like(h), np.zeros_like(h), np.where(disc, h, 0.0).astype(np.float32)])
    return w.reshape(4, -1), np.zeros(n * n, np.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,8000")
    ap.add_argument("--launches", type=int, default=400)
    ap.add_argument("--math", choices=["exact", "fma", "fast"], default="exact")
    ap.add_argument("--json")
    args = ap.parse_args()
    source = open(os.path.join(HERE, "floor.cu")).read()
    math = {"exact": ("--fmad=false",), "fma": ("--fmad=true",), "fast": ("--use_fast_math",)}[args.math]
    opts = ("-DREAL=float", "-std=c++17", "-I" + os.path.abspath(KERNELS)) + math
    kernel = cp.RawModule(code=source, options=opts).get_function("swe_floor")
    rows = []
    copy_bw = copy_bandwidth()
    for n in [int(s) for s in args.sizes.split(",")]:
        w_host, bed_host = column_state(n)
        w, bed = cp.asarray(w_host), cp.asarray(bed_host)
        out = cp.empty_like(w)
        rate, bounds = cp.zeros(1, cp.uint64), cp.zeros(2, cp.uint64)
        h = 10.0 / n
        g, dry = 9.81, 1e-5
        dt = 0.9 / (2 * (np.sqrt(g * 2.0)) / h)
        a = (w, bed, out, np.int32(n), np.int32(n), np.float32(g), np.float32(dry), np.float32(1e-3 * 2.0),
             np.float64(g), np.float64(dry), np.float64(h), np.float64(h), np.float64(dt), rate, bounds)
        grid, block = ((n + 31) // 32, (n + 7) // 8), (256,)
        for _ in range(20):
            kernel(grid, block, a)
        cp.cuda.Device().synchronize()
        best = float("inf")
        for _ in range(3):
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            for _ in range(args.launches):
                kernel(grid, block, a)
            stop.record()
            stop.synchronize()
            best = min(best, cp.cuda.get_elapsed_time(start, stop) * 1e-3 / args.launches)
        finite = bool(cp.isfinite(out).all())
        fraction = STEP_BYTES * n * n / best / copy_bw
        row = {"n": n, "math": args.math, "floor_s_per_step": best, "cell_updates_per_s": n * n / best,
               "fraction_of_copy_bandwidth": fraction, "copy_bandwidth": copy_bw, "output_finite": finite}
        line = f"floor ({args.math}) {n}^2 f32: {best:.4e} s a step, {n * n / best:.3e} cell-updates/s, {100 * fraction:.1f} % of copy"
        if n == 1000:
            row["week_s_at_floor"] = best * WEEK_STEPS
            row["budget_s_per_step"] = BUDGET
            line += f"; the week at this floor {best * WEEK_STEPS:.1f} s (target 60 s: {BUDGET:.4e} s a step)"
        rows.append(row)
        print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
