#!/usr/bin/env bash
# The CG micro-benchmark on the GPU machine (run from the repository root with .gpu staged by
# scripts/gpu/stage.sh; run.sh runs it too): the CPU-vs-CUDA CG check (Jacobi, AMG with f32 and f64 cycles, Chebyshev-Jacobi, on
# a 48k and a 663k-unknown Kuhn box), `solver bench cg` on the 10.1 M-unknown two-point
# Poisson matrix of a 119^3 x 6 Kuhn box (set-up, iterations to 1e-8, seconds per solve and
# per iteration, bytes per iteration, fraction of the copy bandwidth), and the CuPy /
# cuSPARSE Jacobi-PCG peer on the same matrix, in the same run (pyamg, the AMG peer, runs on
# a CPU: benchmarks/peers/pyamg_cg.py). A short table last. Results in $OUT (or
# .gpu/results). Knobs: CG_SIZE (default 119), CG_PRECONDS (default "jacobi,amg,amg-f64,chebyshev4"),
# CG_CHECK_SIZE (default 48), CG_REPS (3).
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
S=.gpu/solver
R=${OUT:-.gpu/results}
W=$(mktemp -d)
mkdir -p "$R"
status=0
fail() { echo "FAIL: $*"; status=1; }
size=${CG_SIZE:-119}
preconds=${CG_PRECONDS:-jacobi,amg,amg-f64,chebyshev4}
reps=${CG_REPS:-3}

[ -x "$S" ] || { echo "FAIL: $S missing (run scripts/gpu/stage.sh first and bring .gpu along)"; exit 1; }

echo "== registers and spills of cg.cu"
python3 scripts/dev/kernel_resources.py cg -DCG_RESOURCES 2>&1 | tee "$R/cg-kernel-resources.txt" || echo "(kernel resources: not available)"

echo "== CPU vs CUDA CG check (box 20 and box ${CG_CHECK_SIZE:-48}), with CPU seconds per iteration"
$S bench cg --sizes "${CG_CHECK_SIZE:-48}" --cpu --reps 1 --precond "$preconds" --json "$R/bench-cg-check.json" 2>&1 \
  | tee "$R/cg-check.txt" || fail "CG check (bench cg --cpu)"
grep -q "^FAIL" "$R/cg-check.txt" && fail "a CG check row failed"

echo "== solver bench cg, box ${size}^3 x 6 (writes the matrix for the peer)"
$S bench cg --sizes "$size" --reps "$reps" --precond "$preconds" --matrix-out "$W" --json "$R/bench-cg.json" 2>&1 \
  | tee "$R/bench-cg.txt" || fail "bench cg"
CFD_CG_LAYOUT=csr $S bench cg --sizes "$size" --reps "$reps" --precond jacobi --json "$R/bench-cg-csr.json" 2>&1 \
  | tee "$R/bench-cg-csr.txt" || fail "bench cg (CSR layout)"

echo "== peer: CuPy / cuSPARSE Jacobi-PCG on the same matrix"
if [ -f "$W/box$size.csr" ]; then
  python3 benchmarks/peers/cupy_cg.py "$W/box$size.csr" --reps "$reps" --json "$R/peer-cupy-cg.json" 2>&1 \
    | tee "$R/peer-cupy-cg.txt" || fail "cupy peer"
else
  fail "no matrix file $W/box$size.csr for the peer"
fi

echo "== summary"
grep -E "^(PASS|FAIL) check" "$R/cg-check.txt"
python3 - "$R" <<'PY' || echo "FAIL: summary table"
import json, os, sys
r = sys.argv[1]
def load(name):
    p = os.path.join(r, name)
    return json.load(open(p)) if os.path.exists(p) else None
ours, csr, peer = load("bench-cg.json"), load("bench-cg-csr.json"), load("peer-cupy-cg.json")
print("| solver | matrix | precond | layout | set-up s | iterations to 1e-8 | s/solve | s/iteration | MB/iteration | of copy bw | SpMV s |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for j in [ours, csr]:
    for x in (j or {}).get("rows", []):
        if x.get("backend", "cuda") != "cuda":
            continue
        setup = x.get("setup_seconds", 0) + x.get("upload_seconds", 0)
        print(f"| ours | {x['matrix']} ({x['unknowns']}) | {x['preconditioner']} | {x['layout']} | {setup:.2f} | {x['iterations']} | "
              f"{x['seconds_per_solve']:.3e} | {x['seconds_per_iteration']:.3e} | {x['bytes_per_iteration']/1e6:.0f} | {100*x['fraction_of_copy_bandwidth']:.1f} % | {x['spmv_seconds']:.3e} |")
if peer:
    for k in ("hand", "cupyx.cg"):
        if k in peer:
            p = peer[k]
            print(f"| cupy {k} | ({peer['unknowns']}) | jacobi | csr | - | {p['iterations']} | {p['iterations'] * p['seconds_per_iteration']:.3e} | {p['seconds_per_iteration']:.3e} | - | - | {peer['spmv_seconds']:.3e} |")
if ours:
    print(f"device: {ours['device']}, copy bandwidth {ours['copy_bandwidth']/1e9:.0f} GB/s; target: a solve to 1e-8 in <= 0.10 s at 10.1 M unknowns")
PY
rm -rf "$W"
exit $status
