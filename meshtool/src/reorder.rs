//! Locality reordering of cells: reverse Cuthill-McKee on the cell adjacency (sprs) or a
//! Hilbert space-filling curve through the centroids (lindel). Nodes follow the cells (first
//! touch), so the gathers of a kernel over cells hit nearby memory.

use crate::mesh::bounding_box;
use crate::topology::adjacency_pairs;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Reorder {
    None,
    Rcm,
    Hilbert,
}

impl Reorder {
    pub fn code(self) -> u32 {
        self as u32
    }
    pub fn from_code(c: u32) -> Option<Self> {
        [Reorder::None, Reorder::Rcm, Reorder::Hilbert].get(c as usize).copied()
    }
}

/// Bandwidth and mean |i - j| over the adjacency's edges.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Locality {
    pub bandwidth: u32,
    pub mean_neighbour_distance: f64,
}

pub fn locality(neighbours: &[[u32; 4]]) -> Locality {
    let pairs = adjacency_pairs(neighbours);
    let mut bw = 0;
    let mut sum = 0u64;
    for &(a, b) in &pairs {
        let d = b.abs_diff(a);
        bw = bw.max(d);
        sum += d as u64;
    }
    Locality {
        bandwidth: bw,
        mean_neighbour_distance: sum as f64 / pairs.len().max(1) as f64,
    }
}

/// New-to-old cell order: `order[new] = old`.
pub fn cell_order(method: Reorder, neighbours: &[[u32; 4]], centroids: &[[f64; 3]]) -> Vec<u32> {
    let n = neighbours.len();
    match method {
        Reorder::None => (0..n as u32).collect(),
        Reorder::Rcm => {
            let pairs = adjacency_pairs(neighbours);
            let mut tri = sprs::TriMat::<u8>::with_capacity((n, n), 2 * pairs.len() + n);
            for i in 0..n {
                tri.add_triplet(i, i, 1);
            }
            for &(a, b) in &pairs {
                tri.add_triplet(a as usize, b as usize, 1);
                tri.add_triplet(b as usize, a as usize, 1);
            }
            let csr: sprs::CsMat<u8> = tri.to_csr();
            let ordering = sprs::linalg::reverse_cuthill_mckee(csr.view());
            ordering.perm.vec().into_iter().map(|i| i as u32).collect()
        }
        Reorder::Hilbert => {
            let (lo, hi) = bounding_box(centroids);
            let scale: [f64; 3] = std::array::from_fn(|k| {
                let ext = hi[k] - lo[k];
                if ext > 0.0 {
                    65535.0 / ext
                } else {
                    0.0
                }
            });
            let mut keyed: Vec<(u64, u32)> = centroids
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let q: [u16; 3] = std::array::from_fn(|k| ((c[k] - lo[k]) * scale[k]).round() as u16);
                    (lindel::hilbert_encode(q), i as u32)
                })
                .collect();
            keyed.sort_unstable();
            keyed.into_iter().map(|(_, i)| i).collect()
        }
    }
}
