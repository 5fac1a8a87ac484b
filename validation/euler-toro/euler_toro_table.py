#!/usr/bin/env python3
"""Toro's tests 1-5 with every limiter at 100, 200, 400, 800 cells on the CPU: the relative L1
error of the density against the exact Riemann solution, and the ratio between resolutions,
as a Markdown table (VALIDATION.md).
Usage: validation/euler-toro/euler_toro_table.py [--solver BIN] [--scheme muscl-hancock|plm-rk3]
       [--riemann exact|hllc|hll] [--limiters first-order,minbee,van-leer,superbee,minmod]"""
import argparse
import os
import json
import subprocess
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--solver", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release", "solver"))
ap.add_argument("--scheme", default="muscl-hancock")
ap.add_argument("--riemann", default="exact")
ap.add_argument("--limiters", default="first-order,minbee,van-leer,superbee,minmod")
args = ap.parse_args()
solver = args.solver
sizes = [100, 200, 400, 800]
print("| test | limiter | " + " | ".join(f"L1 at {n}" for n in sizes) + " | ratios | min density |")
print("|---|---|" + "---|" * len(sizes) + "---|---|")
with tempfile.TemporaryDirectory() as d:
    for test in range(1, 6):
        case = f"{d}/t{test}.toml"
        with open(case, "w") as f:
            f.write(subprocess.run([solver, "cases", f"euler-toro-{test}"], capture_output=True, text=True, check=True).stdout)
        for limiter in args.limiters.split(","):
            errors, low = [], float("inf")
            for n in sizes:
                out = f"{d}/o-{test}-{limiter}-{n}"
                subprocess.run([solver, "run", case, "--backend", "cpu", "-q", "-o", out, "--set", f"grid.dims=[{n},1,1]",
                                "--set", f'euler.limiter="{limiter}"', "--set", f'euler.scheme="{args.scheme}"',
                                "--set", f'euler.riemann="{args.riemann}"'], check=True)
                s = json.load(open(f"{out}/summary.json"))
                errors.append(s["errors"]["l1"])
                low = min(low, s["final_min"])
            ratios = " ".join(f"{errors[i] / errors[i + 1]:.2f}" for i in range(len(errors) - 1))
            print(f"| {test} | {limiter} | " + " | ".join(f"{e:.3e}" for e in errors) + f" | {ratios} | {low:.4g} |")
