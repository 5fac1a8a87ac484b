#!/usr/bin/env python3
"""The semi-Lagrangian paper's fig. 9: the time-mean drag coefficient and the Strouhal number of
a circular cylinder against the Reynolds number, next to published values.

  validation/drag-curve/drag_curve.py run  --solver BIN --mesh CYL.pmesh [--span-mesh SPAN.pmesh] [--backend cuda] [--re 20,40,100,200,1000,3900] OUT
  validation/drag-curve/drag_curve.py table OUT            (the table and, where matplotlib is installed, OUT/drag_curve.png)

The mesh is meshes/cylinder2d.geo (an unconfined cylinder of diameter 1 as a slab one cell
thick, `thick` 0.1; `gmsh -3 meshes/cylinder2d.geo -setnumber size 0.025 -format msh41 -bin`,
then `meshtool prepare`). U = D = 1 and nu = 1 / Re; the far sides y = +-15 are slip walls.
Each Re writes OUT/re<Re>/ (summary.json, forces.csv). Re 20-200 are laminar runs on the slab
(no subgrid model). Re 1000 and 3900 are 3D LES: the template cylinder-re3900-les (dynamic
model, span pi D periodic) at nu = 1 / Re on SPAN.pmesh (meshes/cylinder-span.geo as the
template names it: size 0.04 far 0.5 layers 24 half_height 20, 1.55 M tets, about 8 min each on
an H100). summary.json `wake` gives
the mean base pressure coefficient and the recirculation length L / D.
"""
import json, os, subprocess, sys

# Per Re: the step, the end time and the start of the statistics window (in D / U). The steady
# wakes (20, 40) settle by t ~ 40; their step keeps nu dt / h^2 near 1 at the wall (dt 0.05
# diverged within 50 steps: "fits-full" defers part of the viscous flux, which a strong
# viscosity does not tolerate); the symmetric start sheds from the mesh's asymmetry by
# t ~ 60-100 at Re 100, sooner at 200; the window then holds >= 10 periods.
RUNS = {20: (0.01, 60.0, 40.0), 40: (0.01, 60.0, 40.0), 100: (0.02, 220.0, 140.0), 200: (0.01, 160.0, 100.0)}

# The LES points: the template cylinder-re3900-les as it ships (dt 0.02 to t = 180, statistics
# from t = 60: about 24 shedding periods) with nu = 1 / Re.
LES = (1000, 3900)

# Published values: (Cd, source), (St, source). Experiments where they exist at that Re; the 2D
# simulations' where the experiment is 3D (Re 200: mode A sets in near 190, Williamson 1996).
REFERENCE = {
    20: ((2.05, "Dennis & Chang 1970 (num.); Tritton 1959 exp. 2.22"), (None, "steady wake")),
    40: ((1.52, "Dennis & Chang 1970 (num.); Tritton 1959 exp. 1.48"), (None, "steady wake")),
    100: ((1.35, "Henderson 1995 (2D num.)"), (0.164, "Williamson 1996 (exp.)")),
    200: ((1.34, "Henderson 1995 (2D num.)"), (0.196, "Williamson 1996 (exp., 2D branch)")),
    1000: ((1.0, "Wieselsberger 1921 (exp.)"), (0.21, "Norberg 2003 (exp.)")),
    3900: ((0.98, "Norberg 1987 (exp.), +-0.05"), (0.215, "Norberg 2003 (exp.), +-0.005")),
}

# The recirculation length L / D: the steady wakes' (Dennis & Chang 1970, numerical), and the
# mean wake's at Re 3900 (Parnaudeau et al. 2008, PIV: 1.51).
RECIRCULATION = {20: 0.94, 40: 2.35, 3900: 1.51}

# Tritton's measured drag at the steady-wake Reynolds numbers (plotted beside the table's first source).
TRITTON = {20: 2.22, 40: 1.48}

CASE = """mesh = "{mesh}"
[case]
kind = "navier-stokes"
[time]
dt = {dt}
end_time = {end}
[output]
every = 1000000
[run]
backend = "{backend}"
[navier-stokes]
density = 1.0
viscosity = {nu}
mode = "transient"
statistics = {{ start = {start} }}
wake = {{ base = [0.5001, 0.0, {mid}], reference = [-10.0, 10.0, {mid}] }}
face_gradients = "fits-full"
flux_memory = "full"
flux_memory_time = 1.0
log_every = 0
[navier-stokes.boundary]
inlet = {{ kind = "inlet", velocity = [1.0, 0.0, 0.0] }}
outlet = {{ kind = "outlet", pressure = 0.0 }}
far = {{ kind = "symmetry" }}
cylinder = {{ kind = "wall" }}
sides = {{ kind = "symmetry" }}
[navier-stokes.forces]
# cd = 2 F_x / (rho U^2 D t): U = D = 1, the slab's thickness t
patch = "cylinder"
velocity = 1.0
area = {thick}
length = 1.0
wall_shear = "distance"
"""


def run(args):
    opts = dict(solver="solver", mesh=None, backend="cuda", re="20,40,100,200", thick="0.1")
    opts["span-mesh"] = None
    while len(args) > 1 and args[0].startswith("--"):
        opts[args[0][2:]] = args[1]
        args = args[2:]
    res = [int(r) for r in opts["re"].split(",")]
    if not args or (not opts["mesh"] and any(r in RUNS for r in res)) or (not opts["span-mesh"] and any(r in LES for r in res)):
        sys.exit(__doc__)
    out = args[0]
    os.makedirs(out, exist_ok=True)
    procs = []
    for re in res:
        case, sets = os.path.join(out, f"re{re}.toml"), []
        if re in LES:
            # The template itself, so that the curve's LES points are what it ships.
            text = subprocess.run([opts["solver"], "cases", "cylinder-re3900-les"], check=True, capture_output=True, text=True).stdout
            sets = ["--set", f'mesh="{os.path.abspath(opts["span-mesh"])}"', "--set", f"navier-stokes.viscosity={1.0 / re!r}",
                    "--set", f'run.backend="{opts["backend"]}"', "--set", "output.every=0"]
        else:
            dt, end, start = RUNS[re]
            text = CASE.format(mesh=os.path.abspath(opts["mesh"]), dt=dt, end=end, start=start,
                               backend=opts["backend"], nu=1.0 / re, thick=opts["thick"],
                               mid=0.5 * float(opts["thick"]))
        with open(case, "w") as f:
            f.write(text)
        log = open(os.path.join(out, f"re{re}.log"), "w")
        # The runs are small for the GPU: they share it.
        procs.append(subprocess.Popen([opts["solver"], "run", case, "-q", *sets, "-o", os.path.join(out, f"re{re}")],
                                      stdout=log, stderr=subprocess.STDOUT))
    failed = sum(p.wait() != 0 for p in procs)
    table(out)
    sys.exit(1 if failed else 0)


def table(out):
    rows = []
    print("| Re | Cd mean (ours) | Cd (published) | diff | St (ours) | St (published) | L/D (ours) | L/D (published) | -Cpb (ours) | window |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for re in sorted([*RUNS, *LES]):
        p = os.path.join(out, f"re{re}", "summary.json")
        if not os.path.exists(p):
            continue
        summary = json.load(open(p))
        sig, wake = summary.get("signals") or {}, summary.get("wake") or {}
        cd = sig.get("cd", {}).get("mean")
        amp = (sig.get("cl", {}).get("max", 0) - sig.get("cl", {}).get("min", 0)) / 2
        st = sig.get("st") if amp > 1e-3 else None  # a steady wake has no shedding frequency
        (cd_ref, cd_src), (st_ref, st_src) = REFERENCE[re]
        diff = "%+.1f %%" % (100 * (cd / cd_ref - 1)) if cd is not None else "-"
        fmt = lambda v: "-" if v is None else "%.4f" % v
        cpb = wake.get("base_pressure_coefficient")
        print(f"| {re} | {fmt(cd)} | {cd_ref} ({cd_src}) | {diff} | {fmt(st)} | {st_ref or '-'} ({st_src}) | "
              f"{fmt(wake.get('recirculation_length'))} | {RECIRCULATION.get(re, '-')} | {fmt(cpb and -cpb)} | {sig.get('window')} |")
        rows.append((re, cd, cd_ref, st, st_ref))
        if cd is not None and abs(cd / cd_ref - 1) > 0.10:
            print(f"  Re {re}: Cd {cd:.4f} is more than 10 % from {cd_ref}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib not installed: no picture)")
        return
    from matplotlib.ticker import NullFormatter, ScalarFormatter
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.semilogx([r[0] for r in rows], [r[2] for r in rows], "ks", mfc="none", label="published (table's first source)")
    exp = [(re, TRITTON[re]) for re, *_ in rows if re in TRITTON]
    if exp:
        ax.semilogx(*zip(*exp), "k^", mfc="none", label="Tritton 1959 (experiment)")
    lam = [r for r in rows if r[1] and r[0] not in LES]
    les = [r for r in rows if r[1] and r[0] in LES]
    ax.semilogx([r[0] for r in lam], [r[1] for r in lam], "ro-", label="ours: laminar slab (CUDA)")
    if les:
        ax.semilogx([r[0] for r in les], [r[1] for r in les], "bD", label="ours: 3D LES, dynamic (CUDA)")
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks([r[0] for r in rows])
    ax.set_xlabel("Re = U D / nu"), ax.set_ylabel("time-mean Cd"), ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "drag_curve.png"), dpi=120)
    print("wrote", os.path.join(out, "drag_curve.png"))


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("run", "table"):
        sys.exit(__doc__)
    run(sys.argv[2:]) if sys.argv[1] == "run" else table(sys.argv[2])
