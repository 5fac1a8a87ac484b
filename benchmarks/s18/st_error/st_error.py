#!/usr/bin/env python3
"""Session 18: the standard errors the solver now reports (summary.json signals.st_standard_error,
cd_mean_standard_error; solver/src/numerics/signals.rs), applied to the session-17 Re 3900 runs'
forces.csv (the runs predate them). Same estimators: St from upward crossings of the lift's
mean, its error from the periods' spread over sqrt(count); the mean Cd's by batch means
(batches of two periods, at most 20). Usage: st_error.py FORCES.csv.gz START"""
import csv, gzip, math, sys

def trapz_mean(t, x):
    a = sum(0.5 * (x[k] + x[k - 1]) * (t[k] - t[k - 1]) for k in range(1, len(t)))
    return a / (t[-1] - t[0])

def sd(v):
    m = sum(v) / len(v)
    return math.sqrt(sum((a - m) ** 2 for a in v) / (len(v) - 1))

path, start = sys.argv[1], float(sys.argv[2])
rows = [r for r in csv.DictReader(gzip.open(path, "rt")) if float(r["time"]) >= start]
t = [float(r["time"]) for r in rows]; cd = [float(r["cd"]) for r in rows]; cl = [float(r["cl"]) for r in rows]
m = trapz_mean(t, cl)
c = [t[k - 1] + (t[k] - t[k - 1]) * (m - cl[k - 1]) / (cl[k] - cl[k - 1]) for k in range(1, len(t)) if cl[k - 1] < m <= cl[k]]
per = [b - a for a, b in zip(c, c[1:])]
T = (c[-1] - c[0]) / len(per)
se_t = sd(per) / math.sqrt(len(per))
st = 1.0 / T
batches = min(len(per) // 2, 20)
edges = [t[0] + (t[-1] - t[0]) * b / batches for b in range(batches + 1)]
means = []
for a, z in zip(edges, edges[1:]):
    idx = [k for k in range(len(t)) if a <= t[k] <= z]
    means.append(trapz_mean([t[k] for k in idx], [cd[k] for k in idx]))
print(f"{path}: window {t[0]:.1f}-{t[-1]:.1f}, {len(per)} periods: St {st:.4f} +- {st * se_t / T:.4f} "
      f"(period spread {sd(per) / T * 100:.1f} %), Cd mean {trapz_mean(t, cd):.4f} +- {sd(means) / math.sqrt(batches):.4f} ({batches} batches)")
