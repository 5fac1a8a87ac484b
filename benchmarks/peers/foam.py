#!/usr/bin/env python3
"""Small OpenFOAM helpers for the peer scripts (openfoam_dfg.sh, openfoam_dfg2d.sh, openfoam_advect.sh): read the
cell centres that `postProcess -func writeCellCentres` writes (ASCII), write fields, read the
function objects' output, compare scalar fields. numpy only.

  foam.py dfg-inlet CASE UM H            0/U with the DFG 3D inlet profile on patch inlet
  foam.py dfg-result CASE                Cd Cl dp (last iteration) as JSON
  foam.py dfg2d-inlet CASE UM H          0/U with the DFG 2D inlet profile on patch inlet (2D-2: UM 1.5)
  foam.py dfg2d-result CASE [FROM [WALL]]  DFG 2D-2 statistics over t >= FROM (default 5) as JSON:
                                         Cd max, Cl max, St, dp half a period after a lift
                                         maximum, mean Cd, periods, pimpleFoam's CPU and wall s
  foam.py advect-init CASE PROFILE       0/T from the advect profile (step | sine-ellipse) at the cell centres
  foam.py advect-error CASE F0 F1        L1, min, max, mass change of field file F1 against F0, JSON
"""
import json
import os
import re
import sys

import numpy as np

HEADER = """FoamFile
{{
    version     2.0;
    format      ascii;
    class       {cls};
    object      {obj};
}}
"""


def _list_after(text, start):
    """The N ( ... ) list of numbers or vectors that starts at or after `start`."""
    m = re.compile(r"nonuniform\s+List<(scalar|vector)>\s*(\d+)\s*\(").search(text, start)
    if m is None:
        m2 = re.compile(r"uniform\s+(\([^)]*\)|[-+0-9.eE]+)").search(text, start)
        return None, m2
    kind, n = m.group(1), int(m.group(2))
    end = text.index("\n)", m.end())
    body = text[m.end():end]
    if kind == "vector":
        vals = np.array(body.replace("(", " ").replace(")", " ").split(), dtype=float).reshape(n, 3)
    else:
        vals = np.array(body.split(), dtype=float)
    assert len(vals) == n, (len(vals), n)
    return vals, m


def read_field(path):
    """Internal values and {patch: values} of an ASCII vol field (nonuniform lists)."""
    text = open(path).read()
    i = text.index("internalField")
    internal, _ = _list_after(text, i)
    bf = text.index("boundaryField")
    patches = {}
    for m in re.finditer(r"\n    (\w+)\n    \{(.*?)\n    \}", text[bf:], re.S):
        vals, _ = _list_after(m.group(2), 0) if "nonuniform" in m.group(2) else (None, None)
        patches[m.group(1)] = vals
    return internal, patches


def cell_centres(case):
    """Cell centres and volumes (the C and V fields of writeCellCentres/writeCellVolumes at 0)."""
    c, patches = read_field(os.path.join(case, "0", "C"))
    v, _ = read_field(os.path.join(case, "0", "V"))
    return c, v, patches


def fmt_vectors(a):
    return "\n".join("(%.17g %.17g %.17g)" % tuple(r) for r in a)


def write_inlet_u(case, u, extra_patches=""):
    """0/U: velocity `u` (one row per inlet face) on patch inlet, zero gradient at the outlet,
    no-slip walls and cylinder, and `extra_patches` (boundaryField entries) as given."""
    text = HEADER.format(cls="volVectorField", obj="U") + """
dimensions      [0 1 -1 0 0 0 0];
internalField   uniform (0 0 0);
boundaryField
{
    inlet    { type fixedValue; value nonuniform List<vector> %d
(
%s
);
    }
    outlet   { type zeroGradient; }
    walls    { type noSlip; }
    cylinder { type noSlip; }
%s}
""" % (len(u), fmt_vectors(u), extra_patches)
    open(os.path.join(case, "0", "U"), "w").write(text)


def dfg_inlet(case, um, h):
    """0/U for the DFG 3D channel: u = 16 Um y z (H - y) (H - z) / H^4 at the inlet faces' centres."""
    _, patches = read_field(os.path.join(case, "0", "C"))
    c = patches["inlet"]
    y, z = c[:, 1], c[:, 2]
    u = np.zeros_like(c)
    u[:, 0] = 16 * um * y * z * (h - y) * (h - z) / h**4
    write_inlet_u(case, u)


def dfg2d_inlet(case, um, h):
    """0/U for the DFG 2D slab: u = 4 Um y (H - y) / H^2 at the inlet faces' centres, no-slip
    walls and cylinder, symmetry on the sides (z = 0 and z = thickness)."""
    _, patches = read_field(os.path.join(case, "0", "C"))
    y = patches["inlet"][:, 1]
    u = np.zeros((len(y), 3))
    u[:, 0] = 4 * um * y * (h - y) / h**2
    write_inlet_u(case, u, "    sides    { type symmetry; }\n")


def _table(path):
    """Columns of a function-object .dat file, named by its last '#' header line."""
    names, rows = None, []
    for line in open(path):
        if line.startswith("#"):
            parts = line[1:].split()
            if parts and parts[0] == "Time":
                names = parts
            continue
        if line.strip():
            rows.append([float(x) for x in line.replace("(", " ").replace(")", " ").split()])
    return names, np.array(rows)


def _last_dat(case, fo, name=None):
    base = os.path.join(case, "postProcessing", fo)
    times = sorted(os.listdir(base), key=float)
    d = os.path.join(base, times[-1])
    files = [name] if name else sorted(f for f in os.listdir(d) if f.endswith(".dat"))
    return os.path.join(d, files[0])


def dfg_result(case):
    names, rows = _table(_last_dat(case, "forceCoeffs"))
    last = rows[-1]
    col = {n: i for i, n in enumerate(names)}
    _, p = _table(_last_dat(case, "patchProbes", "p"))
    out = {"iterations": int(last[0]), "cd": last[col["Cd"]], "cl": last[col["Cl"]], "dp": p[-1, 1] - p[-1, 2]}
    # The same from the total force (forces/force.dat: Time, total (x y z), pressure, viscous):
    # Cd = 2 F_x / (rho U^2 D H) with U = 0.2, D H = 0.041.
    _, f = _table(_last_dat(case, "forces", "force.dat"))
    q = 0.5 * 0.2**2 * 0.041
    out["cd_from_force"], out["cl_from_force"] = f[-1, 1] / q, f[-1, 2] / q
    print(json.dumps(out))


def _mean(t, x):
    """Time mean by the trapezoidal rule."""
    return float(np.sum(0.5 * (x[1:] + x[:-1]) * np.diff(t)) / (t[-1] - t[0]))


def _upward_crossings(t, x, level):
    k = np.nonzero((x[:-1] < level) & (x[1:] >= level))[0] + 1
    x0, x1 = x[k - 1] - level, x[k] - level
    return t[k - 1] + (t[k] - t[k - 1]) * (-x0 / (x1 - x0))


def _at(t, x, s):
    """x at time s, linear between samples; None outside [t0, tn]."""
    return float(np.interp(s, t, x)) if t[0] <= s <= t[-1] else None


def _run_times(case):
    """pimpleFoam's last ExecutionTime (CPU) and ClockTime (wall) in log.pimpleFoam, seconds."""
    cpu = clock = None
    log = os.path.join(case, "log.pimpleFoam")
    if os.path.exists(log):
        for m in re.finditer(r"ExecutionTime = ([0-9.eE+-]+) s\s+ClockTime = ([0-9.eE+-]+) s", open(log).read()):
            cpu, clock = float(m.group(1)), float(m.group(2))
    return cpu, clock


def dfg2d_result(case, start=5.0, wall=None, d=0.1, u=1.0):
    """DFG 2D-2 (Schaefer & Turek 1996) statistics over t >= start from forceCoeffs (every step)
    and the two cylinder patchProbes (dp = p(0.15, 0.2) - p(0.25, 0.2)):
    - Cd max, Cl max, mean Cd (trapezoidal), min/mean of Cl;
    - f from the lift's upward crossings of its mean over the window: (crossings - 1) whole
      periods over the time between the first and the last; St = f D / U;
    - dp at t0 + 1 / (2 f), linear in time between samples, t0 the last lift maximum in the
      window (the largest sample of a positive half-wave, between an upward crossing of the mean
      and the next downward one) whose t0 + 1 / (2 f) still lies in the window. dp_at_window_max
      is the same from the window's largest lift sample (our template's t0).
    Coefficients as forceCoeffs writes them (magUInf 1, lRef 0.1, Aref 0.001); cd_max_from_force
    is the same from forces' total F_x: 2 F_x / (rho U^2 D t)."""
    names, rows = _table(_last_dat(case, "forceCoeffs"))
    col = {n: i for i, n in enumerate(names)}
    t, cd, cl = rows[:, 0], rows[:, col["Cd"]], rows[:, col["Cl"]]
    _, p = _table(_last_dat(case, "patchProbes", "p"))
    tp, dp = p[:, 0], p[:, 1] - p[:, 2]
    _, f = _table(_last_dat(case, "forces", "force.dat"))
    w, wp, wf = t >= start - 1e-9, tp >= start - 1e-9, f[:, 0] >= start - 1e-9
    t, cd, cl, tp, dp = t[w], cd[w], cl[w], tp[wp], dp[wp]
    out = {"window": [float(t[0]), float(t[-1])], "samples": int(len(t)),
           "cd_max": float(cd.max()), "cd_min": float(cd.min()), "cd_mean": _mean(t, cd),
           "cl_max": float(cl.max()), "cl_min": float(cl.min()), "cl_mean": _mean(t, cl),
           "dp_max": float(dp.max()), "dp_min": float(dp.min()), "dp_mean": _mean(tp, dp)}
    q = 0.5 * u**2 * d * 0.01
    out["cd_max_from_force"], out["cl_max_from_force"] = float(f[wf, 1].max() / q), float(f[wf, 2].max() / q)
    up = _upward_crossings(t, cl, out["cl_mean"])
    freq = (len(up) - 1) / (up[-1] - up[0]) if len(up) >= 2 else None
    out.update(frequency=freq, periods=max(len(up) - 1, 0), st=freq * d / u if freq else None)
    out["dp_half_period_after_cl_max"] = out["cl_max_time"] = out["dp_at_window_max"] = None
    if freq:
        half = 0.5 / freq
        pos = cl > out["cl_mean"]
        starts = np.nonzero(pos[1:] & ~pos[:-1])[0] + 1
        maxima = []
        for s in starts:
            e = s + np.argmin(pos[s:]) if not pos[s:].all() else len(cl)
            if e < len(cl):  # a whole positive half-wave
                maxima.append(s + int(np.argmax(cl[s:e])))
        for k in reversed(maxima):
            v = _at(tp, dp, t[k] + half)
            if v is not None:
                out["cl_max_time"], out["dp_half_period_after_cl_max"] = float(t[k]), v
                break
        out["dp_at_window_max"] = _at(tp, dp, float(t[np.argmax(cl)]) + half)
    cpu, clock = _run_times(case)
    out["cpu_seconds"], out["clock_seconds"] = cpu, clock
    out["wall_seconds"] = wall
    print(json.dumps(out))


def advect_profile(kind, c, lo=(0.0, 0.0, 0.0), length=(2.5, 0.41, 0.41)):
    """The advect templates' profiles (solver/src/cases/advect/profile.rs) at points c, placed
    relative to the box lo, lo + length (the duct's by default)."""
    x, y, z = (c[:, k] for k in range(3))
    x0, span = lo[0] + 0.08 * length[0], 0.5 * length[1]
    my = ((y - lo[1]) / length[1] - 0.5) / 0.25
    mz = ((z - lo[2]) / length[2] - 0.5) / 0.25
    if kind == "step":
        return ((x >= x0) & (x <= x0 + span) & (np.abs(my) <= 1) & (np.abs(mz) <= 1)).astype(float)
    if kind == "sine-ellipse":
        s = (x - x0) / span
        r2 = my**2 + mz**2
        inside = (s >= 0) & (s <= 1) & (r2 <= 1)
        return np.where(inside, np.sin(np.pi * s) * np.sqrt(np.clip(1 - r2, 0, None)), 0.0)
    raise SystemExit("unknown profile " + kind)


def write_scalar(case, time, name, vals, boundary):
    text = HEADER.format(cls="volScalarField", obj=name) + """
dimensions      [0 0 0 0 0 0 0];
internalField   nonuniform List<scalar> %d
(
%s
);
boundaryField
{
%s
}
""" % (len(vals), "\n".join("%.17g" % v for v in vals), boundary)
    os.makedirs(os.path.join(case, time), exist_ok=True)
    open(os.path.join(case, time, name), "w").write(text)


def advect_init(case, kind):
    c, _, _ = cell_centres(case)
    t = advect_profile(kind, c)
    bnd = """    inlet  { type inletOutlet; inletValue uniform 0; value uniform 0; }
    outlet { type inletOutlet; inletValue uniform 0; value uniform 0; }
    walls  { type zeroGradient; }"""
    write_scalar(case, "0", "T", t, bnd)


def advect_error(case, f0, f1):
    """T's L1 etc. of the field file f1 against f0 (paths relative to CASE)."""
    _, v, _ = cell_centres(case)
    a, _ = read_field(os.path.join(case, f0))
    b, _ = read_field(os.path.join(case, f1))
    if b is None:  # written as uniform: not expected after a run
        raise SystemExit("%s is uniform" % f1)
    out = {
        "l1": float(np.sum(v * np.abs(b - a)) / np.sum(v * np.abs(a))),
        "min": float(b.min()),
        "max": float(b.max()),
        "mass_change": float((np.sum(v * b) - np.sum(v * a)) / np.sum(v * a)),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "dfg-inlet":
        dfg_inlet(args[0], float(args[1]), float(args[2]))
    elif cmd == "dfg-result":
        dfg_result(args[0])
    elif cmd == "dfg2d-inlet":
        dfg2d_inlet(args[0], float(args[1]), float(args[2]))
    elif cmd == "dfg2d-result":
        dfg2d_result(args[0], float(args[1]) if len(args) > 1 else 5.0,
                     float(args[2]) if len(args) > 2 else None)
    elif cmd == "advect-init":
        advect_init(args[0], args[1])
    elif cmd == "advect-error":
        advect_error(args[0], args[1], args[2])
    else:
        raise SystemExit(__doc__)
