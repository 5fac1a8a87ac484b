//! The force a flow exerts on named boundary patches (drag and lift of a body), from the cell
//! pressure and velocity, and the force coefficients C = 2F / (rho U^2 A).
//!
//! Sign: the force exerted BY the fluid ON the body (or wall). The face normals n_f point out
//! of the fluid cell, i.e. into the body, so with the stress sigma = -p I + mu (grad u +
//! grad u^T) and the body's outward normal -n_f,
//!   F = sum_f [ p_f n_f - mu (du/dn_f) ] A_f   (a rigid no-slip wall: the viscous traction is
//!       the wall shear; du_n/dn = 0 there by continuity, and grad u^T . n vanishes).
//! For a body surrounded by fluid a hydrostatic pressure p = -rho g z gives the buoyancy
//! +rho g V z; for the walls of a box that holds the fluid, p = a x gives +a V x (the fluid
//! pushes the far wall harder).
//!
//! Pressure part: p_f = p_c + grad p_c . (x_f - x_c), the cell value carried to the face
//! centroid with the cell's least-squares gradient (exact for linear p).
//!
//! Viscous part (the choice, and why): the wall-normal derivative from the cell value and the
//! wall velocity over the wall distance d = n_f . (x_f - x_c), with two corrections that make
//! it exact for any linear velocity that satisfies the no-slip condition and cost only the
//! wall cells' gradients:
//! - the cell value is moved tangentially, with the cell's velocity gradient, from the
//!   centroid to the point P = x_f - d n_f straight above the face centroid, so that the shear
//!   is that of the face, not of the centroid's foot (which can lie off the face on skewed
//!   cells; the usual non-orthogonal correction). Only tangential derivatives enter, so the
//!   one-sided gradient's error in the normal direction does not;
//! - the normal component of (u_P - u_wall) is removed: at a no-slip wall du_n/dn = 0, while
//!   u_n grows as d^2, so keeping it would add an O(d) normal "shear" that does not exist.
//!
//! A second-order one-sided fit in the normal direction (u_wall, u_c and the cell's normal
//! derivative) was not taken: the cell gradient next to a wall is itself a one-sided fit with
//! an O(h) error, which that fit would carry into the wall shear undamped.
//!
//! `with_fits` replaces that viscous part by the wall flux the Navier-Stokes momentum equation
//! itself applies with `face_gradients = "fits"` or "wall-fits": du/dn_f = n_f . g_f, g_f the mean of the face's
//! three vertex quadratic fits' gradients at the face centroid (exact for quadratic velocities),
//! its normal component removed as above. The force is then the momentum the walls take out of
//! the discrete flow, and it converges at second order in the wall spacing, where the formula
//! above is first order (O(d) low on a curved profile).
//!
//! Needs from a family: its `TetGeometry`, the cell pressure and velocity, the viscosity and
//! the wall's velocity (`FlowFields`); for `with_fits`, vertex quadratic fits of the velocity
//! (`numerics::sl::quadratic`).

use crate::error::{Result, SolverError};
use crate::mesh::vertex_gradients::{stencil_gradient, vertex_neighbours, Placed};
use crate::mesh::TetGeometry;
use crate::numerics::sl::quadratic::{self, QuadFit, REC};
use crate::real::Real;
use meshtool::topology::{is_boundary, patch_of, FACE_VERTS};
use rayon::prelude::*;
use std::sync::Arc;

/// A force split into its pressure and viscous parts (by the fluid on the body).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Force {
    pub pressure: [f64; 3],
    pub viscous: [f64; 3],
}

impl Force {
    pub fn total(&self) -> [f64; 3] {
        std::array::from_fn(|k| self.pressure[k] + self.viscous[k])
    }
}

/// The scale of the force coefficients: C = 2 F / (rho U^2 A).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Normalisation {
    pub density: f64,
    pub velocity: f64,
    pub area: f64,
}

impl Normalisation {
    /// 2 f / (rho U^2 A) for each component: (Cd, Cl, Cz) for a flow along x, lift along y.
    pub fn coefficients(&self, f: [f64; 3]) -> [f64; 3] {
        f.map(|f| 2.0 * f / (self.density * self.velocity * self.velocity * self.area))
    }
}

/// The index of the patch `name` in the prepared mesh's patch table (the id boundary
/// neighbours carry); the error lists the patches the mesh has.
pub fn patch_id(patches: &[meshtool::pmesh::Patch], name: &str) -> Result<u32> {
    patches
        .iter()
        .position(|p| p.name == name)
        .map(|i| i as u32)
        .ok_or_else(|| {
            let names: Vec<&str> = patches.iter().map(|p| p.name.as_str()).collect();
            SolverError::Other(format!(
                "the mesh has no boundary patch '{name}' (it has: {}); name one of those, or mesh with that patch",
                names.join(", ")
            ))
        })
}

/// One wall face: its cell, area vector parts, vertices and the cell's vertex-neighbourhood
/// stencil.
struct WallFace {
    cell: u32,
    normal: [f64; 3],
    area: f64,
    centroid: [f64; 3],
    verts: [u32; 3],
    stencil: Vec<Placed>,
}

/// The wall shear from vertex quadratic fits (`PatchForce::with_fits`).
struct WallFits {
    fit: Arc<QuadFit<f64>>,
    /// The fits' Dirichlet value per patch, per velocity component.
    bc: [Vec<f64>; 3],
    /// The vertices of the faces, each once, and each face's three as indices into them.
    verts: Vec<u32>,
    of_face: Vec<[u32; 3]>,
}

/// The faces of a set of boundary patches, prepared once (their geometry and their cells'
/// gradient stencils); `force` then evaluates the force for the current fields.
pub struct PatchForce {
    faces: Vec<WallFace>,
    fits: Option<WallFits>,
}

/// The fields and the wall's viscosity and velocity a force is evaluated for.
pub struct FlowFields<'a, R> {
    /// Cell pressure (kinematic or not: the force has the pressure's units times area).
    pub pressure: &'a [R],
    /// Cell velocity, one array per component.
    pub velocity: [&'a [R]; 3],
    /// Dynamic viscosity mu (= rho nu; nu itself where the pressure is kinematic).
    pub viscosity: f64,
    /// The no-slip wall's velocity (zero for a body at rest; its tangential part counts).
    pub wall_velocity: [f64; 3],
}

impl PatchForce {
    /// The faces of `patches` (ids as `patch_id` gives them). An empty set is an error naming
    /// the patch ids, since a force on nothing is always a mistake.
    pub fn new<R: Real>(m: &TetGeometry<R>, patches: &[u32]) -> Result<PatchForce> {
        let mut faces = Vec::new();
        for c in 0..m.num_cells() {
            for f in 0..4 {
                let nb = m.neighbours[c][f];
                if !is_boundary(nb) || !patches.contains(&patch_of(nb)) {
                    continue;
                }
                let mut stencil = Vec::new();
                vertex_neighbours(m, c, &mut stencil);
                let verts = FACE_VERTS[f].map(|k| m.cells[c][k]);
                let pts = verts.map(|v| m.nodes[v as usize]);
                faces.push(WallFace {
                    cell: c as u32,
                    normal: m.face_normals[c][f].map(|x| x.f64()),
                    area: m.face_areas[c][f].f64(),
                    centroid: std::array::from_fn(|k| (pts[0][k].f64() + pts[1][k].f64() + pts[2][k].f64()) / 3.0),
                    verts,
                    stencil,
                });
            }
        }
        if faces.is_empty() {
            return Err(SolverError::Other(format!(
                "no boundary face lies on the patches {patches:?}"
            )));
        }
        Ok(PatchForce { faces, fits: None })
    }

    /// The viscous part from the vertex quadratic fits `fit` of the velocity components (their
    /// Dirichlet values per patch `bc`) instead of the wall-distance formula (module comment).
    pub fn with_fits(mut self, fit: Arc<QuadFit<f64>>, bc: [Vec<f64>; 3]) -> PatchForce {
        let mut verts: Vec<u32> = self.faces.iter().flat_map(|w| w.verts).collect();
        verts.sort_unstable();
        verts.dedup();
        let at = |v: u32| verts.binary_search(&v).expect("listed above") as u32;
        let of_face = self.faces.iter().map(|w| w.verts.map(at)).collect();
        self.fits = Some(WallFits {
            fit,
            bc,
            verts,
            of_face,
        });
        self
    }

    /// The number of faces the force sums over.
    pub fn num_faces(&self) -> usize {
        self.faces.len()
    }

    /// The total wetted area of the patches.
    pub fn area(&self) -> f64 {
        self.faces.iter().map(|f| f.area).sum()
    }

    /// The cells `force` reads, ascending: each face's cell and its gradient stencil (a
    /// backend that keeps the fields elsewhere fetches only these, `force_by`).
    pub fn cells(&self) -> Vec<u32> {
        let mut out: Vec<u32> = self
            .faces
            .iter()
            .flat_map(|w| std::iter::once(w.cell).chain(w.stencil.iter().map(|p| p.0)))
            .collect();
        if let Some(wf) = &self.fits {
            out.extend(
                wf.verts
                    .iter()
                    .flat_map(|&v| quadratic::stencil_cells(&wf.fit, v as usize)),
            );
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The force by the fluid on the patches (see the module comment for the formulas).
    pub fn force<R: Real>(&self, m: &TetGeometry<R>, s: &FlowFields<R>) -> Force {
        let p = |c: usize| s.pressure[c].f64();
        let u = |i: usize, c: usize| s.velocity[i][c].f64();
        self.force_by(m, s.viscosity, s.wall_velocity, p, u)
    }

    /// `force` with the cell values given by functions: the pressure p(cell) and the velocity
    /// u(component, cell), read only at `cells()`. The faces are evaluated in parallel and
    /// summed in their order (the same bits on every run).
    pub fn force_by<R: Real>(
        &self,
        m: &TetGeometry<R>,
        viscosity: f64,
        wall_velocity: [f64; 3],
        p: impl Fn(usize) -> f64 + Sync,
        u: impl Fn(usize, usize) -> f64 + Sync,
    ) -> Force {
        // The vertex fits of the three components (fits only), each vertex once.
        let recs: Vec<[[f64; REC]; 3]> = match &self.fits {
            None => Vec::new(),
            Some(wf) => wf
                .verts
                .par_iter()
                .map(|&v| {
                    std::array::from_fn(|k| {
                        let mut r = [0.0; REC];
                        quadratic::fit_vertex(&wf.fit, v as usize, &wf.bc[k], |c| u(k, c), &mut r);
                        r
                    })
                })
                .collect(),
        };
        let parts: Vec<Force> = (0..self.faces.len())
            .into_par_iter()
            .map(|i| self.face_force(m, i, viscosity, wall_velocity, &recs, &p, &u))
            .collect();
        let mut out = Force::default();
        for f in &parts {
            for k in 0..3 {
                out.pressure[k] += f.pressure[k];
                out.viscous[k] += f.viscous[k];
            }
        }
        out
    }

    /// Face i's share of the force (`recs`: the vertex fits, with `fits`).
    #[allow(clippy::too_many_arguments)]
    fn face_force<R: Real>(
        &self,
        m: &TetGeometry<R>,
        i: usize,
        viscosity: f64,
        wall_velocity: [f64; 3],
        recs: &[[[f64; REC]; 3]],
        p: &impl Fn(usize) -> f64,
        u: &impl Fn(usize, usize) -> f64,
    ) -> Force {
        let w = &self.faces[i];
        let c = w.cell as usize;
        let xc = m.centroids[c].map(|x| x.f64());
        let to_face: [f64; 3] = std::array::from_fn(|k| w.centroid[k] - xc[k]);
        let d = dot(w.normal, to_face);
        let gp = stencil_gradient(m, c, &w.stencil, p);
        let pf = p(c) + dot(gp, to_face);
        let mut out = Force::default();
        if let Some(wf) = &self.fits {
            // n . grad u_k at the face centroid from the mean of its vertices' fits.
            let dudn: [f64; 3] = std::array::from_fn(|k| {
                let mut g = [0.0; 3];
                for (j, &v) in wf.of_face[i].iter().enumerate() {
                    let x_v = m.nodes[w.verts[j] as usize].map(|x| x.f64());
                    let dg = quadratic::record_gradient(&recs[v as usize][k], x_v, w.centroid);
                    (0..3).for_each(|d| g[d] += dg[d] / 3.0);
                }
                dot(w.normal, g)
            });
            let nn = dot(dudn, w.normal);
            for k in 0..3 {
                out.pressure[k] = pf * w.normal[k] * w.area;
                out.viscous[k] = -viscosity * (dudn[k] - nn * w.normal[k]) * w.area;
            }
            return out;
        }
        // P - x_c: tangential, from the centroid to the point at distance d above the face centroid.
        let shift: [f64; 3] = std::array::from_fn(|k| to_face[k] - d * w.normal[k]);
        let du: [f64; 3] = std::array::from_fn(|i| {
            let g = stencil_gradient(m, c, &w.stencil, |e| u(i, e));
            u(i, c) + dot(g, shift) - wall_velocity[i]
        });
        let dn = dot(du, w.normal);
        for k in 0..3 {
            out.pressure[k] = pf * w.normal[k] * w.area;
            out.viscous[k] = viscosity * (du[k] - dn * w.normal[k]) / d * w.area;
        }
        out
    }
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{test_box, test_geometry};
    use meshtool::generate::cartesian_box::{generate, BoxSpec};

    const PATCHES: [&str; 6] = ["xmin", "xmax", "ymin", "ymax", "zmin", "zmax"];

    fn cell_values(m: &TetGeometry<f64>, f: impl Fn([f64; 3]) -> f64) -> Vec<f64> {
        m.centroids.iter().map(|&x| f(x)).collect()
    }

    fn fields<'a>(p: &'a [f64], u: &'a [Vec<f64>; 3], mu: f64, wall: [f64; 3]) -> FlowFields<'a, f64> {
        FlowFields {
            pressure: p,
            velocity: [&u[0], &u[1], &u[2]],
            viscosity: mu,
            wall_velocity: wall,
        }
    }

    fn close(a: [f64; 3], b: [f64; 3], tol: f64) -> bool {
        (0..3).all(|k| (a[k] - b[k]).abs() <= tol)
    }

    #[test]
    fn uniform_pressure_on_a_closed_surface_gives_no_force_and_linear_pressure_gives_a_v() {
        let mesh = test_box([3, 4, 5]);
        let m = test_geometry([3, 4, 5]);
        let all: Vec<u32> = PATCHES.iter().map(|n| patch_id(&mesh.patches, n).unwrap()).collect();
        let walls = PatchForce::new(&m, &all).unwrap();
        assert!((walls.area() - 6.0).abs() < 1e-12);
        let zero = [
            vec![0.0; m.num_cells()],
            vec![0.0; m.num_cells()],
            vec![0.0; m.num_cells()],
        ];
        let p = vec![3.7; m.num_cells()];
        let f = walls.force(&m, &fields(&p, &zero, 1.0, [0.0; 3]));
        assert!(close(f.total(), [0.0; 3], 1e-12), "{f:?}");
        // p = a . x: the fluid inside pushes the walls with the integral of grad p over the
        // volume (1): +a; each wall alone gets p at its face centroids exactly.
        let a = [2.0, -0.5, 1.25];
        let p = cell_values(&m, |x| 1.0 + a[0] * x[0] + a[1] * x[1] + a[2] * x[2]);
        let f = walls.force(&m, &fields(&p, &zero, 1.0, [0.0; 3]));
        assert!(close(f.pressure, a, 1e-11) && f.viscous == [0.0; 3], "{f:?}");
        let xmax = PatchForce::new(&m, &[1]).unwrap();
        let on_xmax = xmax.force(&m, &fields(&p, &zero, 1.0, [0.0; 3])).pressure;
        assert!(
            close(on_xmax, [1.0 + a[0] + 0.5 * (a[1] + a[2]), 0.0, 0.0], 1e-11),
            "{on_xmax:?}"
        );
    }

    /// A 6^3 Kuhn box on the unit cube with the cells of the middle cube [1/3, 2/3]^3 removed:
    /// a body in the fluid, its surface the patch "body" (id 6).
    fn box_with_cavity() -> TetGeometry<f64> {
        let mut raw = generate(&BoxSpec {
            dims: [6, 6, 6],
            lo: [0.0; 3],
            hi: [1.0; 3],
        })
        .unwrap();
        let inside = |t: &[u32; 4]| {
            let c: Vec<f64> = (0..3)
                .map(|k| t.iter().map(|&v| raw.nodes[v as usize][k]).sum::<f64>() / 4.0)
                .collect();
            c.iter().all(|&x| x > 1.0 / 3.0 && x < 2.0 / 3.0)
        };
        let (body, fluid): (Vec<[u32; 4]>, Vec<[u32; 4]>) = raw.tets.iter().partition(|t| inside(t));
        let key = |t: &[u32; 4], f: usize| {
            let mut k = FACE_VERTS[f].map(|i| t[i]);
            k.sort_unstable();
            k
        };
        let fluid_faces: std::collections::HashSet<[u32; 3]> =
            fluid.iter().flat_map(|t| (0..4).map(move |f| key(t, f))).collect();
        let mut shared: Vec<[u32; 3]> = body
            .iter()
            .flat_map(|t| (0..4).map(move |f| key(t, f)))
            .filter(|k| fluid_faces.contains(k))
            .collect();
        shared.sort_unstable();
        shared.dedup();
        assert_eq!(
            shared.len(),
            6 * 2 * 4,
            "two triangles per square, 2x2 squares per side"
        );
        raw.tets = fluid;
        raw.boundary_patch.extend(std::iter::repeat_n(6, shared.len()));
        raw.boundary_tris.extend(shared);
        raw.patches.push(meshtool::mesh::PatchDef {
            name: "body".into(),
            tag: 7,
        });
        let mut prepared = meshtool::pmesh::prepare(&raw, meshtool::reorder::Reorder::Rcm)
            .unwrap()
            .0;
        assert_eq!(patch_id(&prepared.patches, "body").unwrap(), 6);
        TetGeometry::take(&mut prepared, &[])
    }

    #[test]
    fn hydrostatic_pressure_gives_the_buoyancy_of_a_body() {
        let m = box_with_cavity();
        let (rho, g) = (1000.0, 9.81);
        let p = cell_values(&m, |x| 1e5 - rho * g * x[2]);
        let zero = [
            vec![0.0; m.num_cells()],
            vec![0.0; m.num_cells()],
            vec![0.0; m.num_cells()],
        ];
        let body = PatchForce::new(&m, &[6]).unwrap();
        assert!((body.area() - 6.0 / 9.0).abs() < 1e-12);
        let f = body.force(&m, &fields(&p, &zero, 1e-3, [0.0; 3]));
        let want = rho * g / 27.0;
        assert!(close(f.total(), [0.0, 0.0, want], 1e-9 * want), "{f:?} against {want}");
    }

    #[test]
    fn linear_shear_gives_the_exact_wall_shear_on_both_walls() {
        let m = test_geometry([4, 5, 3]);
        let (mu, gamma, lid) = (0.01, 3.0, 0.5);
        // u = (lid + gamma y, kappa y^2, 0): the y-min wall moves at `lid`, the y-max wall at
        // lid + gamma; the quadratic normal component must not count (du_n/dn = 0 at a wall).
        let u = [
            cell_values(&m, |x| lid + gamma * x[1]),
            cell_values(&m, |x| 0.7 * x[1] * x[1]),
            vec![0.0; m.num_cells()],
        ];
        let p = vec![0.0; m.num_cells()];
        let ymin = PatchForce::new(&m, &[2]).unwrap();
        let f = ymin.force(&m, &fields(&p, &u, mu, [lid, 0.0, 0.0]));
        assert!(close(f.viscous, [mu * gamma, 0.0, 0.0], 1e-12), "{f:?}");
        let ymax = PatchForce::new(&m, &[3]).unwrap();
        let f = ymax.force(&m, &fields(&p, &u, mu, [lid + gamma, 0.0, 0.0]));
        assert!(close(f.viscous, [-mu * gamma, 0.0, 0.0], 1e-12), "{f:?}");
    }

    /// Plane Poiseuille u = (y (1 - y), 0, 0) between the walls y = 0 and 1 of the unit cube:
    /// the wall shear is mu on each wall. The vertex fits are exact for a quadratic, so
    /// `with_fits` gives it to rounding; the wall-distance formula is first order (u(d)/d =
    /// 1 - d), low by the mean wall distance.
    #[test]
    fn vertex_fits_give_the_exact_shear_of_a_quadratic_profile() {
        let mut mesh = test_box([3, 6, 3]);
        let nan = f64::NAN;
        let bc = [nan, nan, 0.0, 0.0, nan, nan];
        let m = TetGeometry::take(&mut mesh, &bc);
        let mu = 0.01;
        let u = [
            cell_values(&m, |x| x[1] * (1.0 - x[1])),
            vec![0.0; m.num_cells()],
            vec![0.0; m.num_cells()],
        ];
        let p = vec![0.0; m.num_cells()];
        let fit = Arc::new(quadratic::build_weighted(&m, &bc, quadratic::Weighting::Wide));
        for wall in [2, 3] {
            let by_distance = PatchForce::new(&m, &[wall]).unwrap();
            let by_fits = PatchForce::new(&m, &[wall])
                .unwrap()
                .with_fits(fit.clone(), [0, 1, 2].map(|_| bc.to_vec()));
            let fd = by_distance.force(&m, &fields(&p, &u, mu, [0.0; 3])).viscous;
            let ff = by_fits.force(&m, &fields(&p, &u, mu, [0.0; 3])).viscous;
            assert!(close(ff, [mu, 0.0, 0.0], 1e-12), "wall {wall}, fits: {ff:?}");
            // O(d) low (2.3 % here), d below the cells' height 1/6.
            let low = (mu - fd[0]) / mu;
            assert!(
                (0.01..1.0 / 6.0).contains(&low),
                "wall {wall}, distance: {fd:?} ({low:.4} low)"
            );
        }
    }

    /// DFG 3D-1Z (Schaefer & Turek 1996): rho = 1, mean inflow velocity 0.2 (4/9 of
    /// U_max = 0.45), reference area D H = 0.1 x 0.41.
    const DFG_3D: Normalisation = Normalisation {
        density: 1.0,
        velocity: 0.2,
        area: 0.1 * 0.41,
    };

    #[test]
    fn coefficients_use_the_dfg_normalisation_and_unknown_patches_are_named() {
        let c = DFG_3D.coefficients([1.0, 0.5, 0.0]);
        let want = 2.0 / (0.2 * 0.2 * 0.1 * 0.41);
        assert!((c[0] - want).abs() < 1e-9 * want && (c[1] - want / 2.0).abs() < 1e-9 * want);
        let e = patch_id(&test_box([1, 1, 1]).patches, "cylinder")
            .unwrap_err()
            .to_string();
        assert!(e.contains("'cylinder'") && e.contains("xmin, xmax"), "{e}");
        assert!(PatchForce::new(&test_geometry([1, 1, 1]), &[9]).is_err());
    }
}
