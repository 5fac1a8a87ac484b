//! The case-side checks of periodic meshes in the Navier-Stokes family (the geometry is
//! `mesh::periodic`): a joined pair of patches is no boundary, so the boundary table
//! must not name it; the interpolation must be one whose tables see across periodic faces; a
//! cell must not meet itself across the domain; and the built-in periodic boxes.

use crate::error::Result;
use crate::framework::CaseDoc;
use crate::numerics::sl::Interpolation;
use meshtool::PreparedMesh;
use std::f64::consts::PI;

/// `builtin:periodic-box-N`: [0, 2 pi]^3 as N^3 Kuhn cubes, periodic along x, y and z (no
/// patches: the pressure needs `pressure_reference`). `builtin:periodic-slab-N`: [0, 2 pi]^2 x
/// [0, 2 pi / N] as N x N x 1 cubes, periodic along x and y, zmin and zmax left as patches
/// (symmetry planes for the 2D Taylor-Green vortex). N from 2 to 128.
pub fn builtin(doc: &CaseDoc, name: &str) -> Option<Result<PreparedMesh>> {
    let (n, slab) = if let Some(n) = name.strip_prefix("builtin:periodic-box-") {
        (n, false)
    } else {
        (name.strip_prefix("builtin:periodic-slab-")?, true)
    };
    let n: usize = match n.parse() {
        Ok(n) if (2..=128).contains(&n) => n,
        _ => return Some(Err(doc.error("mesh", format!("`{name}`: give N from 2 to 128")))),
    };
    let (dims, len, axes): ([usize; 3], [f64; 3], &[usize]) = if slab {
        ([n, n, 1], [2.0 * PI, 2.0 * PI, 2.0 * PI / n as f64], &[0, 1])
    } else {
        ([n; 3], [2.0 * PI; 3], &[0, 1, 2])
    };
    Some(crate::mesh::periodic_box(dims, len, axes).map_err(Into::into))
}

/// The boundary table's entries name patches; a periodic patch is gone from the mesh's list
/// (its faces are interior), and naming one is a misconfiguration worth its own message.
pub fn check_boundary_names<'a>(doc: &CaseDoc, mesh: &PreparedMesh, names: impl Iterator<Item = &'a String>) -> Result<()> {
    for name in names {
        let pair = mesh.topo.periodic.iter().find(|p| p.slave == *name || p.master == *name);
        if let Some(p) = pair {
            let msg = format!(
                "patch '{name}' is periodic (joined to '{}' by the translation ({}, {}, {})): its faces are interior faces, with no boundary condition; remove navier-stokes.boundary.{name} (or mesh the side without the Periodic Surface link to give it one)",
                if p.slave == *name { &p.master } else { &p.slave },
                p.translation[0],
                p.translation[1],
                p.translation[2]
            );
            return Err(doc.error(&format!("navier-stokes.boundary.{name}"), msg));
        }
    }
    Ok(())
}

/// What a periodic mesh needs of the case: the quadratic interpolation (the Voronoi dual cells
/// stop at the periodic patches), and at least two cells across each periodic direction (a
/// cell whose face neighbour is itself would be its own flux partner).
pub fn check_case(doc: &CaseDoc, mesh: &PreparedMesh, interpolation: Interpolation) -> Result<()> {
    if !mesh.is_periodic() {
        return Ok(());
    }
    if interpolation != Interpolation::Quadratic {
        let msg = format!(
            "\"{}\" does not see across periodic faces (the mesh joins '{}' and '{}'); use \"quadratic\"",
            interpolation.name(),
            mesh.topo.periodic[0].slave,
            mesh.topo.periodic[0].master
        );
        return Err(doc.error("navier-stokes.interpolation", msg));
    }
    let own = mesh.topo.periodic_faces.iter().find(|p| mesh.topo.neighbours[p.cell as usize][p.face as usize] == p.cell);
    if let Some(p) = own {
        let pair = &mesh.topo.periodic[p.pair as usize];
        let msg = format!(
            "cell {} is its own neighbour across the periodic pair '{}' -> '{}': mesh at least two cells across each periodic direction",
            p.cell, pair.slave, pair.master
        );
        return Err(doc.error("mesh", msg));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::faces::{Faces, Role};
    use super::super::section::NonOrthogonal;
    use crate::mesh::TetGeometry;

    /// On a fully periodic box every face is interior, the owner-to-neighbour vector is short
    /// (across the face, not across the domain) and points out of the owner, and the fluxes
    /// of a uniform velocity sum to zero in every cell and over all cells.
    #[test]
    fn periodic_faces_are_interior_and_conservative() {
        let mut m = crate::mesh::periodic_box([4, 3, 5], [1.0, 2.0, 3.0], &[0, 1, 2]).unwrap();
        let g = TetGeometry::<f64>::take(&mut m, &[]);
        let f = Faces::build(&g, &[], NonOrthogonal::OverRelaxed);
        assert_eq!(f.len(), 2 * g.num_cells());
        let periodic = f.shift.iter().filter(|s| **s != [0.0; 3]).count();
        assert_eq!(periodic, 2 * (3 * 5 + 4 * 5 + 4 * 3));
        for i in 0..f.len() {
            let (d, n) = (f.d[i], f.normal[i]);
            assert_eq!(f.role[i], Role::Interior);
            let dn = d[0] * n[0] + d[1] * n[1] + d[2] * n[2];
            assert!(dn > 0.0 && (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt() < 0.6, "face {i}: d {d:?}");
        }
        let u = [1.0, 0.3, -0.2];
        let flux: Vec<f64> = (0..f.len()).map(|i| f.area[i] * (0..3).map(|k| f.normal[i][k] * u[k]).sum::<f64>()).collect();
        let mut total = 0.0;
        for cf in &f.of_cell {
            let net: f64 = cf.iter().map(|&(i, own)| if own { flux[i as usize] } else { -flux[i as usize] }).sum();
            assert!(net.abs() < 1e-14, "{net}");
            total += net;
        }
        assert!(total.abs() < 1e-12, "{total}");
    }
}
