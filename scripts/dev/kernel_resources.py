#!/usr/bin/env python3
"""Registers, local memory (spills) and the largest block of each kernel of a CUDA module in
kernels/cuda, compiled as the solver compiles it (NVRTC, -DREAL=float|double, the module's
options), on the device machine (CuPy). Usage: kernel_resources.py euler [--fmad=false ...]"""
import os
import re
import sys

import cupy as cp

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kernels", "cuda")
module = sys.argv[1] if len(sys.argv) > 1 else "euler"
extra = tuple(sys.argv[2:]) or ("--fmad=false",)
src = open(os.path.join(here, f"{module}.cu")).read()
names = re.findall(r'extern "C" __global__ void (?:__launch_bounds__\([^)]*\) )?(\w+)\(', src)
for real in ("float", "double"):
    m = cp.RawModule(code=src, options=("-std=c++17", f"-DREAL={real}", f"-I{here}") + extra, name_expressions=None)
    for n in names:
        f = m.get_function(n)
        print(f"{module}.{n:28s} REAL={real:6s} regs {f.num_regs:4d}  local {f.local_size_bytes:5d} B  "
              f"max block {f.max_threads_per_block}")
