//! The family's calls into post-processing: the force on a patch and the pressure at probe
//! points. Every call site goes through these two functions, so that they can be rewired to
//! the shared `mesh` post-processing (forces, probes) in one place when it lands; until then
//! they hold a plain stand-in.

use super::faces::Faces;
use crate::mesh::{Location, Locator, TetGeometry};

/// The force of the fluid on the faces `on` (a wall patch): the pressure extrapolated to each
/// face centre along the owner's gradient, p A n, plus the viscous traction of the no-slip
/// wall, mu A u_t / (d . n), u_t the owner's velocity tangential to the face. n points out of
/// the fluid, so the drag on a body facing the flow is positive along the flow.
pub fn patch_force(faces: &Faces, on: &[usize], u: &[Vec<f64>; 3], p: &[f64], gp: &[[f64; 3]], mu: f64) -> [f64; 3] {
    let mut force = [0.0; 3];
    for &f in on {
        let o = faces.owner[f] as usize;
        let (n, d, area) = (faces.normal[f], faces.d[f], faces.area[f]);
        let pf = p[o] + gp[o][0] * d[0] + gp[o][1] * d[1] + gp[o][2] * d[2];
        let uo = [u[0][o], u[1][o], u[2][o]];
        let un = uo[0] * n[0] + uo[1] * n[1] + uo[2] * n[2];
        let dn = (d[0] * n[0] + d[1] * n[1] + d[2] * n[2]).max(1e-300);
        for k in 0..3 {
            force[k] += pf * area * n[k] + mu * area * (uo[k] - un * n[k]) / dn;
        }
    }
    force
}

/// The cell holding a probe point, or None if the point is outside the mesh.
pub fn locate_probe(geo: &TetGeometry<f64>, x: [f64; 3]) -> Option<usize> {
    let loc = Locator::new(geo, 200);
    let start = (0..geo.num_cells())
        .min_by(|&a, &b| {
            let d = |c: usize| (0..3).map(|k| (geo.centroids[c][k] - x[k]).powi(2)).sum::<f64>();
            d(a).total_cmp(&d(b))
        })
        .unwrap_or(0);
    match loc.locate(geo, start as u32, x) {
        Location::Inside(c) => Some(c as usize),
        Location::Outside { .. } => None,
    }
}

/// The pressure at probe point x in cell c: the cell value carried along its gradient.
pub fn probe_pressure(geo: &TetGeometry<f64>, c: usize, x: [f64; 3], p: &[f64], gp: &[[f64; 3]]) -> f64 {
    let xc = geo.centroids[c];
    p[c] + (0..3).map(|k| gp[c][k] * (x[k] - xc[k])).sum::<f64>()
}
