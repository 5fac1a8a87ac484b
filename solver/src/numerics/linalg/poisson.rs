//! The finite-volume two-point Poisson matrix of a tetrahedral mesh (the CG benchmark's
//! matrix): for each interior face between cells i and j the coefficient area / |c_i − c_j|
//! on the diagonals and its negative off the diagonal; a face on a Dirichlet patch adds
//! area / (distance from the centroid to the face's plane) to its cell's diagonal; other
//! boundary faces are homogeneous Neumann. With one Dirichlet patch the matrix is SPD.
//! (No non-orthogonal correction: that is the Navier-Stokes operator's business.)

use meshtool::topology::{is_boundary, patch_of, Topology};
use rayon::prelude::*;
use sprs::CsMat;
use std::io::Write;
use std::path::Path;

/// The two-point matrix, CSR, each row's columns sorted (the diagonal included).
/// `dirichlet[p]` says whether patch p is Dirichlet; `nodes` are the mesh's node coordinates.
pub fn two_point_laplacian(nodes: &[[f64; 3]], topo: &Topology, dirichlet: &[bool]) -> CsMat<f64> {
    let n = topo.cells.len();
    let rows: Vec<Vec<(usize, f64)>> = (0..n)
        .into_par_iter()
        .map(|i| {
            let c = topo.centroids[i];
            let mut diag = 0.0;
            let mut row = Vec::with_capacity(5);
            for f in 0..4 {
                let nb = topo.neighbours[i][f];
                let area = topo.face_areas[i][f];
                if !is_boundary(nb) {
                    let coef = area / dist(c, topo.centroids[nb as usize]);
                    diag += coef;
                    row.push((nb as usize, -coef));
                } else if dirichlet.get(patch_of(nb) as usize).copied().unwrap_or(false) {
                    // Face f is opposite local vertex f: any other vertex lies in its plane.
                    let v = topo.cells[i][(f + 1) % 4] as usize;
                    let nrm = topo.face_normals[i][f];
                    let h = (0..3).map(|k| (nodes[v][k] - c[k]) * nrm[k]).sum::<f64>().abs();
                    diag += area / h;
                }
            }
            row.push((i, diag));
            row.sort_unstable_by_key(|e| e.0);
            row
        })
        .collect();
    let mut indptr = Vec::with_capacity(n + 1);
    indptr.push(0usize);
    for r in &rows {
        indptr.push(indptr.last().unwrap() + r.len());
    }
    let indices = rows.iter().flat_map(|r| r.iter().map(|e| e.0)).collect();
    let data = rows.iter().flat_map(|r| r.iter().map(|e| e.1)).collect();
    CsMat::new((n, n), indptr, indices, data)
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// P A Pᵀ for the ordering `order` (new row k is old row order[k]), columns sorted.
pub fn permute(a: &CsMat<f64>, order: &[u32]) -> CsMat<f64> {
    let n = a.rows();
    let mut new_of = vec![0usize; n];
    for (k, &o) in order.iter().enumerate() {
        new_of[o as usize] = k;
    }
    let rows: Vec<Vec<(usize, f64)>> = order
        .par_iter()
        .map(|&o| {
            let row = a.outer_view(o as usize).unwrap();
            let mut r: Vec<(usize, f64)> = row.iter().map(|(j, &v)| (new_of[j], v)).collect();
            r.sort_unstable_by_key(|e| e.0);
            r
        })
        .collect();
    let mut indptr = vec![0usize];
    for r in &rows {
        indptr.push(indptr.last().unwrap() + r.len());
    }
    let indices = rows.iter().flat_map(|r| r.iter().map(|e| e.0)).collect();
    let data = rows.iter().flat_map(|r| r.iter().map(|e| e.1)).collect();
    CsMat::new((n, n), indptr, indices, data)
}

/// Writes a CSR matrix and a right-hand side for a peer (benchmarks/peers/cupy_cg.py): the
/// magic `CSR64\0\0\0`, n and nnz (u64), indptr (n + 1 × i64), indices (nnz × i32), data
/// (nnz × f64), b (n × f64), little-endian. Atomic (temporary file, then rename).
pub fn write_csr(path: &Path, a: &CsMat<f64>, b: &[f64]) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        w.write_all(b"CSR64\0\0\0")?;
        w.write_all(&(a.rows() as u64).to_le_bytes())?;
        w.write_all(&(a.nnz() as u64).to_le_bytes())?;
        for &p in a.indptr().raw_storage() {
            w.write_all(&(p as i64).to_le_bytes())?;
        }
        for &j in a.indices() {
            w.write_all(&(j as i32).to_le_bytes())?;
        }
        for &v in a.data().iter().chain(b) {
            w.write_all(&v.to_le_bytes())?;
        }
        w.flush()?;
    }
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshtool::generate::cartesian_box::{generate, BoxSpec};

    #[test]
    fn the_box_matrix_is_symmetric_with_zero_row_sums_off_the_dirichlet_patch() {
        let raw = generate(&BoxSpec {
            dims: [4, 3, 5],
            lo: [0.0; 3],
            hi: [1.0, 0.5, 2.0],
        })
        .unwrap();
        let topo = meshtool::topology::build(&raw).unwrap();
        let a = two_point_laplacian(&raw.nodes, &topo, &[true, false, false, false, false, false]);
        assert_eq!(a.rows(), 6 * 60);
        let at: CsMat<f64> = a.transpose_view().to_csr();
        let diff = (&a - &at).data().iter().fold(0.0f64, |m, v| m.max(v.abs()));
        assert!(diff < 1e-12, "asymmetry {diff}");
        let mut touching = 0;
        for i in 0..a.rows() {
            let sum: f64 = a.outer_view(i).unwrap().data().iter().sum();
            let on_xmin = topo.neighbours[i]
                .iter()
                .any(|&nb| is_boundary(nb) && patch_of(nb) == 0);
            if on_xmin {
                touching += 1;
                assert!(sum > 0.0);
            } else {
                assert!(sum.abs() < 1e-9, "row {i} sums to {sum}");
            }
        }
        assert_eq!(touching, 2 * 3 * 5);
        let order: Vec<u32> = (0..a.rows() as u32).rev().collect();
        let p = permute(&a, &order);
        assert_eq!(p.get(0, 0), a.get(a.rows() - 1, a.rows() - 1));
    }
}
