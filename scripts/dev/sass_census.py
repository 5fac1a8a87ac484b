#!/usr/bin/env python3
"""Static SASS census of a CUDA module in kernels/cuda, compiled here as the solver compiles it
(NVRTC for sm_90, -DREAL=float|double, the module's options): each kernel's instruction count,
its registers, and its most frequent opcodes. No GPU needed: NVRTC emits the CUBIN, nvdisasm
reads it. Static counts, not executed ones, but a kernel's straight-line phases show what a
change removes before any device time is spent.

Needs libnvrtc and nvdisasm (`pip install nvidia-cuda-nvrtc-cu12 nvidia-cuda-nvdisasm`); set
NVRTC_LIB and NVDISASM if they are not found.
Usage: sass_census.py MODULE [--real float|double] [--kernel NAME] [--top N] [-D NAME=VALUE ...]
       [--opt OPTION ...] [--dump FILE]"""
import argparse
import collections
import ctypes
import glob
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kernels", "cuda")
# The module options of kernels/src/lib.rs (`Module::options`).
MODULE_OPTIONS = {"swe": ["--fmad=false"], "euler": ["--fmad=false"], "ns": ["--fmad=false"], "sl": ["--fmad=false"],
                  "advect": ["--fmad=false"]}


def find(env, patterns):
    if os.environ.get(env):
        return os.environ[env]
    for p in patterns:
        # The newest version last (libnvrtc.so.13 after .so.12).
        hits = sorted(glob.glob(p, recursive=True), key=lambda h: [int(x) for x in re.findall(r"\d+", os.path.basename(h))])
        if hits:
            return hits[-1]
    sys.exit(f"{env} not found: set it (searched {patterns})")


def site_patterns(name):
    """`name` under every site-packages' nvidia folder (where the PyPI wheels put it)."""
    import site
    dirs = site.getsitepackages() + [site.getusersitepackages()]
    return [os.path.join(d, "nvidia", "**", name) for d in dirs]


def nvrtc_cubin(lib, src, name, options):
    # NVRTC opens its builtins library by name at compile time: load the one beside it first,
    # so that no LD_LIBRARY_PATH is needed.
    for builtins in sorted(glob.glob(os.path.join(os.path.dirname(lib), "libnvrtc-builtins.so.*"))):
        if ".alt." not in builtins:
            ctypes.CDLL(builtins, mode=ctypes.RTLD_GLOBAL)
    nv = ctypes.CDLL(lib)
    prog = ctypes.c_void_p()
    if nv.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), name.encode(), 0, None, None):
        sys.exit("nvrtcCreateProgram failed")
    opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
    rc = nv.nvrtcCompileProgram(prog, len(options), opts)
    size = ctypes.c_size_t()
    nv.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    nv.nvrtcGetProgramLog(prog, log)
    if rc:
        sys.exit(f"NVRTC failed ({' '.join(options)}):\n{log.value.decode()}")
    nv.nvrtcGetCUBINSize(prog, ctypes.byref(size))
    cubin = ctypes.create_string_buffer(size.value)
    nv.nvrtcGetCUBIN(prog, cubin)
    return cubin.raw


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("module")
    ap.add_argument("--real", default="float")
    ap.add_argument("--kernel", default=None)
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("-D", dest="defines", action="append", default=[])
    ap.add_argument("--opt", action="append", default=None, help="replaces the module's options")
    ap.add_argument("--dump", default=None, help="write the kernel's SASS here")
    a = ap.parse_args()
    # The tests' own copy (scripts/setup.sh fetches it into target/nvrtc) comes first.
    here_nvrtc = os.path.join(HERE, "..", "..", "target", "nvrtc", "nvidia", "**", "libnvrtc.so.1[0-9]")
    lib = find("NVRTC_LIB", [here_nvrtc] + site_patterns("libnvrtc.so.1[0-9]") + ["/usr/local/cuda/lib64/libnvrtc.so*"])
    disasm = find("NVDISASM", site_patterns("nvdisasm") + ["/usr/local/cuda/bin/nvdisasm"])
    objdump = os.path.join(os.path.dirname(disasm), "cuobjdump")
    src = open(os.path.join(HERE, f"{a.module}.cu")).read()
    options = ["--gpu-architecture=sm_90", f"-DREAL={a.real}", "-std=c++17", f"-I{HERE}"]
    options += [f"-D{d}" for d in a.defines]
    options += a.opt if a.opt is not None else MODULE_OPTIONS.get(a.module, [])
    cubin = nvrtc_cubin(lib, src, f"{a.module}.cu", options)
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        sass = subprocess.run([disasm, "-c", "-hex", f.name], capture_output=True, text=True, check=True).stdout
        usage = subprocess.run([objdump, "-res-usage", f.name], capture_output=True, text=True).stdout
    resources = {}
    for m in re.finditer(r"Function (\w+):\s*\n\s*REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)", usage):
        resources[m.group(1)] = f"regs {m.group(2)}, stack {m.group(3)}, shared {m.group(4)}, local {m.group(5)}"
    kernels = collections.OrderedDict()
    current = None
    for line in sass.splitlines():
        m = re.match(r"\s*\.text\.(\w+):", line)
        if m:
            current = m.group(1)
            kernels[current] = []
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if m and current:
            kernels[current].append((m.group(2), line))
    print(f"# {a.module}.cu REAL={a.real} {' '.join(options[4:])}")
    for name, ins in kernels.items():
        if a.kernel and a.kernel not in name:
            continue
        ops = collections.Counter(op.split(".")[0] for op, _ in ins if op != "NOP")
        total = sum(ops.values())
        top = ", ".join(f"{o} {c}" for o, c in ops.most_common(a.top))
        print(f"{name:28s} {total:6d} instructions ({resources.get(name, '?')}): {top}")
        if a.dump:
            with open(a.dump, "w") as out:
                out.write("\n".join(l for _, l in ins))


if __name__ == "__main__":
    main()
