//! A box of nx × ny × nz hexahedral cells, each split into six tetrahedra by the Kuhn
//! (Freudenthal) split along the main diagonal. The split of every cube face follows the same
//! diagonal, so neighbouring cubes meet conformally. Patches: xmin, xmax, ymin, ymax, zmin, zmax.

use crate::error::{MeshError, Result};
use crate::mesh::{vec3, PatchDef, RawMesh};

#[derive(Clone, Copy, Debug)]
pub struct BoxSpec {
    pub dims: [usize; 3],
    pub lo: [f64; 3],
    pub hi: [f64; 3],
}

pub const PATCH_NAMES: [&str; 6] = ["xmin", "xmax", "ymin", "ymax", "zmin", "zmax"];

pub fn generate(spec: &BoxSpec) -> Result<RawMesh> {
    let ncells = check(spec)?;
    let mut mesh = RawMesh {
        nodes: grid_nodes(spec),
        ..RawMesh::default()
    };
    let kuhn = kuhn_tets();
    let [nx, ny, nz] = spec.dims;
    mesh.tets.reserve(ncells as usize);
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                for t in &kuhn {
                    mesh.tets
                        .push(t.map(|c| node_index(spec.dims, [i + c[0], j + c[1], k + c[2]])));
                }
            }
        }
    }
    mesh.patches = PATCH_NAMES
        .iter()
        .enumerate()
        .map(|(i, n)| PatchDef {
            name: n.to_string(),
            tag: i as i32 + 1,
        })
        .collect();
    add_boundary_triangles(spec.dims, &mut mesh);
    Ok(mesh)
}

/// Refuse empty dimensions, an inverted box and more tetrahedra than 32-bit indices hold;
/// returns the number of tetrahedra.
fn check(spec: &BoxSpec) -> Result<u64> {
    let [nx, ny, nz] = spec.dims;
    if nx == 0 || ny == 0 || nz == 0 {
        return Err(MeshError::Invalid(format!(
            "box dims must be positive, got {nx}x{ny}x{nz}"
        )));
    }
    if (0..3).any(|k| spec.hi[k].partial_cmp(&spec.lo[k]) != Some(std::cmp::Ordering::Greater)) {
        return Err(MeshError::Invalid(
            "box upper corner must exceed the lower corner in x, y and z".into(),
        ));
    }
    let ncells = 6u64 * nx as u64 * ny as u64 * nz as u64;
    if ncells >= u32::MAX as u64 / 2 {
        return Err(MeshError::Invalid(format!(
            "{ncells} tetrahedra do not fit 32-bit indices"
        )));
    }
    Ok(ncells)
}

/// The index of grid node (i, j, k) of a box of `dims` cells: x fastest.
fn node_index(dims: [usize; 3], [i, j, k]: [usize; 3]) -> u32 {
    let [nx, ny, _] = dims;
    (i + (nx + 1) * (j + (ny + 1) * k)) as u32
}

/// The (nx + 1)(ny + 1)(nz + 1) grid nodes, x fastest.
fn grid_nodes(spec: &BoxSpec) -> Vec<[f64; 3]> {
    let [nx, ny, nz] = spec.dims;
    let mut nodes = Vec::with_capacity((nx + 1) * (ny + 1) * (nz + 1));
    for k in 0..=nz {
        for j in 0..=ny {
            for i in 0..=nx {
                let t = [i as f64 / nx as f64, j as f64 / ny as f64, k as f64 / nz as f64];
                nodes.push(std::array::from_fn(|a| spec.lo[a] + t[a] * (spec.hi[a] - spec.lo[a])));
            }
        }
    }
    nodes
}

/// The six Kuhn tetrahedra of the unit cube, as corner offsets: one per ordering of the axes,
/// walking from corner 000 to 111. Orientation is made positive once here.
fn kuhn_tets() -> Vec<[[usize; 3]; 4]> {
    let mut kuhn: Vec<[[usize; 3]; 4]> = Vec::new();
    for perm in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
        let mut corners = [[0usize; 3]; 4];
        for s in 0..3 {
            corners[s + 1] = corners[s];
            corners[s + 1][perm[s]] = 1;
        }
        let p = corners.map(|c| c.map(|x| x as f64));
        if vec3::tet_volume(p[0], p[1], p[2], p[3]) < 0.0 {
            corners.swap(1, 2);
        }
        kuhn.push(corners);
    }
    kuhn
}

/// Boundary faces: each boundary square split along the same diagonal as the Kuhn split
/// (from its lowest to its highest corner), in patch 2 * axis + side.
fn add_boundary_triangles(n: [usize; 3], mesh: &mut RawMesh) {
    for axis in 0..3 {
        let (a, b) = ((axis + 1) % 3, (axis + 2) % 3);
        for side in 0..2 {
            let fixed = side * n[axis];
            for ib in 0..n[b] {
                for ia in 0..n[a] {
                    let at = |da: usize, db: usize| {
                        let mut idx = [0usize; 3];
                        idx[axis] = fixed;
                        idx[a] = ia + da;
                        idx[b] = ib + db;
                        node_index(n, idx)
                    };
                    let patch = (2 * axis + side) as u32;
                    mesh.boundary_tris.push([at(0, 0), at(1, 0), at(1, 1)]);
                    mesh.boundary_tris.push([at(0, 0), at(0, 1), at(1, 1)]);
                    mesh.boundary_patch.extend([patch, patch]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology;

    #[test]
    fn kuhn_box_is_conformal_and_fills_the_box() {
        let spec = BoxSpec {
            dims: [3, 4, 5],
            lo: [0.0, -1.0, 2.0],
            hi: [1.0, 1.0, 3.5],
        };
        let m = generate(&spec).unwrap();
        let topo = topology::build(&m).unwrap();
        assert_eq!(topo.reoriented, 0);
        assert_eq!(topo.cells.len(), 6 * 60);
        let vol: f64 = topo.volumes.iter().sum();
        assert!((vol - 3.0).abs() < 1e-12, "{vol}");
    }
}
