//! Periodic faces for the solver: what the geometry needs so that a face that
//! meshtool joined across the domain (`meshtool::periodic`) acts as an interior face.
//!
//! Design. meshtool already joins a periodic pair: the neighbour table holds the cell across,
//! the periodic patches leave the patch list, and each joined face knows the shift to add to
//! the neighbour's coordinates to place it next to the cell (+t on the slave side, -t on the
//! master side). Everything positional that reaches across a face or a vertex takes that shift:
//! 1. Face operators (`cases::ns::faces`): the owner-to-neighbour vector d and the
//!    interpolation weight use the neighbour's centroid shifted; the face is `Interior`. Cell
//!    gradients and the LES filter width read the shifted vector (±d), so the pressure
//!    Laplacian, viscous fluxes, Rhie-Chow, the divergence, the subgrid fluxes and the test
//!    filter need nothing else (their values are per cell, not per position).
//! 2. Vertex fits (`numerics::sl::quadratic`): the periodic images of a vertex (its node pairs,
//!    up to 8 at a box corner) form one class; the class's lowest vertex builds the fit from
//!    the cells around every image, each shifted into its own frame (`rep_offset`), widening
//!    across periodic faces with the face shifts, and every image takes that same record. A
//!    fit is a function of the offset from its vertex, so the images' fits agree bit for bit.
//! 3. Location (`mesh::locate`, `tet.cuh`): a walk that crosses a periodic face goes on in the
//!    neighbour with the point shifted by the face's shift taken off, and the departure point
//!    is stored in the frame of the cell that holds it, which the interpolation then reads.
//! 4. The device reads the same tables: `code` and `table` for the walk; the faces' shifted d
//!    and the fits' shifted stencil offsets are host-built arrays the kernels already read.
//!
//! Non-periodic meshes: every table here is empty and no arithmetic changes (shifts are only
//! added where a face has one), so the existing runs are bit-identical.

use meshtool::mesh::vec3;
use meshtool::topology::Topology;
use std::collections::HashMap;

/// The shift of every periodic face, and the periodic images of every vertex.
#[derive(Clone, Debug, Default)]
pub struct PeriodicShifts<R> {
    /// Per cell four bytes, byte f the index into `table` of face f's shift (0: none); empty
    /// when the mesh is not periodic.
    pub code: Vec<u32>,
    /// The distinct shifts (the vector to add to a neighbour's coordinates to place it next to
    /// the cell); entry 0 is zero.
    pub table: Vec<[R; 3]>,
    /// Per vertex, the lowest-numbered of its periodic images (itself if it has none); empty
    /// when the mesh is not periodic.
    pub rep: Vec<u32>,
    /// Per vertex, x_v - x_rep (a sum of the pairs' translations).
    pub rep_offset: Vec<[R; 3]>,
    /// The images of each class, ascending, as CSR over the vertices: `image_list[image_start[v]
    /// .. image_start[v + 1]]` for a representative v with other images, empty otherwise.
    pub image_start: Vec<u32>,
    pub image_list: Vec<u32>,
}

impl<R: Copy> PeriodicShifts<R> {
    pub fn is_periodic(&self) -> bool {
        !self.code.is_empty()
    }

    /// The shift across face f of cell c, None for an ordinary face.
    #[inline]
    pub fn shift(&self, c: usize, f: usize) -> Option<[R; 3]> {
        let k = (self.code.get(c)? >> (8 * f)) & 0xff;
        (k != 0).then(|| self.table[k as usize])
    }

    /// The periodic images of vertex v (v among them, ascending); empty where v has none.
    pub fn images(&self, v: usize) -> &[u32] {
        let Some(&r) = self.rep.get(v) else { return &[] };
        let r = r as usize;
        &self.image_list[self.image_start[r] as usize..self.image_start[r + 1] as usize]
    }

    pub fn map<U>(self, f: impl Fn(R) -> U) -> PeriodicShifts<U> {
        let v = |x: [R; 3]| x.map(&f);
        PeriodicShifts {
            code: self.code,
            table: self.table.into_iter().map(v).collect(),
            rep: self.rep,
            rep_offset: self.rep_offset.into_iter().map(v).collect(),
            image_start: self.image_start,
            image_list: self.image_list,
        }
    }
}

impl PeriodicShifts<f64> {
    /// The tables of a prepared mesh's topology (empty for a non-periodic one).
    pub fn of(t: &Topology, nodes: usize) -> Self {
        if t.periodic_faces.is_empty() {
            return Self::default();
        }
        let mut table: Vec<[f64; 3]> = vec![[0.0; 3]];
        let mut index: HashMap<[u64; 3], u32> = HashMap::new();
        let mut code = vec![0u32; t.cells.len()];
        for p in &t.periodic_faces {
            let s = p.shift(&t.periodic);
            let k = *index.entry(s.map(f64::to_bits)).or_insert_with(|| {
                table.push(s);
                (table.len() - 1) as u32
            });
            assert!(k < 256, "more than 255 distinct periodic shifts");
            code[p.cell as usize] |= k << (8 * p.face);
        }
        let (rep, rep_offset) = images(t, nodes);
        let (image_start, image_list) = image_table(&rep);
        PeriodicShifts {
            code,
            table,
            rep,
            rep_offset,
            image_start,
            image_list,
        }
    }
}

/// Union-find with offsets: parent and x_v - x_parent.
struct Classes {
    parent: Vec<u32>,
    off: Vec<[f64; 3]>,
}

impl Classes {
    /// The root of v and x_v - x_root.
    fn find(&mut self, v: u32) -> (u32, [f64; 3]) {
        let (mut r, mut o) = (v, [0.0; 3]);
        while self.parent[r as usize] != r {
            o = vec3::add(o, self.off[r as usize]);
            r = self.parent[r as usize];
        }
        (r, o)
    }
}

/// Per vertex the lowest-numbered periodic image and x_v - x_rep, from the node pairs
/// (x_slave = x_master + t).
fn images(t: &Topology, nodes: usize) -> (Vec<u32>, Vec<[f64; 3]>) {
    let mut uf = Classes {
        parent: (0..nodes as u32).collect(),
        off: vec![[0.0; 3]; nodes],
    };
    for &[s, m, pair] in &t.periodic_nodes {
        let (rs, os) = uf.find(s);
        let (rm, om) = uf.find(m);
        if rs == rm {
            continue;
        }
        // x_rs - x_rm = (x_s - os) - (x_m - om) = t + om - os.
        let d = vec3::sub(vec3::add(t.periodic[pair as usize].translation, om), os);
        uf.parent[rs as usize] = rm;
        uf.off[rs as usize] = d;
    }
    let found: Vec<(u32, [f64; 3])> = (0..nodes as u32).map(|v| uf.find(v)).collect();
    // The lowest vertex of each class (vertices run upwards, so the first one seen).
    let mut low: HashMap<u32, u32> = HashMap::new();
    for (v, (root, _)) in found.iter().enumerate() {
        low.entry(*root).or_insert(v as u32);
    }
    let rep: Vec<u32> = found.iter().map(|(root, _)| low[root]).collect();
    let offset = (0..nodes)
        .map(|v| vec3::sub(found[v].1, found[rep[v] as usize].1))
        .collect();
    (rep, offset)
}

/// `PeriodicShifts::image_start` and `image_list` of the representatives `rep`.
fn image_table(rep: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let mut classes: HashMap<u32, Vec<u32>> = HashMap::new();
    for (v, &r) in rep.iter().enumerate() {
        if r as usize != v {
            classes.entry(r).or_insert_with(|| vec![r]).push(v as u32);
        }
    }
    let (mut start, mut list) = (vec![0u32; rep.len() + 1], Vec::new());
    for v in 0..rep.len() {
        if let Some(c) = classes.get(&(v as u32)) {
            list.extend(c);
        }
        start[v + 1] = list.len() as u32;
    }
    (start, list)
}

/// A Kuhn box of dims Kuhn cubes on [0, len] made periodic along `axes` (0 x, 1 y, 2 z): the
/// patch `{a}max` is the translate of `{a}min` by len[a] along a, and both leave the patch list;
/// the other sides keep their patches (xmin .. zmax).
pub fn periodic_box(dims: [usize; 3], len: [f64; 3], axes: &[usize]) -> meshtool::Result<meshtool::PreparedMesh> {
    use meshtool::generate::cartesian_box::{generate, BoxSpec};
    let mut raw = generate(&BoxSpec {
        dims,
        lo: [0.0; 3],
        hi: len,
    })?;
    for &a in axes {
        let mut affine = [0.0; 16];
        for k in 0..4 {
            affine[5 * k] = 1.0;
        }
        affine[4 * a + 3] = len[a];
        raw.periodic
            .push(meshtool::mesh::PeriodicLink::box_sides(a, Some(affine)));
    }
    Ok(meshtool::pmesh::prepare(&raw, meshtool::reorder::Reorder::Hilbert)?.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Kuhn box periodic along `axes` (patch 2a+1 the slave of 2a), as `builtin:periodic-*`.
    fn periodic_box(dims: [usize; 3], axes: &[usize]) -> meshtool::PreparedMesh {
        super::periodic_box(dims, [1.0, 2.0, 3.0], axes).unwrap()
    }

    #[test]
    fn shifts_and_images_of_a_fully_periodic_box() {
        let m = periodic_box([3, 4, 2], &[0, 1, 2]);
        let p = PeriodicShifts::of(&m.topo, m.nodes.len());
        assert_eq!(p.table.len(), 7);
        for c in 0..m.num_cells() {
            for f in 0..4 {
                assert_eq!(p.shift(c, f).unwrap_or([0.0; 3]), m.topo.neighbour_shift(c, f));
            }
        }
        // Each vertex's image offset is the difference of positions; a corner has 8 images.
        for v in 0..m.nodes.len() {
            let r = p.rep[v] as usize;
            let d = vec3::sub(m.nodes[v], m.nodes[r]);
            assert!(vec3::norm(vec3::sub(d, p.rep_offset[v])) < 1e-12, "vertex {v}");
        }
        let reps = (0..m.nodes.len()).filter(|&v| p.rep[v] as usize == v);
        let sizes: Vec<usize> = reps.map(|v| p.images(v).len()).collect();
        assert!((0..m.nodes.len()).all(|v| p.images(v).is_empty() || p.images(v).contains(&(v as u32))));
        assert_eq!(sizes.iter().filter(|&&s| s == 8).count(), 1);
        assert_eq!(sizes.iter().filter(|&&s| s == 4).count(), 2 + 3 + 1);
    }

    /// A point beyond a periodic side is found in the cell across, moved by the translation.
    #[test]
    fn the_walk_crosses_periodic_faces_with_the_point_shifted() {
        use crate::mesh::locate::barycentric;
        use crate::mesh::{Location, Locator, TetGeometry};
        let mut m = periodic_box([4, 4, 4], &[0, 1, 2]);
        let g = TetGeometry::<f64>::take(&mut m, &[]);
        let loc = Locator::new(&g, 200);
        let len = [1.0, 2.0, 3.0];
        for (start, p) in [
            ([0.9, 1.0, 1.5], [1.2, 1.0, 1.5]),
            ([0.1, 0.1, 0.1], [-0.3, -0.25, 3.4]),
            ([0.5, 1.9, 2.9], [0.5, 2.6, 3.2]),
        ] {
            let c = (0..g.num_cells())
                .find(|&c| barycentric(&g, c, start).iter().all(|&l| l >= 0.0))
                .unwrap();
            let (found, q) = loc.locate_point(&g, c as u32, p);
            let Location::Inside(d) = found else {
                panic!("{p:?}: {found:?}")
            };
            assert!(
                barycentric(&g, d as usize, q).iter().all(|&l| l >= -1e-12),
                "{p:?} -> {q:?}"
            );
            for k in 0..3 {
                let wraps = (p[k] - q[k]) / len[k];
                assert!(
                    (wraps - wraps.round()).abs() < 1e-12 && (0.0..=len[k]).contains(&q[k]),
                    "{p:?} -> {q:?}"
                );
            }
        }
    }

    /// The images of a vertex share one fit, and it reproduces a periodic field at the seams
    /// as well as inside.
    #[test]
    fn vertex_fits_see_across_the_seams() {
        use crate::mesh::{Location, Locator, TetGeometry};
        use crate::numerics::sl::quadratic::{self, Bounds, FAC};
        let mut m = periodic_box([8, 8, 8], &[0, 1, 2]);
        let g = TetGeometry::<f64>::take(&mut m, &[]);
        let fit = quadratic::build(&g, &[]);
        for (v, &r) in g.periodic.rep.iter().enumerate() {
            let r = r as usize;
            assert_eq!(fit.fac[FAC * v..FAC * (v + 1)], fit.fac[FAC * r..FAC * (r + 1)]);
            let (a, b) = (
                fit.offsets[v] as usize..fit.offsets[v + 1] as usize,
                fit.offsets[r] as usize..fit.offsets[r + 1] as usize,
            );
            assert_eq!(fit.pts[a], fit.pts[b]);
        }
        let tau = 2.0 * std::f64::consts::PI;
        let field = |x: [f64; 3]| (tau * x[0]).sin() * (tau * x[1] / 2.0).cos() + (tau * x[2] / 3.0).sin();
        let f: Vec<f64> = g.centroids.iter().map(|&x| field(x)).collect();
        let mut rec = Vec::new();
        quadratic::fit_field(&fit, &[], &f, &mut rec);
        let loc = Locator::new(&g, 200);
        // The largest error within 0.05 of a seam (points on both sides of it) and elsewhere.
        let (mut seam, mut inside) = (0.0f64, 0.0f64);
        for i in 0..2000 {
            let t = (i as f64 * 0.618034).fract();
            let p = [
                1.1 * (i as f64 * 0.41421).fract() - 0.05,
                2.1 * t - 0.05,
                3.1 * (i as f64 * 0.7320508).fract() - 0.05,
            ];
            let (Location::Inside(c), q) = loc.locate_point(&g, 0, p) else {
                panic!("{p:?}")
            };
            let e = (quadratic::quadratic(&g, c as usize, q, &rec, Bounds::None).0 - field(p)).abs();
            let near = (0..3).any(|k| p[k] < 0.05 || p[k] > [1.0, 2.0, 3.0][k] - 0.05);
            if near {
                seam = seam.max(e)
            } else {
                inside = inside.max(e)
            }
        }
        eprintln!(
            "quadratic fits on a periodic 8^3 box: max error within 0.05 of a seam {seam:.3e}, elsewhere {inside:.3e}"
        );
        assert!(seam < 1.5 * inside, "at the seams {seam}, inside {inside}");
    }

    /// The vertex-neighbourhood gradients (derived fields, forces, probes) see across the
    /// seams: every cell of a fully periodic box has a stencil of the same size, and the
    /// gradient of a periodic field is as accurate at the seams as inside.
    #[test]
    fn vertex_stencils_reach_across_the_seams() {
        use crate::mesh::vertex_gradients::{vertex_lsq_gradients, vertex_neighbours};
        use crate::mesh::TetGeometry;
        let mut m = periodic_box([6, 6, 6], &[0, 1, 2]);
        let g = TetGeometry::<f64>::take(&mut m, &[]);
        let mut st = Vec::new();
        let sizes: Vec<usize> = (0..g.num_cells())
            .map(|c| {
                vertex_neighbours(&g, c, &mut st);
                st.len()
            })
            .collect();
        // Without seams every cell is like every other (one Kuhn pattern, translated).
        let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
        assert_eq!(lo, hi);
        let k = 2.0 * std::f64::consts::PI;
        let f: Vec<f64> = g
            .centroids
            .iter()
            .map(|x| (k * x[0]).sin() + (k * x[2] / 3.0).cos())
            .collect();
        let grads = vertex_lsq_gradients(&g, &f);
        let err = |c: usize| {
            let x = g.centroids[c];
            let want = [k * (k * x[0]).cos(), 0.0, -k / 3.0 * (k * x[2] / 3.0).sin()];
            (0..3).map(|i| (grads[c][i] - want[i]).abs()).fold(0.0, f64::max)
        };
        let seam = |x: [f64; 3]| x[0] < 0.1 || x[0] > 0.9 || x[2] < 0.3 || x[2] > 2.7;
        let (mut a, mut b) = (0.0f64, 0.0f64);
        for c in 0..g.num_cells() {
            if seam(g.centroids[c]) {
                a = a.max(err(c))
            } else {
                b = b.max(err(c))
            }
        }
        assert!(a < 1.2 * b, "seams {a}, inside {b}");
    }

    #[test]
    fn a_mesh_without_periodic_faces_has_empty_tables() {
        let m = crate::mesh::test_box([2, 2, 2]);
        let p = PeriodicShifts::of(&m.topo, m.nodes.len());
        assert!(!p.is_periodic() && p.rep.is_empty() && p.shift(0, 0).is_none());
    }
}
