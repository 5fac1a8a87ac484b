//! The finite-volume view of the tetrahedral mesh: every face once (interior faces owned by
//! the lower-numbered cell, boundary faces with their role), the two-point coefficient of the
//! face-normal gradient with its non-orthogonal correction vector, the interpolation weight,
//! and the boundary values. Both backends read these arrays.
//!
//! The face-normal gradient times the area is split as A n . grad(phi) = a (phi_N - phi_P) +
//! k . grad(phi)_f with a d + k = A n (d from the owner's centroid to the neighbour's, or to
//! the face centre on the boundary): over-relaxed a = A / (n . d), minimum correction
//! a = A (n . d) / |d|^2, or none (k dropped, a = A / (n . d)). The k part is deferred
//! (evaluated with the latest cell gradients).

use super::section::NonOrthogonal;
use crate::mesh::TetGeometry;
use meshtool::topology::{is_boundary, patch_of, FACE_VERTS};

/// What a face is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Interior,
    Wall,
    Inlet,
    Outlet,
    Symmetry,
}

impl Role {
    /// Whether the velocity is given on the face (Dirichlet).
    pub fn fixed_velocity(self) -> bool {
        matches!(self, Role::Wall | Role::Inlet)
    }

}

/// The symmetry planes' normal velocity w = u_P . n of the step's u (refreshed every step):
/// a plane reflects the velocity, so a component's viscous flux through it is
/// -a n_k (u_P . n), zero for the tangential components (their normal derivative vanishes) and
/// u . n = 0 for the normal one; its part -a n_k^2 u_P,k is implicit (`symmetry_diagonal`),
/// the coupling to the other components explicit; the cell gradients take the mirror image's row.
#[derive(Clone)]
pub struct FaceValues {
    pub w: Vec<f64>,
}

impl FaceValues {
    pub fn new(f: &Faces) -> FaceValues {
        FaceValues { w: vec![0.0; f.len()] }
    }

    pub fn refresh(&mut self, f: &Faces, u: [&[f64]; 3]) {
        for i in 0..f.len() {
            if f.role[i] == Role::Symmetry {
                let o = f.owner[i] as usize;
                self.w[i] = dot([u[0][o], u[1][o], u[2][o]], f.normal[i]);
            }
        }
    }
}

/// The implicit part of the symmetry planes' viscous flux of component k, a n_k^2 per face on
/// its owner's diagonal (`cpu::laplacian`'s extra entries).
pub fn symmetry_diagonal(f: &Faces, k: usize) -> Vec<(usize, f64)> {
    (0..f.len())
        .filter(|&i| f.role[i] == Role::Symmetry)
        .map(|i| (f.owner[i] as usize, f.a[i] * f.normal[i][k] * f.normal[i][k]))
        .collect()
}

/// Faces as arrays (structure of arrays, `u32` connectivity).
pub struct Faces {
    pub owner: Vec<u32>,
    /// The neighbour cell; `u32::MAX` on the boundary.
    pub neigh: Vec<u32>,
    pub role: Vec<Role>,
    pub patch: Vec<u32>,
    pub area: Vec<f64>,
    /// Unit normal, out of the owner.
    pub normal: Vec<[f64; 3]>,
    pub centre: Vec<[f64; 3]>,
    /// Owner centroid to neighbour centroid (or to the face centre on the boundary).
    pub d: Vec<[f64; 3]>,
    /// Owner's weight of the linear interpolation to the face (1 on the boundary).
    pub w: Vec<f64>,
    pub a: Vec<f64>,
    pub k: Vec<[f64; 3]>,
    /// Velocity on faces where it is given (inlet; zero on walls).
    pub ub: Vec<[f64; 3]>,
    /// Pressure on outlet faces.
    pub pb: Vec<f64>,
    /// Per cell, the face index of each local face and whether the cell owns it.
    pub of_cell: Vec<[(u32, bool); 4]>,
    /// Per face, the vector added to the neighbour's coordinates to place it next to the owner
    /// (zero off periodic faces); empty when the mesh has no periodic faces (`mesh::periodic`).
    pub shift: Vec<[f64; 3]>,
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// The centre of face f of cell c.
fn face_centre(g: &TetGeometry<f64>, c: usize, f: usize) -> [f64; 3] {
    let mut x = [0.0; 3];
    for &k in &FACE_VERTS[f] {
        let n = g.nodes[g.cells[c][k] as usize];
        for i in 0..3 {
            x[i] += n[i] / 3.0;
        }
    }
    x
}

/// The local face of cell c's neighbour across face l that leads back: the one that points to c
/// with the opposite shift (a cell can meet the same neighbour twice across a periodic box).
fn back_face(g: &TetGeometry<f64>, c: usize, l: usize) -> usize {
    let m = g.neighbours[c][l] as usize;
    let s = g.periodic.shift(c, l).unwrap_or([0.0; 3]);
    (0..4)
        .find(|&j| {
            let t = g.periodic.shift(m, j).unwrap_or([0.0; 3]);
            g.neighbours[m][j] as usize == c && (0..3).all(|k| (s[k] + t[k]).abs() <= 1e-12 * (1.0 + s[k].abs()))
        })
        .expect("every interior face has its other side")
}

/// a and k of a face from A, n and d (see the module comment); n . d is kept above 5 % of |d|
/// so that a degenerate face cannot make a huge or negative coefficient.
pub fn coefficients(area: f64, n: [f64; 3], d: [f64; 3], how: NonOrthogonal) -> (f64, [f64; 3]) {
    let dd = dot(d, d);
    let nd = dot(n, d).max(0.05 * dd.sqrt());
    let a = match how {
        NonOrthogonal::OverRelaxed | NonOrthogonal::None => area / nd,
        NonOrthogonal::Minimum => area * nd / dd,
    };
    let k = match how {
        NonOrthogonal::None => [0.0; 3],
        _ => std::array::from_fn(|i| area * n[i] - a * d[i]),
    };
    (a, k)
}

impl Faces {
    /// The faces of g; `roles[patch]` gives each boundary patch's role.
    pub fn build(g: &TetGeometry<f64>, roles: &[Role], how: NonOrthogonal) -> Faces {
        let n = g.num_cells();
        let mut f = Faces {
            owner: vec![],
            neigh: vec![],
            role: vec![],
            patch: vec![],
            area: vec![],
            normal: vec![],
            centre: vec![],
            d: vec![],
            w: vec![],
            a: vec![],
            k: vec![],
            ub: vec![],
            pb: vec![],
            of_cell: vec![[(0, true); 4]; n],
            shift: vec![],
        };
        for c in 0..n {
            for l in 0..4 {
                let nb = g.neighbours[c][l];
                if !is_boundary(nb) && (nb as usize) < c {
                    continue;
                }
                let idx = f.owner.len() as u32;
                f.of_cell[c][l] = (idx, true);
                f.push(g, c, l, roles, how);
                if !is_boundary(nb) {
                    let m = nb as usize;
                    let back = back_face(g, c, l);
                    f.of_cell[m][back] = (idx, false);
                }
            }
        }
        f
    }

    fn push(&mut self, g: &TetGeometry<f64>, c: usize, l: usize, roles: &[Role], how: NonOrthogonal) {
        let nb = g.neighbours[c][l];
        let xf = face_centre(g, c, l);
        let n = g.face_normals[c][l];
        let area = g.face_areas[c][l];
        let xp = g.centroids[c];
        let shift = g.periodic.shift(c, l);
        if g.periodic.is_periodic() {
            self.shift.push(shift.unwrap_or([0.0; 3]));
        }
        let (neigh, role, patch, d, w) = if is_boundary(nb) {
            let p = patch_of(nb);
            (u32::MAX, roles[p as usize], p, sub(xf, xp), 1.0)
        } else {
            // Across a periodic face, the neighbour's centroid in the owner's frame.
            let xn = g.centroids[nb as usize];
            let xn = shift.map_or(xn, |s| std::array::from_fn(|i| xn[i] + s[i]));
            let (dp, dn) = (dot(sub(xf, xp), n).abs(), dot(sub(xn, xf), n).abs());
            let w = if dp + dn > 0.0 { dn / (dp + dn) } else { 0.5 };
            (nb, Role::Interior, u32::MAX, sub(xn, xp), w.clamp(0.05, 0.95))
        };
        let (a, k) = coefficients(area, n, d, how);
        self.owner.push(c as u32);
        self.neigh.push(neigh);
        self.role.push(role);
        self.patch.push(patch);
        self.area.push(area);
        self.normal.push(n);
        self.centre.push(xf);
        self.d.push(d);
        self.w.push(w);
        self.a.push(a);
        self.k.push(k);
        self.ub.push([0.0; 3]);
        self.pb.push(0.0);
    }

    pub fn len(&self) -> usize {
        self.owner.len()
    }

    /// Cell c's vector to the other cell across its face (i, own): ±d, the neighbour's centroid
    /// shifted across a periodic face (for an ordinary face exactly x_other - x_c).
    #[inline]
    pub fn to_other(&self, i: usize, own: bool) -> [f64; 3] {
        let d = self.d[i];
        if own {
            d
        } else {
            [-d[0], -d[1], -d[2]]
        }
    }

    pub fn is_empty(&self) -> bool {
        self.owner.is_empty()
    }

    /// The faces of one patch.
    pub fn of_patch(&self, patch: u32) -> impl Iterator<Item = usize> + '_ {
        (0..self.len()).filter(move |&i| self.patch[i] == patch)
    }
}

/// The velocity an inlet patch gives at a point: uniform, or the parabolic profile over the
/// patch's box (the point clamped into it).
#[derive(Clone, Debug)]
pub enum InletProfile {
    Uniform([f64; 3]),
    Parabolic {
        lo: [f64; 3],
        hi: [f64; 3],
        axes: Vec<usize>,
        u_max: f64,
        dir: [f64; 3],
    },
}

impl InletProfile {
    pub fn at(&self, x: [f64; 3]) -> [f64; 3] {
        match self {
            InletProfile::Uniform(v) => *v,
            InletProfile::Parabolic { lo, hi, axes, u_max, dir } => {
                let x = std::array::from_fn(|i| x[i].clamp(lo[i], hi[i]));
                parabolic(x, *lo, *hi, axes, *u_max, *dir)
            }
        }
    }
}

/// The parabolic inlet profile: u_max times 4 s (1 - s) over each axis in `across` of the
/// patch's bounding box (lo, hi), along `dir`.
pub fn parabolic(x: [f64; 3], lo: [f64; 3], hi: [f64; 3], across: &[usize], u_max: f64, dir: [f64; 3]) -> [f64; 3] {
    let mut s = u_max;
    for &a in across {
        let t = (x[a] - lo[a]) / (hi[a] - lo[a]);
        s *= 4.0 * t * (1.0 - t);
    }
    dir.map(|d| s * d)
}

/// The bounding box of a patch's faces (their vertices), and the unit inward normal (the
/// negated mean outward normal).
pub fn patch_box(g: &TetGeometry<f64>, patch: u32) -> ([f64; 3], [f64; 3], [f64; 3]) {
    let (mut lo, mut hi, mut nsum) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3], [0.0; 3]);
    for c in 0..g.num_cells() {
        for l in 0..4 {
            let nb = g.neighbours[c][l];
            if !is_boundary(nb) || patch_of(nb) != patch {
                continue;
            }
            for &k in &FACE_VERTS[l] {
                let x = g.nodes[g.cells[c][k] as usize];
                for i in 0..3 {
                    lo[i] = lo[i].min(x[i]);
                    hi[i] = hi[i].max(x[i]);
                }
            }
            for i in 0..3 {
                nsum[i] += g.face_normals[c][l][i] * g.face_areas[c][l];
            }
        }
    }
    let len = dot(nsum, nsum).sqrt().max(1e-300);
    (lo, hi, nsum.map(|v| -v / len))
}
