//! Element location: walk from a start cell towards the point through the face it lies beyond,
//! with a bounded number of steps, a randomised choice among the faces it lies beyond once the
//! walk has taken long (which breaks the cycles a deterministic walk can fall into on points
//! through edges and vertices — the paper's dead-lock cycling), and a restart from the nearest
//! centroid (`CentroidGrid`, the same search the CUDA walk restarts with) as the last resort.

use super::centroid_grid::CentroidGrid;
use super::geometry::TetGeometry;
use super::linalg3::{dot, sub};
use crate::real::Real;
use meshtool::topology::{is_boundary, patch_of};

/// Where a departure point is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Location {
    /// Inside (or on) this cell.
    Inside(u32),
    /// Outside the domain: it left through a boundary face of `cell` on `patch`.
    Outside { cell: u32, patch: u32 },
}

/// Barycentric coordinate of p for each vertex of cell c (1 at the vertex, 0 on the opposite
/// face): the scaled face normals of `TetGeometry::locate` dotted with vertex 0 - p (every face
/// but face 0 holds vertex 0; face 0 adds the record's constant). The CUDA `barycentric`
/// (kernels/cuda/tet.cuh) does the same arithmetic in the same order.
#[inline]
pub fn barycentric<R: Real>(m: &TetGeometry<R>, c: usize, p: [R; 3]) -> [R; 4] {
    let r = &m.locate[c];
    let d = sub([r[12], r[13], r[14]], p);
    let mut l: [R; 4] = std::array::from_fn(|f| dot([r[3 * f], r[3 * f + 1], r[3 * f + 2]], d));
    l[0] = l[0] + r[15];
    l
}

pub struct Locator {
    grid: CentroidGrid,
    pub max_steps: u32,
}

/// Tolerance on barycentric coordinates: points this close outside a face count as inside.
/// 1e-12 in f64; in f32 a point on a face may round to -1e-7 in both cells that share it, so
/// the tolerance grows to 100 ulp of 1 (the CUDA walk uses the same).
pub fn eps<R: Real>() -> R {
    R::of(1e-12).max(R::of(100.0) * R::epsilon())
}

impl Locator {
    pub fn new<R: Real>(m: &TetGeometry<R>, max_steps: u32) -> Self {
        Locator {
            grid: CentroidGrid::new(&m.centroids),
            max_steps,
        }
    }

    pub fn locate<R: Real>(&self, m: &TetGeometry<R>, start: u32, p: [R; 3]) -> Location {
        self.locate_point(m, start, p).0
    }

    /// Where p is, and p in the frame of the cell that holds it: moved by the shifts of the
    /// periodic faces the walk crossed (`mesh::periodic`), p itself on other meshes.
    pub fn locate_point<R: Real>(&self, m: &TetGeometry<R>, start: u32, p: [R; 3]) -> (Location, [R; 3]) {
        if let Some(found) = walk(m, start, p, self.max_steps) {
            return found;
        }
        let nearest = self.grid.nearest(&m.centroids, p);
        walk(m, nearest, p, 4 * self.max_steps).unwrap_or_else(|| {
            // Give up: treat as outside through the nearest cell's closest boundary face
            // if it has one, else as inside the nearest cell.
            let nb = m.neighbours[nearest as usize];
            let loc = match nb.iter().find(|&&d| is_boundary(d)) {
                Some(&d) => Location::Outside {
                    cell: nearest,
                    patch: patch_of(d),
                },
                None => Location::Inside(nearest),
            };
            (loc, p)
        })
    }
}

/// Walk from `start` (with p in the frame of the cell reached, see `Locator::locate_point`);
/// None if the step budget runs out.
pub fn walk<R: Real>(m: &TetGeometry<R>, start: u32, p: [R; 3], max_steps: u32) -> Option<(Location, [R; 3])> {
    let eps = eps::<R>();
    let (mut c, mut p) = (start as usize, p);
    let mut rng = 0x9E37_79B9u32 ^ start;
    for step in 0..max_steps {
        let l = barycentric(m, c, p);
        let (mut worst, mut f) = (l[0], 0);
        for (k, &lk) in l.iter().enumerate().skip(1) {
            if lk < worst {
                worst = lk;
                f = k;
            }
        }
        if worst >= -eps {
            return Some((Location::Inside(c as u32), p));
        }
        if worst.is_nan() {
            // A point with a NaN coordinate (a diverged velocity's departure point) lies in no
            // cell: not found, for the caller's health check to report, instead of walking on.
            return None;
        }
        if step > 16 {
            // Long walk: pick among the faces the point lies beyond, pseudo-randomly.
            rng ^= rng << 13;
            rng ^= rng >> 17;
            rng ^= rng << 5;
            let negative: Vec<usize> = (0..4).filter(|&k| l[k] < -eps).collect();
            f = negative[rng as usize % negative.len()];
        }
        let d = m.neighbours[c][f];
        if is_boundary(d) {
            let out = Location::Outside {
                cell: c as u32,
                patch: patch_of(d),
            };
            return Some((out, p));
        }
        // Across a periodic face the neighbour sits at its coordinates + s: p there is p - s.
        if let Some(s) = m.periodic.shift(c, f) {
            p = [p[0] - s[0], p[1] - s[1], p[2] - s[2]];
        }
        c = d as usize;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::test_geometry;

    /// A NaN point is not found (it used to panic choosing among no faces after 16 steps).
    #[test]
    fn a_nan_point_is_not_found() {
        let m = test_geometry([3, 4, 2]);
        assert!(walk(&m, 0, [f64::NAN, 0.5, 0.5], 100).is_none());
    }

    /// The locate records give 1 at a cell's own vertex, 0 at the other three, and sum to 1.
    #[test]
    fn barycentric_coordinates_from_the_records_are_exact_at_vertices() {
        let m = test_geometry([3, 4, 2]);
        for c in 0..m.num_cells() {
            let verts = m.cells[c].map(|v| m.nodes[v as usize]);
            for (k, x) in verts.iter().enumerate() {
                let l = barycentric(&m, c, *x);
                for (j, lj) in l.iter().enumerate() {
                    let want = if j == k { 1.0 } else { 0.0 };
                    assert!((lj - want).abs() < 1e-12, "cell {c} vertex {k}: {l:?}");
                }
            }
            let centroid = m.centroids[c];
            let l = barycentric(&m, c, [centroid[0] + 0.01, centroid[1], centroid[2] - 0.02]);
            assert!((l.iter().sum::<f64>() - 1.0).abs() < 1e-12, "cell {c}: {l:?}");
        }
    }

    #[test]
    fn finds_random_points_and_points_on_vertices_and_edges() {
        let m = test_geometry([6, 5, 4]);
        let loc = Locator::new(&m, 200);
        let mut seed = 12345u64;
        let mut rand = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..500 {
            let p = [rand(), rand(), rand()];
            let start = (rand() * m.num_cells() as f64) as u32;
            match loc.locate(&m, start, p) {
                Location::Inside(c) => assert!(barycentric(&m, c as usize, p).iter().all(|&l| l >= -1e-9)),
                o => panic!("{p:?} reported {o:?}"),
            }
        }
        // Grid nodes and edge midpoints lie on many cells at once.
        for p in [[0.5, 0.4, 0.5], [1.0 / 6.0, 0.2, 0.25], [0.5, 0.5, 0.625]] {
            assert!(matches!(loc.locate(&m, 0, p), Location::Inside(_)));
        }
        assert!(matches!(loc.locate(&m, 0, [1.5, 0.5, 0.5]), Location::Outside { .. }));
    }
}
