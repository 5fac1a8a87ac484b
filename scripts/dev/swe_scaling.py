#!/usr/bin/env python3
"""The shallow-water scaling table from scripts/gpu/swe_multi.sh's JSON: per size and precision,
seconds per step on 1 and 2 GPUs and the speed-up; 2 GPUs with 2 ghost rows against 1; at the sizes timed with the exchange
serialized and skipped, the exchange's cost per step and the fraction the overlap hides,
hidden = 1 - (t_overlap - t_off) / (t_serial - t_off); the one-week run on 2 GPUs.
Usage: swe_scaling.py RESULTS_DIR"""
import json
import os
import sys


def rows(path):
    if not os.path.exists(path):
        return {}
    return {(r["size"], r["precision"]): r for r in json.load(open(path))["rows"]}


def main():
    d = sys.argv[1]
    one, two = rows(f"{d}/swe-scaling-1gpu.json"), rows(f"{d}/swe-scaling-2gpu.json")
    serial, off = rows(f"{d}/swe-exchange-serial.json"), rows(f"{d}/swe-exchange-off.json")
    print(f"{'size':<8} {'prec':<4} {'1 GPU s/step':>13} {'2 GPU s/step':>13} {'speed-up':>8} "
          f"{'cell-upd/s 2 GPU':>17} {'exch serial us':>15} {'exposed us':>11} {'hidden':>7}")
    for key in sorted(two, key=lambda k: (int(k[0].split("^")[0]), k[1])):
        a, b = one.get(key), two[key]
        t1, t2 = (a["seconds_per_step"] if a else float("nan")), b["seconds_per_step"]
        line = f"{key[0]:<8} {key[1]:<4} {t1:13.4e} {t2:13.4e} {t1 / t2:8.2f} {b['updates_per_s']:17.3e}"
        if key in serial and key in off:
            ts, to = serial[key]["seconds_per_step"], off[key]["seconds_per_step"]
            cost, exposed = ts - to, t2 - to
            hidden = 1 - exposed / cost if cost > 0 else float("nan")
            line += f" {cost * 1e6:15.1f} {exposed * 1e6:11.1f} {100 * hidden:6.0f}%"
        print(line)
    ghost = rows(f"{d}/swe-ghost2-2gpu.json")
    for key, r in sorted(ghost.items()):
        base = two.get(key)
        t1, t2 = (base["seconds_per_step"] if base else float("nan")), r["seconds_per_step"]
        print(f"2 GPUs {key[0]} {key[1]}: 1 ghost row {t1:.4e} s/step, 2 ghost rows {t2:.4e} s/step "
              f"({t1 / t2:.3f}x)")
    week = rows(f"{d}/swe-week-2gpu.json")
    for r in week.values():
        s = r["seconds_per_step"]
        print(f"one week on 2 GPUs, 1000^2 f32: {s:.3e} s/step -> {s * 1679708:.1f} s for 1,679,708 steps")


if __name__ == "__main__":
    main()
