#!/usr/bin/env python3
"""Where a kernel's instructions go, from ncu's source page of one launch
(`ncu --section SourceCounters ... -o rep`, then `ncu -i rep.ncu-rep --page source --csv
--print-source sass | gzip > K-sass.csv.gz`).

The SASS is cut into phases at each barrier (BAR) and exit: per phase, the instructions executed
per cell (warp instructions x 32 / cells, and thread instructions / cells), the share of stall
samples, and the most executed opcodes. `--lines A B` prints instructions A..B with their
executed count per cell and their stall samples instead. Only the first kernel of the file is
read.
Usage: ncu_phases.py K-sass.csv.gz CELLS [--lines A B] [--min X]"""
import argparse
import collections
import csv
import gzip


def read(path):
    rows = []
    for r in csv.reader(gzip.open(path, "rt")):
        if r and r[0] == "Kernel Name" and rows:
            break  # the next kernel's section
        rows.append(r)
    h = rows[1]
    a, s, e, t, m = (h.index(k) for k in ("Address", "Source", "Instructions Executed",
                                          "Thread Instructions Executed", "Warp Stall Sampling (All Samples)"))
    return [(r[s].strip(), int(r[e] or 0), int(r[t] or 0), int(r[m] or 0)) for r in rows[2:] if len(r) > m and r[a]]


def opcode(source):
    words = source.split()
    op = words[1] if words[0].startswith("@") and len(words) > 1 else words[0]
    return op.split(".")[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("cells", type=float)
    ap.add_argument("--lines", nargs=2, type=int)
    ap.add_argument("--min", type=float, default=0.0, help="with --lines: only instructions run this often a cell")
    a = ap.parse_args()
    ins = read(a.csv)
    per_cell = lambda warp: warp * 32 / a.cells
    samples = sum(i[3] for i in ins) or 1
    if a.lines:
        for k in range(a.lines[0], min(a.lines[1], len(ins) - 1) + 1):
            src, e, _, m = ins[k]
            if per_cell(e) >= a.min:
                print(f"{k:5d} {per_cell(e):7.2f} {m:6d}  {src}")
        return
    total = sum(i[1] for i in ins)
    print(f"{per_cell(total):.0f} instructions a cell (warp x 32), {sum(i[2] for i in ins) / a.cells:.0f} of active threads")
    start = 0
    for k, (src, *_rest) in enumerate(ins + [("EXIT", 0, 0, 0)]):
        if not (src.startswith("BAR") or opcode(src) in ("EXIT", "RET")) and k < len(ins):
            continue
        phase = ins[start:k + 1]
        start = k + 1
        warp = sum(i[1] for i in phase)
        if warp == 0:
            continue
        ops = collections.Counter()
        for src2, e, _, _ in phase:
            ops[opcode(src2)] += e
        top = ", ".join(f"{o} {per_cell(c):.0f}" for o, c in ops.most_common(8))
        print(f"[{start - len(phase):5d}-{k:5d}] {per_cell(warp):6.0f} a cell ({sum(i[2] for i in phase) / a.cells:6.0f} active), "
              f"stalls {100 * sum(i[3] for i in phase) / samples:5.1f} %: {top}")


if __name__ == "__main__":
    main()
