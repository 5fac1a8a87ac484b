#!/usr/bin/env python3
"""Predicted strong and weak scaling of the decomposed structured families to 1,000 GPUs, from
the kernels' time per cell measured on one host of 2 x H100 (`scripts/gpu/parts.sh`'s JSON) and
NVLink's latency and bandwidth measured on 2 x H200, checked against the 2-GPU runs of the same
measurement. Prints Markdown tables (BENCHMARKS.md, "A cost model to 1,000 GPUs").

Usage: scripts/dev/scaling_model.py [PARTS_BENCH_JSON.tar]
The tar holds `scripts/gpu/parts.sh`'s parts-bench-*.json of one call on 2 x H100. Without it,
the measurement the model was made from, read from git history (commit f3c29aa,
benchmarks/s24/call3-2gpu/parts-bench-json.tar).

The model of one step on P parts (bulk-synchronous: the slowest part sets the pace):

    t(P) = cells_per_part * tau  +  E * (alpha + bytes_per_exchange / beta)  +  o(P)

- tau: seconds per cell-update of one GPU at 512^3 (measured: s/step / cells);
- E: ghost exchanges a step (3 for every scheme here: one per RK3 stage, one per MUSCL sweep);
- bytes_per_exchange: what one part sends in one exchange: its planes (padded rows, as the code
  sends them) on each side that has a neighbour, every component;
- alpha, beta: the exchange's latency and bandwidth (below: measured intra-node, assumed
  inter-node);
- o(P): the per-step cost of driving several parts (threads in one process; measured) or of the
  dt all-reduce across ranks (assumed: 5 us x log2 P).

Slabs (what is built: planes along the outermost axis) need at least max(halo, 2) planes a
part, so N^3 grids stop at N / max(halo, 2) parts; blocks (p x p x p parts, not built) are
modelled beside them with six faces a part.
"""
import io
import json
import math
import os
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
# 2 x H100, one process, 512^3, f32 Euler exact, heat f64: scripts/gpu/parts.sh's JSON, packed in
# one tar.
MEASURED = "f3c29aae597b11334fd312bc0cdee102e93a8e6c:benchmarks/s24/call3-2gpu/parts-bench-json.tar"
if len(sys.argv) > 1:
    S24 = tarfile.open(sys.argv[1])
else:
    try:
        blob = subprocess.run(["git", "-C", HERE, "show", MEASURED], check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"scaling_model.py: cannot read {MEASURED} from git history ({e}); give the tar as the argument")
    S24 = tarfile.open(fileobj=io.BytesIO(blob))


def seconds(name):
    return json.load(S24.extractfile(name))["rows"][0]["seconds_per_step"]


# Measured on 2 x H100, 512^3, 1 GPU and 2 GPUs, one process.
FAMILIES = {
    # name: (tau s/cell-update, halo, components, bytes, exchanges/step, periodic split axis)
    "heat f64 (register-queue)": (seconds("parts-bench-heat-1.json") / 512**3, 4, 1, 8, 3, True),
    "Euler PLM+HLL+RK3 f32": (seconds("parts-bench-euler-plm-1.json") / 512**3, 2, 5, 4, 3, False),
    "Euler MUSCL-Hancock+HLLC f32": (seconds("parts-bench-euler-hllc-1.json") / 512**3, 2, 5, 4, 3, False),
}

# Intra-node NVLink, NCCL p2p (measured on 2 x H200): heat f64 512^3 on
# 2 GPUs exposes 2.3394e-3 - 2.0378e-3 s a step (exchange on against off) for 3 exchanges of
# 18.1 MB out of each GPU (a ring: both sides); heat 64^3 exposes (1.4875e-4 - 8.6459e-5) / 3 =
# 21 us per exchange of 0.44 MB: the latency.
ALPHA_NVLINK = (1.4875e-4 - 8.6459e-5) / 3
HEAT_512_EXCHANGE = (2.3394e-3 - 2.0378e-3) / 3
BETA_NVLINK = 18.1e6 / (HEAT_512_EXCHANGE - ALPHA_NVLINK)
# Driving 2 GPUs from one process (a pool thread a device): heat 64^3 on 2 GPUs without the
# exchange 45-56 us a step against 40 us on one; the worse end.
O_THREADS = 56e-6 - 40e-6
# Inter-node (assumed, not measured here): one 400 Gb/s NDR InfiniBand HCA per GPU, ~45 GB/s
# achieved per direction, ~20 us NCCL network latency on top of the intra-node launch; 8 GPUs a
# node, so past 8 parts every part waits for the slowest (network) neighbour.
ALPHA_IB = ALPHA_NVLINK + 20e-6
BETA_IB = 45e9
GPUS_PER_NODE = 8


def padded_plane(n, halo, real_bytes):
    """Values in one padded plane of an n x n cross-section (rows aligned to 128 bytes)."""
    per_line = 128 // real_bytes
    xoff = max(halo, per_line)
    pitch = math.ceil((xoff + n + halo) / per_line) * per_line
    return pitch * (n + 2 * halo)


def link(p):
    return (ALPHA_NVLINK, BETA_NVLINK) if p <= GPUS_PER_NODE else (ALPHA_IB, BETA_IB)


def overhead(p):
    if p == 1:
        return 0.0
    return O_THREADS if p <= 2 else 5e-6 * math.log2(p)


def slab_step(fam, n_xy, n_z, p):
    tau, halo, comps, rb, e, ring = FAMILIES[fam]
    if n_z // p < max(halo, 2):
        return None
    compute = n_xy * n_xy * (n_z / p) * tau
    if p == 1:
        return compute
    sides = 2 if (ring or p > 2) else 1
    b = sides * halo * padded_plane(n_xy, halo, rb) * comps * rb
    a, beta = link(p)
    return compute + e * (a + b / beta) + overhead(p)


def block_step(fam, n, p):
    tau, halo, comps, rb, e, _ = FAMILIES[fam]
    q = round(p ** (1 / 3))
    if q**3 != p or n // q < max(halo, 2):
        return None
    m = n / q
    compute = m**3 * tau
    if p == 1:
        return compute
    b = 6 * halo * (m + 2 * halo) ** 2 * comps * rb
    a, beta = link(p)
    return compute + e * (a + b / beta) + overhead(p)


def fmt(t):
    return "-" if t is None else f"{t:.3g}"


def main():
    print(f"alpha NVLink {ALPHA_NVLINK * 1e6:.0f} us, beta NVLink {BETA_NVLINK / 1e9:.0f} GB/s (measured); "
          f"alpha IB {ALPHA_IB * 1e6:.0f} us, beta IB {BETA_IB / 1e9:.0f} GB/s (assumed); "
          f"threads {O_THREADS * 1e6:.0f} us a step (measured)\n")
    print("Checked against the 2-GPU runs (2 x H100, same call as the 1-GPU figures):\n")
    print("| case | predicted 2-GPU s/step | measured | error |")
    print("|---|---|---|---|")
    measured = {
        ("heat f64 (register-queue)", 512): seconds("parts-bench-heat-2.json"),
        ("Euler PLM+HLL+RK3 f32", 512): seconds("parts-bench-euler-plm-2.json"),
        ("Euler MUSCL-Hancock+HLLC f32", 512): seconds("parts-bench-euler-hllc-2.json"),
    }
    for (fam, n), m in measured.items():
        t = slab_step(fam, n, n, 2)
        print(f"| {fam} {n}^3 | {t:.4g} | {m:.4g} | {(t - m) / m * 100:+.1f} % |")
    gpus = [1, 2, 8, 64, 512, 1000]
    for fam, n in [("heat f64 (register-queue)", 2048), ("Euler PLM+HLL+RK3 f32", 1024)]:
        print(f"\nStrong scaling, {fam}, {n}^3: s/step (parallel efficiency)\n")
        print("| GPUs | slabs (built) | blocks (not built) |")
        print("|---|---|---|")
        t1 = slab_step(fam, n, n, 1)
        for p in gpus:
            s, b = slab_step(fam, n, n, p), block_step(fam, n, p)
            eff = lambda t: "" if t is None else f" ({t1 / (p * t) * 100:.0f} %)"
            print(f"| {p} | {fmt(s)}{eff(s)} | {fmt(b)}{eff(b)} |")
    print("\nWeak scaling, 512^3 cells a GPU: s/step (efficiency against 1 GPU)\n")
    print("| GPUs | " + " | ".join(FAMILIES) + " |")
    print("|---" * (len(FAMILIES) + 1) + "|")
    for p in gpus:
        row = []
        for fam in FAMILIES:
            t1 = slab_step(fam, 512, 512, 1)
            t = slab_step(fam, 512, 512 * p, p)
            row.append(f"{fmt(t)} ({t1 / t * 100:.0f} %)")
        print(f"| {p} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
