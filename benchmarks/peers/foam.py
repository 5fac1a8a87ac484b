#!/usr/bin/env python3
"""Small OpenFOAM helpers for the peer scripts (openfoam_dfg.sh, openfoam_advect.sh): read the
cell centres that `postProcess -func writeCellCentres` writes (ASCII), write fields, read the
function objects' output, compare scalar fields. numpy only.

  foam.py dfg-inlet CASE UM H            0/U with the DFG 3D inlet profile on patch inlet
  foam.py dfg-result CASE                Cd Cl dp (last iteration) as JSON
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


def dfg_inlet(case, um, h):
    _, patches = read_field(os.path.join(case, "0", "C"))
    c = patches["inlet"]
    y, z = c[:, 1], c[:, 2]
    u = np.zeros_like(c)
    u[:, 0] = 16 * um * y * z * (h - y) * (h - z) / h**4
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
}
""" % (len(u), fmt_vectors(u))
    open(os.path.join(case, "0", "U"), "w").write(text)


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
    elif cmd == "advect-init":
        advect_init(args[0], args[1])
    elif cmd == "advect-error":
        advect_error(args[0], args[1], args[2])
    else:
        raise SystemExit(__doc__)
