//! The nearest cell centroid to a point, through a uniform grid of buckets: the restart of a
//! point location whose walk ran out of steps (`locate`). The CUDA `nearest_centroid`
//! (kernels/cuda/tet.cuh) reads the same buckets and searches them in the same way, so both
//! backends restart from the same cell, ties included: the answer is the lowest-numbered cell
//! among those at the least distance, computed in the run's precision, as a scan of every
//! centroid would give. The device used to do that scan, one thread a point, which made
//! the first steps of an impulsively started run on a 4.4 M-cell mesh take seconds each.

use crate::real::Real;

/// Buckets over the centroids' bounding box, about one centroid a bucket, and the cells sorted
/// by bucket (a CSR table: bucket b holds `cells[start[b]..start[b + 1]]`, in cell order). The
/// buckets are cubes but along an axis that would need more than `MAX_DIM` of them (a long
/// pipe), where they are longer.
pub struct CentroidGrid {
    /// The box's low corner.
    pub lo: [f64; 3],
    /// One over the buckets' edge along x, y and z.
    pub inv_edge: [f64; 3],
    pub dims: [u32; 3],
    pub start: Vec<u32>,
    pub cells: Vec<u32>,
}

/// Buckets per centroid: fewer, larger buckets (about one centroid each on a uniform mesh;
/// the graded meshes of bodies put hundreds in the buckets at the wall, still thousands of
/// times fewer than a scan).
const BUCKETS_PER_CENTROID: f64 = 1.0;

/// The search stops once the unvisited buckets are farther than the best centroid by this
/// margin, relative: larger than the rounding of a distance in f32, so that no cell the
/// scan would choose is left unvisited.
const MARGIN: f64 = 1e-4;

/// The most buckets along one axis.
const MAX_DIM: u32 = 1 << 10;

impl CentroidGrid {
    pub fn new<R: Real>(centroids: &[[R; 3]]) -> Self {
        let n = centroids.len().max(1);
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for c in centroids {
            for k in 0..3 {
                lo[k] = lo[k].min(c[k].f64());
                hi[k] = hi[k].max(c[k].f64());
            }
        }
        if centroids.is_empty() {
            (lo, hi) = ([0.0; 3], [1.0; 3]);
        }
        // A flat box (a one-cell-thick slab) still has a thickness for the volume below.
        let extent: [f64; 3] = std::array::from_fn(|k| hi[k] - lo[k]);
        let largest = extent.iter().cloned().fold(0.0, f64::max).max(1e-300);
        let thick: [f64; 3] = extent.map(|e| e.max(largest * 1e-3));
        let volume = thick[0] * thick[1] * thick[2];
        let cube = (volume / (BUCKETS_PER_CENTROID * n as f64)).cbrt();
        let edge: [f64; 3] = thick.map(|t| cube.max(t / (MAX_DIM - 1) as f64));
        let dims: [u32; 3] = std::array::from_fn(|k| (extent[k] / edge[k]).floor() as u32 + 1);
        let grid = CentroidGrid {
            lo,
            inv_edge: edge.map(|e| 1.0 / e),
            dims,
            start: vec![],
            cells: vec![],
        };
        grid.filled(centroids)
    }

    /// The bucket of each centroid, counted and sorted into the CSR table (a counting sort: the
    /// cells stay in order within a bucket).
    fn filled<R: Real>(mut self, centroids: &[[R; 3]]) -> Self {
        let bucket_of: Vec<usize> = centroids
            .iter()
            .map(|c| {
                let b = self.bucket(c.map(|x| x.f64()));
                self.index(b)
            })
            .collect();
        let nb = self.dims.iter().map(|&d| d as usize).product::<usize>();
        let mut start = vec![0u32; nb + 1];
        for &b in &bucket_of {
            start[b + 1] += 1;
        }
        for b in 0..nb {
            start[b + 1] += start[b];
        }
        let mut next = start.clone();
        let mut cells = vec![0u32; centroids.len()];
        for (c, &b) in bucket_of.iter().enumerate() {
            cells[next[b] as usize] = c as u32;
            next[b] += 1;
        }
        self.start = start;
        self.cells = cells;
        self
    }

    /// The bucket holding p, clamped into the grid (a point outside it starts from the
    /// nearest bucket).
    fn bucket(&self, p: [f64; 3]) -> [i64; 3] {
        std::array::from_fn(|k| {
            let i = ((p[k] - self.lo[k]) * self.inv_edge[k]).floor();
            i.clamp(0.0, (self.dims[k] - 1) as f64) as i64
        })
    }

    fn index(&self, b: [i64; 3]) -> usize {
        let [nx, ny, _] = self.dims.map(|d| d as usize);
        b[0] as usize + nx * (b[1] as usize + ny * b[2] as usize)
    }

    /// A lower bound on p's distance to every bucket outside the box lo..=hi (bucket indices),
    /// None when the box covers the grid.
    fn beyond(&self, p: [f64; 3], lo: [i64; 3], hi: [i64; 3]) -> Option<f64> {
        let mut bound: Option<f64> = None;
        for k in 0..3 {
            let edge = 1.0 / self.inv_edge[k];
            // Less a slack for the rounding of the buckets' planes.
            let mut side = |d: f64| {
                let d = (d - 1e-6 * edge).max(0.0);
                bound = Some(bound.map_or(d, |b| b.min(d)))
            };
            if lo[k] > 0 {
                side(p[k] - (self.lo[k] + lo[k] as f64 * edge));
            }
            if hi[k] < self.dims[k] as i64 - 1 {
                side(self.lo[k] + (hi[k] + 1) as f64 * edge - p[k]);
            }
        }
        bound
    }

    /// The lowest-numbered cell whose centroid is nearest p (0 for a point with a NaN
    /// coordinate, as a scan gives). Buckets are visited in shells of growing Chebyshev
    /// radius around p's bucket until the unvisited ones are all farther than the best.
    pub fn nearest<R: Real>(&self, centroids: &[[R; 3]], p: [R; 3]) -> u32 {
        let pf = p.map(|x| x.f64());
        if pf.iter().any(|x| x.is_nan()) || centroids.is_empty() {
            return 0;
        }
        let centre = self.bucket(pf);
        let dims = self.dims.map(|d| d as i64);
        let (mut best, mut best_cell) = (R::of(1e30), 0u32);
        for r in 0..=dims.iter().copied().max().unwrap_or(1) {
            self.shell(centre, r, |bucket| {
                for &c in &self.cells[self.start[bucket] as usize..self.start[bucket + 1] as usize] {
                    let x = centroids[c as usize];
                    let d =
                        (x[0] - p[0]) * (x[0] - p[0]) + (x[1] - p[1]) * (x[1] - p[1]) + (x[2] - p[2]) * (x[2] - p[2]);
                    if d < best || (d == best && c < best_cell) {
                        (best, best_cell) = (d, c);
                    }
                }
            });
            let lo = centre.map(|c| c - r).map(|c| c.max(0));
            let hi: [i64; 3] = std::array::from_fn(|k| (centre[k] + r).min(dims[k] - 1));
            match self.beyond(pf, lo, hi) {
                Some(bound) if bound * bound * (1.0 - MARGIN) <= best.f64() => {}
                _ => break,
            }
        }
        best_cell
    }

    /// Calls `visit` with every bucket (its index) at Chebyshev distance r from `centre`
    /// inside the grid: whole rows on the shell's faces in y and z, the two ends of the rows
    /// between.
    fn shell(&self, centre: [i64; 3], r: i64, mut visit: impl FnMut(usize)) {
        let dims = self.dims.map(|d| d as i64);
        let inside = |k: usize, i: i64| (0..dims[k]).contains(&i);
        for dz in -r..=r {
            let z = centre[2] + dz;
            if !inside(2, z) {
                continue;
            }
            for dy in -r..=r {
                let y = centre[1] + dy;
                if !inside(1, y) {
                    continue;
                }
                if dz.abs() == r || dy.abs() == r {
                    let (x0, x1) = ((centre[0] - r).max(0), (centre[0] + r).min(dims[0] - 1));
                    for x in x0..=x1 {
                        visit(self.index([x, y, z]));
                    }
                } else {
                    // r > 0 here (at r = 0 every row is on the shell's faces).
                    for x in [centre[0] - r, centre[0] + r] {
                        if inside(0, x) {
                            visit(self.index([x, y, z]));
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The scan the grid replaces: the lowest-numbered cell at the least distance.
    fn scan<R: Real>(centroids: &[[R; 3]], p: [R; 3]) -> u32 {
        let (mut best, mut best_cell) = (R::of(1e30), 0u32);
        for (c, x) in centroids.iter().enumerate() {
            let d = (x[0] - p[0]) * (x[0] - p[0]) + (x[1] - p[1]) * (x[1] - p[1]) + (x[2] - p[2]) * (x[2] - p[2]);
            if d < best {
                (best, best_cell) = (d, c as u32);
            }
        }
        best_cell
    }

    /// Every centroid is in exactly one bucket, the one that holds it.
    #[test]
    fn every_centroid_is_filed_once_in_its_bucket() {
        let g = crate::mesh::test_geometry([5, 4, 3]);
        let grid = CentroidGrid::new(&g.centroids);
        let mut seen = vec![0; g.num_cells()];
        for b in 0..grid.start.len() - 1 {
            for &c in &grid.cells[grid.start[b] as usize..grid.start[b + 1] as usize] {
                seen[c as usize] += 1;
                assert_eq!(grid.index(grid.bucket(g.centroids[c as usize])), b);
            }
        }
        assert!(seen.iter().all(|&s| s == 1));
    }

    /// On a Kuhn box's centroids (many exact ties) and on points inside, outside and far
    /// away, in f64 and f32, the grid gives the scan's cell.
    #[test]
    fn the_grid_gives_the_scans_cell_ties_included() {
        let g = crate::mesh::test_geometry([6, 5, 4]);
        let g32: Vec<[f32; 3]> = g.centroids.iter().map(|c| c.map(|x| x as f32)).collect();
        let (grid, grid32) = (CentroidGrid::new(&g.centroids), CentroidGrid::new(&g32));
        let nodes = g.nodes.iter().copied();
        let far = [[30.0, -4.0, 0.5], [0.5, 0.5, -7.0], [1e6, 1e6, 1e6], [0.5, 0.5, 0.5]];
        for p in nodes.chain(far) {
            assert_eq!(grid.nearest(&g.centroids, p), scan(&g.centroids, p), "{p:?}");
            let p32 = p.map(|x| x as f32);
            assert_eq!(grid32.nearest(&g32, p32), scan(&g32, p32), "{p:?} f32");
        }
        assert_eq!(grid.nearest(&g.centroids, [f64::NAN, 0.0, 0.0]), 0);
    }

    /// A long thin cloud (a pipe 3000 long and 1 wide), which cubic buckets would need 1400
    /// of along its length: the buckets there are longer instead, so no bucket takes the
    /// cells beyond the cap (all of them but a thousand), and the search stays exact.
    #[test]
    fn a_long_pipe_spreads_its_cells_over_the_buckets() {
        let cloud: Vec<[f64; 3]> = (0..6000)
            .map(|i| [i as f64 * 0.5, (i % 7) as f64 / 7.0, (i % 5) as f64 / 5.0])
            .collect();
        let grid = CentroidGrid::new(&cloud);
        assert!(grid.dims[0] <= MAX_DIM, "{:?}", grid.dims);
        let fullest = grid.start.windows(2).map(|w| w[1] - w[0]).max().unwrap();
        assert!(fullest <= 16, "{fullest} centroids in one bucket, dims {:?}", grid.dims);
        for p in [
            [2999.9, 0.5, 0.5],
            [1234.3, 0.1, 0.9],
            [-5.0, 3.0, 0.0],
            [4000.0, 0.0, 0.0],
        ] {
            assert_eq!(grid.nearest(&cloud, p), scan(&cloud, p), "{p:?}");
        }
    }

    proptest! {
        /// Random clouds, graded like a body's mesh (dense near the origin), flat or not.
        #[test]
        fn random_clouds_agree_with_the_scan(
            pts in prop::collection::vec((-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0), 1..400),
            queries in prop::collection::vec((-3.0f64..3.0, -3.0f64..3.0, -3.0f64..3.0), 1..40),
            flat in any::<bool>(),
        ) {
            let cloud: Vec<[f64; 3]> = pts
                .iter()
                .map(|&(x, y, z)| {
                    let r = (x * x + y * y).sqrt();
                    [x * r * 10.0, y * r * 10.0, if flat { 0.25 } else { z }]
                })
                .collect();
            let grid = CentroidGrid::new(&cloud);
            for &(x, y, z) in &queries {
                prop_assert_eq!(grid.nearest(&cloud, [x, y, z]), scan(&cloud, [x, y, z]));
            }
        }
    }
}
