#!/usr/bin/env python3
"""The pyamg peer of `solver bench cg`'s AMG rows: smoothed aggregation as the
preconditioner of CG on the same matrix, on the CPU.

Reads a matrix and right-hand side that `solver bench cg --matrix-out DIR` wrote (NAME.csr,
format in cupy_cg.py) and, for each variant, builds `pyamg.smoothed_aggregation_solver` (timed:
the set-up) and solves from x = 0 to ||b - Ax|| <= tol ||b|| with CG acceleration (one V-cycle
per iteration, `ml.solve(accel="cg")`), printing levels, operator complexity, set-up seconds,
iterations and solve seconds. Variants:
  - "default": pyamg's defaults (symmetric strength theta 0, standard aggregation, Jacobi-smoothed
    prolongator omega 4/3, symmetric block Gauss-Seidel pre/post, coarsest by pinv below 10 rows);
  - "chebyshev": the same hierarchy with Chebyshev smoothing, as ours cycles on the device.

  pip install pyamg scipy
  python3 benchmarks/peers/pyamg_cg.py OUT/box119.csr [--tol 1e-8] [--variants default,chebyshev] [--json pyamg.json]
"""
import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cupy_cg import read_csr  # noqa: E402  (the same CSR64 reader as the CuPy peer)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("matrix")
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--maxiter", type=int, default=500)
    ap.add_argument("--variants", default="default,chebyshev")
    ap.add_argument("--json")
    args = ap.parse_args()
    try:
        import pyamg
        import scipy.sparse as sp
    except ImportError as e:
        sys.exit(f"pyamg_cg.py needs pyamg and scipy ({e}): pip install pyamg scipy")

    n, indptr, indices, data, b = read_csr(args.matrix)
    a = sp.csr_matrix((data, indices, indptr), shape=(n, n))
    print(f"{args.matrix}: {n} unknowns, {a.nnz} nonzeros; pyamg {pyamg.__version__}")
    variants = {
        "default": {},
        "chebyshev": dict(presmoother=("chebyshev", {"degree": 2}), postsmoother=("chebyshev", {"degree": 2})),
    }
    out = {"matrix": os.path.basename(args.matrix), "unknowns": n, "nnz": int(a.nnz), "tol": args.tol,
           "pyamg": pyamg.__version__, "rows": []}
    for name in args.variants.split(","):
        if name not in variants:
            sys.exit(f"--variants: unknown {name!r} (give {', '.join(variants)})")
        t = time.perf_counter()
        ml = pyamg.smoothed_aggregation_solver(a, **variants[name])
        setup = time.perf_counter() - t
        res = []
        t = time.perf_counter()
        x = ml.solve(b, x0=np.zeros(n), tol=args.tol, accel="cg", maxiter=args.maxiter, residuals=res)
        solve = time.perf_counter() - t
        its = len(res) - 1
        rel = float(np.linalg.norm(b - a @ x) / np.linalg.norm(b))
        row = {"variant": name, "levels": len(ml.levels), "rows": [int(l.A.shape[0]) for l in ml.levels],
               "operator_complexity": float(ml.operator_complexity()), "setup_seconds": setup,
               "iterations": its, "rel_residual": rel, "seconds_per_solve": solve}
        out["rows"].append(row)
        print(f"pyamg {name:10s} levels {row['rows']} op.cx {row['operator_complexity']:.2f} "
              f"setup {setup:.2f} s  {its} iterations to {rel:.1e}  solve {solve:.2f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
