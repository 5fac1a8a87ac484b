"""Where Ritter's dry dam-break front is (swe-dam-break-dry, t = 6 s), ours against the exact
solution, at 200-1600 cells. The exact depth vanishes quadratically at the front x_f = 5 + 2 c0 t,
so a "front" is where the depth crosses a threshold eps; both sides are measured at the same eps,
from 1e-4 to 1e-1 of the initial depth h0 = 5 mm. Prints a markdown table: our last cell deeper
than eps, the exact position of depth eps, and the gap in cells.
Usage: python3 validation/swe-dam-break/ritter_front.py [path/to/solver]"""
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "viz"))
import vti  # noqa: E402

G, H0, T = 9.81, 0.005, 6.0
C0 = np.sqrt(G * H0)
FRACTIONS = [1e-4, 1e-3, 1e-2, 1e-1]


def exact_position(eps):
    # h = 4 / (9 g) (c0 - (x - 5) / (2 t))^2 = eps
    return 5 + 2 * T * (C0 - np.sqrt(9 * G * eps / 4))


def main():
    solver = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release", "solver")
    work = tempfile.mkdtemp()
    case = os.path.join(work, "ritter.toml")
    with open(case, "w") as f:
        f.write(subprocess.run([solver, "cases", "swe-dam-break-dry"], capture_output=True, text=True, check=True).stdout)
    head = " | ".join(f"eps = {e:g} h0: ours / exact (cells)" for e in FRACTIONS)
    print(f"| cells | dx | {head} |")
    print("|---" * (2 + len(FRACTIONS)) + "|")
    for n in [200, 400, 800, 1600]:
        out = os.path.join(work, f"n{n}")
        subprocess.run([solver, "run", case, "-q", "-o", out, "--set", f"grid.dims=[{n},1,1]", "--set", "output.interval=6"], check=True)
        h, _ = vti.read_cell_array(sorted(glob.glob(out + "/*.vti"))[-1], "depth")
        h = np.asarray(h).ravel()
        dx = 10.0 / n
        x = (np.arange(n) + 0.5) * dx
        cols = []
        for e in FRACTIONS:
            ours, exact = x[np.nonzero(h > e * H0)[0].max()], exact_position(e * H0)
            cols.append(f"{ours:.3f} / {exact:.3f} ({(ours - exact) / dx:+.1f})")
        print(f"| {n} | {dx:.4f} | " + " | ".join(cols) + " |")


if __name__ == "__main__":
    main()
