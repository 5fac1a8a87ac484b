//! Velocity fields with their gradients (the trajectory formula needs both): analytic ones
//! placed relative to the mesh's bounding box, or a cell field from a previous run (a VTU file
//! with one vector per cell of this mesh), whose Jacobian is its least-squares gradient.

use super::geometry::arr;
use super::interp::lsq_gradient;
use crate::error::{Result, SolverError};
use crate::real::Real;
use meshtool::PreparedMesh;
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;
use std::path::Path;
use std::sync::Arc;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum VelocitySpec {
    /// Uniform velocity `speed` along +x (the paper's test); reversed after `reverse_after`
    /// steps when set (the back-and-forth test).
    Constant {
        #[serde(default = "one")]
        speed: f64,
        #[serde(default)]
        reverse_after: Option<u64>,
    },
    /// Solid-body rotation about the z axis through the box centre, `omega` rad per unit time.
    Rotation {
        #[serde(default = "two_pi")]
        omega: f64,
    },
    /// LeVeque's 3D deformation field on the box mapped to the unit cube, period `period`:
    /// the flow reverses at t = period / 2 and the exact solution at t = period is the initial.
    Deformation {
        #[serde(default = "one")]
        period: f64,
    },
    /// A steady cell field from a previous run: the vector cell array `array` of the VTU file
    /// `file` (relative to the case file; a `.pvd` series stands for its latest output),
    /// written on this same prepared mesh.
    Field {
        file: String,
        #[serde(default = "velocity_array")]
        array: String,
    },
}

fn one() -> f64 {
    1.0
}
fn two_pi() -> f64 {
    2.0 * PI
}
fn velocity_array() -> String {
    "velocity".into()
}

/// A cell velocity field and its Jacobian J[a][b] = d v_a / d x_b per cell.
pub struct CellVelocity<R> {
    pub v: Vec<[R; 3]>,
    pub jac: Vec<[[R; 3]; 3]>,
    pub max_speed: f64,
}

/// A velocity field ready to evaluate: spec + box (+ the cell field for `field`).
#[derive(Clone)]
pub struct Velocity<R> {
    pub spec: VelocitySpec,
    pub lo: [f64; 3],
    pub len: [f64; 3],
    pub cells: Option<Arc<CellVelocity<R>>>,
}

impl<R: Real> Velocity<R> {
    /// Velocity and its Jacobian J[a][b] = d v_a / d x_b at (x, t), x being the centroid of
    /// `cell`; `step` is the step index, for fields that reverse after a number of steps.
    /// Evaluated in R with the constants rounded to R, as the CUDA kernel does.
    pub fn eval(&self, x: [R; 3], cell: usize, t: R, step: u64) -> ([R; 3], [[R; 3]; 3]) {
        let zero = R::zero();
        let lo: [R; 3] = arr(self.lo);
        let len: [R; 3] = arr(self.len);
        match &self.spec {
            VelocitySpec::Constant { speed, reverse_after } => {
                let s = if reverse_after.is_some_and(|n| step >= n) {
                    -R::of(*speed)
                } else {
                    R::of(*speed)
                };
                ([s, zero, zero], [[zero; 3]; 3])
            }
            VelocitySpec::Rotation { omega } => {
                let w = R::of(*omega);
                let half = R::of(0.5);
                let (dx, dy) = (x[0] - (lo[0] + half * len[0]), x[1] - (lo[1] + half * len[1]));
                ([-w * dy, w * dx, zero], [[zero, -w, zero], [w, zero, zero], [zero; 3]])
            }
            VelocitySpec::Deformation { period } => {
                // On the unit cube (s = (x - lo) / len): LeVeque (1996), scaled back to the box.
                let pi = R::of(PI);
                let (two, four) = (R::of(2.0), R::of(4.0));
                let s: [R; 3] = std::array::from_fn(|k| (x[k] - lo[k]) / len[k]);
                let g = (pi * t / R::of(*period)).cos();
                let (sx, sy, sz) = ((pi * s[0]).sin(), (pi * s[1]).sin(), (pi * s[2]).sin());
                let (s2x, s2y, s2z) = (
                    (two * pi * s[0]).sin(),
                    (two * pi * s[1]).sin(),
                    (two * pi * s[2]).sin(),
                );
                let (c2x, c2y, c2z) = (
                    (two * pi * s[0]).cos(),
                    (two * pi * s[1]).cos(),
                    (two * pi * s[2]).cos(),
                );
                let u = [two * sx * sx * s2y * s2z, -s2x * sy * sy * s2z, -s2x * s2y * sz * sz];
                // d/ds of each component (sin^2(pi s))' = pi sin(2 pi s).
                let du = [
                    [
                        two * pi * s2x * s2y * s2z,
                        four * pi * sx * sx * c2y * s2z,
                        four * pi * sx * sx * s2y * c2z,
                    ],
                    [
                        -two * pi * c2x * sy * sy * s2z,
                        -pi * s2x * s2y * s2z,
                        -two * pi * s2x * sy * sy * c2z,
                    ],
                    [
                        -two * pi * c2x * s2y * sz * sz,
                        -two * pi * s2x * c2y * sz * sz,
                        -pi * s2x * s2y * s2z,
                    ],
                ];
                let v = std::array::from_fn(|a| g * u[a] * len[a]);
                let j = std::array::from_fn(|a| std::array::from_fn(|b| g * du[a][b] * len[a] / len[b]));
                (v, j)
            }
            VelocitySpec::Field { .. } => {
                let f = self.cells.as_ref().expect("loaded at prepare");
                (f.v[cell], f.jac[cell])
            }
        }
    }

    /// Largest speed over the box (for the time step).
    pub fn max_speed(&self) -> f64 {
        match self.spec {
            VelocitySpec::Constant { speed, .. } => speed.abs(),
            VelocitySpec::Rotation { omega } => {
                omega.abs() * 0.5 * (self.len[0] * self.len[0] + self.len[1] * self.len[1]).sqrt()
            }
            VelocitySpec::Deformation { .. } => 2.0 * self.len.iter().cloned().fold(0.0, f64::max),
            VelocitySpec::Field { .. } => self.cells.as_ref().map_or(0.0, |f| f.max_speed),
        }
    }

    /// Where the material now at x was at time 0, where that is known in closed form.
    pub fn origin(&self, x: [f64; 3], t: f64, steps: u64) -> Option<[f64; 3]> {
        match self.spec {
            VelocitySpec::Constant { speed, reverse_after } => {
                let forward = reverse_after.map_or(steps, |n| n.min(steps));
                let back = steps - forward;
                let dt = t / steps.max(1) as f64;
                Some([x[0] - speed * dt * (forward as f64 - back as f64), x[1], x[2]])
            }
            VelocitySpec::Rotation { omega } => {
                let c: [f64; 3] = std::array::from_fn(|k| self.lo[k] + 0.5 * self.len[k]);
                let (s, co) = (-omega * t).sin_cos();
                let (dx, dy) = (x[0] - c[0], x[1] - c[1]);
                Some([c[0] + co * dx - s * dy, c[1] + s * dx + co * dy, x[2]])
            }
            VelocitySpec::Deformation { period } => ((t - period).abs() < 1e-12 * period).then_some(x),
            VelocitySpec::Field { .. } => None,
        }
    }
}

/// Reads the vector cell array `array` of the VTU file `path` and checks that the file was
/// written on `mesh` (same cells, same order); returns the field with its least-squares
/// Jacobian, in precision R. Errors are bad input of `key` in `case_file`.
pub fn load_cell_velocity<R: Real>(
    path: &Path,
    array: &str,
    mesh: &PreparedMesh,
    case_file: &Path,
    key: &str,
) -> Result<CellVelocity<R>> {
    use vtkio::model::{Attribute, DataSet, VertexNumbers};
    let fail = |what: String| SolverError::config(case_file, key, format!("{}: {what}", path.display()));
    // A series: its latest output.
    let series_file;
    let path = if path.extension().is_some_and(|e| e == "pvd") && path.is_file() {
        series_file =
            crate::output::pvd::Series::last_file(path).ok_or_else(|| fail("the series lists no data set".into()))?;
        series_file.as_path()
    } else {
        path
    };
    if !path.is_file() {
        return Err(fail(
            "no such file (a relative path is taken from the case file's folder); give a .vtu a run wrote on this mesh"
                .into(),
        ));
    }
    let vtk = vtkio::Vtk::import(path).map_err(|e| fail(format!("cannot read it as VTK XML: {e}")))?;
    let DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
        return Err(fail(
            "not an unstructured grid (.vtu); give a cell field written by `solver run` on this mesh".into(),
        ));
    };
    let piece = pieces
        .into_iter()
        .next()
        .ok_or_else(|| fail("it holds no data".into()))?
        .into_loaded_piece_data(None)
        .map_err(|e| fail(format!("cannot load its data: {e}")))?;
    let n = mesh.num_cells();
    let same_cells = match &piece.cells.cell_verts {
        VertexNumbers::XML { connectivity, .. } => {
            connectivity.len() == 4 * n
                && connectivity
                    .iter()
                    .zip(mesh.topo.cells.iter().flatten())
                    .all(|(&a, &b)| a == b as u64)
        }
        VertexNumbers::Legacy { .. } => false,
    };
    if !same_cells {
        return Err(fail(format!(
            "its cells are not those of the prepared mesh ({} cells, in the prepared order); \
             write the field with `solver run` on the same .pmesh",
            n
        )));
    }
    let names: Vec<String> = piece.data.cell.iter().map(|a| a.name().to_string()).collect();
    let data = piece
        .data
        .cell
        .into_iter()
        .find_map(|a| match a {
            Attribute::DataArray(d) if d.name == array => Some(d),
            _ => None,
        })
        .ok_or_else(|| {
            fail(format!(
                "no cell array named '{array}' (it has: {}); set `array`",
                names.join(", ")
            ))
        })?;
    let comps = data.num_comp();
    let values: Vec<f64> = data
        .data
        .cast_into::<f64>()
        .ok_or_else(|| fail(format!("cell array '{array}' is not numeric")))?;
    if comps != 3 || values.len() != 3 * n {
        return Err(fail(format!(
            "cell array '{array}' has {comps} components and {} values; a velocity needs 3 per cell ({})",
            values.len(),
            3 * n
        )));
    }
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(fail(format!("cell array '{array}' is not finite at cell {}", i / 3)));
    }
    let v: Vec<[f64; 3]> = values.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
    let t = &mesh.topo;
    use rayon::prelude::*;
    let jac: Vec<[[f64; 3]; 3]> = (0..n)
        .into_par_iter()
        .map(|c| std::array::from_fn(|a| lsq_gradient(&t.centroids, &t.neighbours, c, |d| v[d][a])))
        .collect();
    let max_speed = v
        .iter()
        .map(|x| (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt())
        .fold(0.0, f64::max);
    Ok(CellVelocity {
        v: v.into_iter().map(arr).collect(),
        jac: jac.into_iter().map(|j| j.map(arr)).collect(),
        max_speed,
    })
}

/// The explicit second-order departure point (Evstigneev eq. 8-10): the midpoint rule with the
/// velocity linearised about the arrival point x (the centroid of `cell`),
///   (I + dt/2 J) (x - x*) = dt/2 (V(x, t) + V(x, t + dt)),
/// solved exactly (3x3); `sign` = -1 traces the reversed field (BFECC's backward step).
pub fn departure<R: Real>(v: &Velocity<R>, x: [R; 3], cell: usize, t: R, dt: R, step: u64, sign: R) -> [R; 3] {
    let (v0, j) = v.eval(x, cell, t, step);
    let (v1, _) = v.eval(x, cell, t + dt, step);
    let h = R::of(0.5) * dt * sign;
    let rhs: [R; 3] = std::array::from_fn(|a| h * (v0[a] + v1[a]));
    let m: [[R; 3]; 3] =
        std::array::from_fn(|a| std::array::from_fn(|b| if a == b { R::one() } else { R::zero() } + h * j[a][b]));
    let d = solve3(m, rhs);
    [x[0] - d[0], x[1] - d[1], x[2] - d[2]]
}

/// Solve a 3x3 system; zero when it is singular (e.g. too few neighbours for a gradient).
pub fn solve3_or_zero<R: Real>(m: [[R; 3]; 3], b: [R; 3]) -> [R; 3] {
    let x = solve3(m, b);
    if x.iter().all(|v| v.is_finite()) {
        x
    } else {
        [R::zero(); 3]
    }
}

/// Cramer's rule (the CUDA kernel's solve3 does the same).
fn solve3<R: Real>(m: [[R; 3]; 3], b: [R; 3]) -> [R; 3] {
    let det = |m: [[R; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d = det(m);
    std::array::from_fn(|col| {
        let mut mc = m;
        for r in 0..3 {
            mc[r][col] = b[r];
        }
        det(mc) / d
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deformation_jacobian_matches_finite_differences() {
        let v = Velocity::<f64> {
            spec: VelocitySpec::Deformation { period: 1.0 },
            lo: [0.0, -1.0, 2.0],
            len: [1.0, 2.0, 0.5],
            cells: None,
        };
        let x = [0.3, -0.2, 2.1];
        let (_, j) = v.eval(x, 0, 0.2, 0);
        for b in 0..3 {
            let mut xp = x;
            let mut xm = x;
            xp[b] += 1e-6;
            xm[b] -= 1e-6;
            let (vp, _) = v.eval(xp, 0, 0.2, 0);
            let (vm, _) = v.eval(xm, 0, 0.2, 0);
            for a in 0..3 {
                let fd = (vp[a] - vm[a]) / 2e-6;
                assert!(
                    (fd - j[a][b]).abs() < 1e-6 * (1.0 + fd.abs()),
                    "J[{a}][{b}] {} vs {fd}",
                    j[a][b]
                );
            }
        }
    }

    #[test]
    fn rotation_departure_is_second_order() {
        let v = Velocity::<f64> {
            spec: VelocitySpec::Rotation { omega: 1.0 },
            lo: [-1.0; 3],
            len: [2.0; 3],
            cells: None,
        };
        let x = [0.5, 0.0, 0.0];
        let err = |dt: f64| {
            let d = departure(&v, x, 0, 0.0, dt, 0, 1.0);
            let exact = v.origin(x, dt, 1).unwrap();
            ((d[0] - exact[0]).powi(2) + (d[1] - exact[1]).powi(2)).sqrt()
        };
        let order = (err(0.1) / err(0.05)).log2();
        assert!(order > 2.8, "local error order {order}"); // local O(dt^3) -> global O(dt^2)
    }
}
