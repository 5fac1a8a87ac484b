#!/usr/bin/env python3
"""The CuPy / cuSPARSE peer of `solver bench cg`, on the same matrix, on the same GPU.

Reads a matrix and right-hand side that `solver bench cg --matrix-out DIR` wrote (NAME.csr:
magic b"CSR64\\0\\0\\0", n and nnz as u64, indptr (n+1) i64, indices nnz i32, data nnz f64,
b n f64, little-endian) and times, in f64:
  - cuSPARSE SpMV (A @ x through cupyx.scipy.sparse.csr_matrix), best of --reps;
  - Jacobi-PCG the usual, unfused way: a hand loop of CuPy array operations (SpMV, two dots,
    three axpy-like updates, the diagonal scaling; the residual norm read back every
    iteration, as a plain implementation does), from x = 0 to ||b - Ax|| <= tol ||b||;
  - cupyx.scipy.sparse.linalg.cg with a Jacobi LinearOperator, the library routine (its
    iteration count from the callback), same tolerance.
Prints seconds per iteration for each and, with --json, writes them.

  python3 benchmarks/peers/cupy_cg.py OUT/box119.csr [--tol 1e-8] [--reps 3] [--json peer.json]
"""
import argparse
import json
import sys
import time

import numpy as np


def read_csr(path):
    with open(path, "rb") as f:
        magic = f.read(8)
        if magic != b"CSR64\0\0\0":
            sys.exit(f"{path}: not a CSR64 file (magic {magic!r}); write it with solver bench cg --matrix-out")
        n, nnz = np.frombuffer(f.read(16), dtype="<u8")
        n, nnz = int(n), int(nnz)
        indptr = np.fromfile(f, dtype="<i8", count=n + 1)
        indices = np.fromfile(f, dtype="<i4", count=nnz)
        data = np.fromfile(f, dtype="<f8", count=nnz)
        b = np.fromfile(f, dtype="<f8", count=n)
    if len(b) != n:
        sys.exit(f"{path}: truncated (expected {n} values of b, found {len(b)})")
    return n, indptr, indices, data, b


def timed(cp, fn):
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    out = fn()
    cp.cuda.Device().synchronize()
    return time.perf_counter() - t, out


def hand_pcg(cp, a, b, dinv, tol, maxiter):
    """Jacobi-PCG, unfused: each line one or more CuPy kernels; host reads ||r|| each iteration."""
    x = cp.zeros_like(b)
    r = b.copy()
    z = dinv * r
    p = z.copy()
    rz = r.dot(z)
    bnorm = float(cp.linalg.norm(b))
    it = 0
    while it < maxiter:
        q = a @ p
        alpha = rz / p.dot(q)
        x += alpha * p
        r -= alpha * q
        it += 1
        if float(cp.linalg.norm(r)) <= tol * bnorm:
            break
        z = dinv * r
        rz_new = r.dot(z)
        p = z + (rz_new / rz) * p
        rz = rz_new
    return x, it


def library_pcg(cp, csl, a, b, dinv, tol, maxiter):
    """cupyx.scipy.sparse.linalg.cg with a Jacobi LinearOperator."""
    n = b.shape[0]
    m = csl.LinearOperator((n, n), matvec=lambda v: dinv * v, dtype=cp.float64)
    count = [0]

    def cb(_xk):
        count[0] += 1

    try:
        x, info = csl.cg(a, b, M=m, rtol=tol, maxiter=maxiter, callback=cb)
    except TypeError:  # older CuPy: tol instead of rtol
        x, info = csl.cg(a, b, M=m, tol=tol, maxiter=maxiter, callback=cb)
    return x, count[0], info


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("matrix")
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--maxiter", type=int, default=50000)
    ap.add_argument("--json")
    args = ap.parse_args()
    try:
        import cupy as cp
        import cupyx.scipy.sparse as csp
        import cupyx.scipy.sparse.linalg as csl
    except ImportError as e:
        sys.exit(f"FAIL: CuPy is not importable here ({e})")
    n, indptr, indices, data, b_h = read_csr(args.matrix)
    a = csp.csr_matrix((cp.asarray(data), cp.asarray(indices), cp.asarray(indptr.astype(np.int32))), shape=(n, n))
    b = cp.asarray(b_h)
    dinv = 1.0 / a.diagonal()
    dev = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"].decode()
    print(f"cupy {cp.__version__} on {dev}: {args.matrix}: {n} unknowns, {len(data)} nonzeros")

    x = cp.ones(n)
    spmv = min(timed(cp, lambda: a @ x)[0] for _ in range(args.reps + 2))
    spmv_bytes = 12.0 * len(data) + 4.0 * (n + 1) + 16.0 * n
    print(f"cupy spmv (cuSPARSE): {spmv:.4e} s ({spmv_bytes / spmv / 1e9:.1f} GB/s of CSR values, indices, x, y)")

    rows = {"device": dev, "matrix": args.matrix, "unknowns": n, "nnz": int(len(data)), "spmv_seconds": spmv}
    for name, run in [
        ("hand", lambda: hand_pcg(cp, a, b, dinv, args.tol, args.maxiter)),
        ("cupyx.cg", lambda: library_pcg(cp, csl, a, b, dinv, args.tol, args.maxiter)[:2]),
    ]:
        best, its = float("inf"), 0
        for _ in range(args.reps + 1):  # the first warms up
            t, (xs, its) = timed(cp, run)
            best = min(best, t)
        res = float(cp.linalg.norm(b - a @ xs) / cp.linalg.norm(b))
        per = best / max(its, 1)
        print(f"cupy jacobi-pcg {name}: {its} iterations to {args.tol:g} (true rel. residual {res:.2e}), "
              f"{best:.4e} s/solve, {per:.4e} s/iteration")
        rows[name] = {"iterations": its, "seconds_per_solve": best, "seconds_per_iteration": per, "rel_residual": res}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
