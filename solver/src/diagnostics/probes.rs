//! Point probes: cell fields read at fixed points (the DFG pressure difference between the
//! front and the back of the cylinder, velocity in the wake).
//!
//! Each probe is located once (`mesh::locate`); a probe outside the mesh is an error that names
//! it and its coordinates. A value at a probe is the cell value carried from the centroid with
//! the cell's least-squares gradient over the vertex neighbourhood, f_c + grad f . (x - x_c).
//! Chosen over the barycentric interpolation of nodal values because it is exact for linear
//! fields in every cell, wall cells included: nodal values averaged from the cells around a
//! vertex (the Voronoi-dual weights too) are one-sided, hence not exact, on boundary vertices —
//! and the DFG probes sit on the cylinder's surface.
//!
//! Needs from a family: its `TetGeometry` and the cell fields it reads at the probes.

use crate::error::{Result, SolverError};
use crate::mesh::locate::{self, Location, Locator};
use crate::mesh::vertex_gradients::{stencil_gradient, vertex_neighbours};
use crate::mesh::TetGeometry;
use crate::real::Real;

/// A named point.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    pub name: String,
    pub point: [f64; 3],
}

impl Probe {
    pub fn new(name: &str, point: [f64; 3]) -> Probe {
        Probe {
            name: name.into(),
            point,
        }
    }
}

/// Probes located in a mesh.
#[derive(Clone, Debug)]
pub struct Probes {
    probes: Vec<Probe>,
    cells: Vec<u32>,
}

impl Probes {
    /// Locate every probe; the first one outside the mesh is an error naming it.
    pub fn new<R: Real>(m: &TetGeometry<R>, probes: Vec<Probe>) -> Result<Probes> {
        let locator = Locator::new(m, 1000);
        let mut cells = Vec::with_capacity(probes.len());
        for p in &probes {
            match locate(m, &locator, p.point, None) {
                Some(c) => cells.push(c),
                None => {
                    return Err(SolverError::Other(format!(
                        "probe '{}' at ({}, {}, {}) lies outside the mesh; move it into the fluid",
                        p.name, p.point[0], p.point[1], p.point[2]
                    )))
                }
            }
        }
        Ok(Probes { probes, cells })
    }

    /// The probes of a line, in order, up to the first one outside the mesh (the line ends
    /// there). Each walk starts at the cell of the point before, a short walk where the points
    /// are close, so a line of many points does not search the mesh for each.
    pub fn along<R: Real>(m: &TetGeometry<R>, probes: Vec<Probe>) -> Probes {
        let locator = Locator::new(m, 1000);
        let mut cells: Vec<u32> = Vec::with_capacity(probes.len());
        for p in &probes {
            match locate(m, &locator, p.point, cells.last().copied()) {
                Some(c) => cells.push(c),
                None => break,
            }
        }
        let mut probes = probes;
        probes.truncate(cells.len());
        Probes { probes, cells }
    }

    pub fn probes(&self) -> &[Probe] {
        &self.probes
    }

    /// The cell each probe lies in.
    pub fn cells(&self) -> &[u32] {
        &self.cells
    }

    /// The index of the probe `name`.
    pub fn index(&self, name: &str) -> Result<usize> {
        self.probes.iter().position(|p| p.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.probes.iter().map(|p| p.name.as_str()).collect();
            SolverError::Other(format!("no probe named '{name}' (there are: {})", names.join(", ")))
        })
    }

    /// The cells `sample` reads, ascending: each probe's cell and its gradient stencil.
    pub fn stencil_cells<R: Real>(&self, m: &TetGeometry<R>) -> Vec<u32> {
        let (mut out, mut stencil) = (Vec::new(), Vec::new());
        for &c in &self.cells {
            vertex_neighbours(m, c as usize, &mut stencil);
            out.push(c);
            out.extend(stencil.iter().map(|p| p.0));
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The cell field `f` at every probe, in order.
    pub fn sample<R: Real>(&self, m: &TetGeometry<R>, f: &[R]) -> Vec<f64> {
        self.sample_by(m, |c| f[c].f64())
    }

    /// `sample` with the cell values given by a function, read only at `stencil_cells()`.
    pub fn sample_by<R: Real>(&self, m: &TetGeometry<R>, f: impl Fn(usize) -> f64) -> Vec<f64> {
        let mut stencil = Vec::new();
        self.probes
            .iter()
            .zip(&self.cells)
            .map(|(p, &c)| {
                let c = c as usize;
                vertex_neighbours(m, c, &mut stencil);
                let g = stencil_gradient(m, c, &stencil, &f);
                let xc = m.centroids[c];
                f(c) + (0..3).map(|k| g[k] * (p.point[k] - xc[k].f64())).sum::<f64>()
            })
            .collect()
    }

    /// f(from) - f(to) from the probes' samples of a field (`sample`, `sample_by`): the
    /// pressure difference Δp of the DFG benchmark is p(front) - p(back).
    pub fn difference(&self, samples: &[f64], from: &str, to: &str) -> Result<f64> {
        let (a, b) = (self.index(from)?, self.index(to)?);
        Ok(samples[a] - samples[b])
    }
}

/// The cell holding `point`: walked to from `near` where given (falling back to a search when
/// that walk ends elsewhere), else from the nearest centroid (from afar a walk could run into a
/// hole of the mesh, a body in the flow, and stop there); None outside the mesh.
fn locate<R: Real>(m: &TetGeometry<R>, locator: &Locator, point: [f64; 3], near: Option<u32>) -> Option<u32> {
    let x = point.map(R::of);
    if let Some(start) = near {
        if let Location::Inside(c) = locator.locate(m, start, x) {
            if inside(m, c as usize, x) {
                return Some(c);
            }
        }
    }
    let dist = |c: usize| {
        (0..3)
            .map(|k| (m.centroids[c][k].f64() - point[k]).powi(2))
            .sum::<f64>()
    };
    let start = (0..m.num_cells())
        .min_by(|&a, &b| dist(a).total_cmp(&dist(b)))
        .unwrap_or(0);
    match locator.locate(m, start as u32, x) {
        Location::Inside(c) if inside(m, c as usize, x) => Some(c),
        _ => None,
    }
}

/// Whether x lies in cell c (barycentric coordinates at least -1e-9): guards against the
/// locator's last resort, which answers the nearest cell when every walk fails.
fn inside<R: Real>(m: &TetGeometry<R>, c: usize, x: [R; 3]) -> bool {
    locate::barycentric(m, c, x).iter().all(|l| l.f64() >= -1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::test_geometry;

    #[test]
    fn probes_are_exact_for_linear_fields_on_walls_corners_and_inside() {
        let m = test_geometry([5, 4, 3]);
        let lin = |x: [f64; 3]| 0.5 - 2.0 * x[0] + x[1] + 4.0 * x[2];
        let f: Vec<f64> = m.centroids.iter().map(|&x| lin(x)).collect();
        let points = [
            [0.31, 0.47, 0.52],
            [0.0, 0.0, 0.0],
            [1.0, 0.5, 0.2],
            [0.99, 0.01, 0.999],
        ];
        let probes = points
            .iter()
            .enumerate()
            .map(|(i, &x)| Probe::new(&format!("p{i}"), x))
            .collect();
        let probes = Probes::new(&m, probes).unwrap();
        let samples = probes.sample(&m, &f);
        for (v, &x) in samples.iter().zip(&points) {
            assert!((v - lin(x)).abs() < 1e-12, "{x:?}: {v} against {}", lin(x));
        }
        let dp = probes.difference(&samples, "p0", "p2").unwrap();
        assert!((dp - (lin(points[0]) - lin(points[2]))).abs() < 1e-12);
        assert!(probes.index("front").unwrap_err().to_string().contains("p0, p1"));
    }

    #[test]
    fn a_probe_outside_the_mesh_is_named() {
        let m = test_geometry([2, 2, 2]);
        let probes = vec![Probe::new("in", [0.5; 3]), Probe::new("wake", [1.25, 0.5, 0.5])];
        let e = Probes::new(&m, probes).err().unwrap().to_string();
        assert!(
            e.contains("probe 'wake' at (1.25, 0.5, 0.5) lies outside the mesh"),
            "{e}"
        );
    }
}
