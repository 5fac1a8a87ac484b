//! Periodic boundaries: pairs of boundary patches whose faces are joined across the domain.
//!
//! Gmsh writes, for every periodic surface (`Periodic Surface{slave} = {master} Translate{..}`),
//! the master surface, the affine map x_slave = A x_master and the corresponding node pairs
//! (`$Periodic`, read by [`crate::msh`]). Here each slave-patch face is matched to the
//! master-patch face with the same mapped node set, and the two cells become face neighbours:
//! the neighbour table holds the other cell's index like any interior face, and
//! `Topology::periodic_faces` records, for both sides, which periodic pair the face belongs to
//! and which side it is on. The periodic patches then leave the patch list
//! ([`drop_periodic_patches`]): the solver's boundary code never sees them.
//!
//! Only translations are supported (the solver shifts the neighbour's geometry by a constant
//! vector); a rotation in the affine map is refused.

use crate::error::{MeshError, Result};
use crate::faces::{face_centre, is_boundary, patch_of, BOUNDARY, FACE_VERTS};
use crate::mesh::{vec3, PatchDef, PeriodicLink, RawMesh};
use serde::Serialize;
use std::collections::HashMap;

/// A pair of patches joined periodically: x_slave = x_master + translation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PeriodicPair {
    pub slave: String,
    pub master: String,
    pub slave_tag: i32,
    pub master_tag: i32,
    pub translation: [f64; 3],
    /// Face pairs (each counted once).
    pub faces: u64,
    /// Area of the slave patch.
    pub area: f64,
}

/// One side of a periodic face pair: `neighbours[cell][face]` is the cell across the periodic
/// boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PeriodicFace {
    pub cell: u32,
    pub face: u32,
    /// Index of the pair in `Topology::periodic`.
    pub pair: u32,
    /// 0: this face is on the slave patch, 1: on the master patch.
    pub side: u32,
}

impl PeriodicFace {
    /// The vector to add to the neighbour's coordinates (centroid, nodes) to place it next to
    /// this cell: +translation on the slave side, -translation on the master side.
    pub fn shift(&self, pairs: &[PeriodicPair]) -> [f64; 3] {
        let t = pairs[self.pair as usize].translation;
        if self.side == 0 {
            t
        } else {
            vec3::scale(t, -1.0)
        }
    }
}

/// The translation of a link: from its affine map (which must be a pure translation) or, when
/// the file has none, from its node pairs (which must all agree).
fn translation(mesh: &RawMesh, l: &PeriodicLink, tol: f64) -> Result<[f64; 3]> {
    let name = |p: u32| mesh.patches[p as usize].name.as_str();
    let what = || {
        format!(
            "periodic surface {} (patch '{}') -> master surface {} (patch '{}')",
            l.slave_entity,
            name(l.slave_patch),
            l.master_entity,
            name(l.master_patch)
        )
    };
    if let Some(a) = &l.affine {
        let rot = [a[0], a[1], a[2], a[4], a[5], a[6], a[8], a[9], a[10]];
        let id = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        let off = rot.iter().zip(&id).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
        let last = [a[12], a[13], a[14], a[15] - 1.0]
            .iter()
            .map(|x| x.abs())
            .fold(0.0, f64::max);
        if off > 1e-9 || last > 1e-12 || a.iter().any(|x| !x.is_finite()) {
            return Err(MeshError::Topology(format!(
                "{}: the affine transform [{}] is not a pure translation; only translational periodicity is supported (the solver shifts neighbours by a constant vector; rotational periodicity is not implemented)",
                what(),
                a.iter().map(|x| format!("{x}")).collect::<Vec<_>>().join(" ")
            )));
        }
        return Ok([a[3], a[7], a[11]]);
    }
    let Some(&[s0, m0]) = l.pairs.first() else {
        return Err(MeshError::Topology(format!(
            "{}: the link has neither an affine transform nor node pairs; re-export from Gmsh",
            what()
        )));
    };
    let t = vec3::sub(mesh.nodes[s0 as usize], mesh.nodes[m0 as usize]);
    for &[s, m] in &l.pairs {
        let d = vec3::sub(mesh.nodes[s as usize], mesh.nodes[m as usize]);
        let off = vec3::norm(vec3::sub(d, t));
        if off > tol || off.is_nan() {
            return Err(MeshError::Topology(format!(
                "{}: no affine transform in the file and the node pairs are not related by one translation (node {s} - node {m} = ({:.6e}, {:.6e}, {:.6e}), first pair gives ({:.6e}, {:.6e}, {:.6e})); only translational periodicity is supported",
                what(), d[0], d[1], d[2], t[0], t[1], t[2]
            )));
        }
    }
    Ok(t)
}

/// What [`join`] found.
#[derive(Default)]
pub struct Joined {
    pub pairs: Vec<PeriodicPair>,
    /// Both sides of every joined face, sorted by (cell, face).
    pub faces: Vec<PeriodicFace>,
    /// (slave node, master node, pair) of the joined faces' nodes, sorted, each once.
    pub nodes: Vec<[u32; 3]>,
}

/// Nearest-node lookup by a hash grid of cell size `h`.
struct NodeGrid {
    h: f64,
    cells: HashMap<[i64; 3], Vec<u32>>,
}

impl NodeGrid {
    fn new(nodes: &[[f64; 3]], ids: impl Iterator<Item = u32>, h: f64) -> Self {
        let mut cells: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
        for v in ids {
            cells.entry(Self::key(nodes[v as usize], h)).or_default().push(v);
        }
        NodeGrid { h, cells }
    }

    fn key(x: [f64; 3], h: f64) -> [i64; 3] {
        x.map(|c| (c / h).floor() as i64)
    }

    /// The nearest node within one grid cell of x, and its distance.
    fn nearest(&self, nodes: &[[f64; 3]], x: [f64; 3]) -> Option<(u32, f64)> {
        let k = Self::key(x, self.h);
        let mut best: Option<(u32, f64)> = None;
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    if let Some(vs) = self.cells.get(&[k[0] + dx, k[1] + dy, k[2] + dz]) {
                        for &v in vs {
                            let d = vec3::norm(vec3::sub(nodes[v as usize], x));
                            if best.is_none_or(|b| d < b.1) {
                                best = Some((v, d));
                            }
                        }
                    }
                }
            }
        }
        best
    }
}

#[inline]
fn sorted3(mut v: [u32; 3]) -> [u32; 3] {
    v.sort_unstable();
    v
}

/// Match the faces of every periodic patch pair and join the cells: `neighbours` holds
/// `BOUNDARY | patch` on the periodic patches on entry and the cell across on exit.
/// Returns the pairs, both sides of every joined face sorted by (cell, face), and the node
/// correspondence of the joined faces.
pub fn join(
    mesh: &RawMesh,
    cells: &[[u32; 4]],
    neighbours: &mut [[u32; 4]],
    face_areas: &[[f64; 4]],
    diag: f64,
) -> Result<Joined> {
    if mesh.periodic.is_empty() {
        return Ok(Joined::default());
    }
    let tol = 1e-6 * diag;
    let groups = group_links(mesh, tol)?;
    let joiner = Joiner {
        mesh,
        cells,
        face_areas,
        tol,
        by_patch: boundary_faces_by_patch(neighbours),
    };
    let mut joined = Joined::default();
    for (pi, group) in groups.iter().enumerate() {
        let pair = joiner.pair(pi as u32, group, neighbours, &mut joined)?;
        joined.pairs.push(pair);
    }
    joined.faces.sort_unstable();
    joined.nodes.sort_unstable();
    joined.nodes.dedup();
    Ok(joined)
}

/// What joining the pairs of patches reads: the mesh, its cells and face areas, the match
/// tolerance, and the boundary faces (cell, face) of each patch.
struct Joiner<'a> {
    mesh: &'a RawMesh,
    cells: &'a [[u32; 4]],
    face_areas: &'a [[f64; 4]],
    tol: f64,
    by_patch: HashMap<u32, Vec<(u32, u32)>>,
}

impl Joiner<'_> {
    fn face_nodes(&self, c: u32, f: u32) -> [u32; 3] {
        FACE_VERTS[f as usize].map(|k| self.cells[c as usize][k])
    }

    fn name(&self, p: u32) -> String {
        self.mesh.patches[p as usize].name.clone()
    }

    /// Join the slave faces of pair `pi` (`group`) to their master faces (each slave node moved
    /// by the translation onto a master node: the file's node pairs, else the nearest within
    /// the tolerance), adding the faces and nodes to `joined`; every face of both patches must
    /// find its partner.
    fn pair(&self, pi: u32, group: &Group, neighbours: &mut [[u32; 4]], joined: &mut Joined) -> Result<PeriodicPair> {
        let ((sp, mp), t, links) = group;
        let empty = Vec::new();
        let slave_faces = self.by_patch.get(sp).unwrap_or(&empty);
        let master_faces = self.by_patch.get(mp).unwrap_or(&empty);
        let node_map: HashMap<u32, u32> = links
            .iter()
            .flat_map(|l| l.pairs.iter().map(|&[s, m]| (s, m)))
            .collect();
        let master_nodes: Vec<u32> = {
            let mut v: Vec<u32> = master_faces.iter().flat_map(|&(c, f)| self.face_nodes(c, f)).collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let nodes = &self.mesh.nodes;
        let grid = NodeGrid::new(
            nodes,
            master_nodes.iter().copied(),
            (100.0 * self.tol).max(f64::MIN_POSITIVE),
        );
        let master_key: HashMap<[u32; 3], (u32, u32)> = master_faces
            .iter()
            .map(|&(c, f)| (sorted3(self.face_nodes(c, f)), (c, f)))
            .collect();
        let map_node = |v: u32| -> Option<u32> {
            if let Some(&m) = node_map.get(&v) {
                return Some(m);
            }
            let x = vec3::sub(nodes[v as usize], *t);
            grid.nearest(nodes, x).filter(|b| b.1 <= self.tol).map(|b| b.0)
        };
        let (mut matched_master, mut unmatched, mut first_bad, mut area) = (0usize, 0usize, None, 0.0);
        for &(c, f) in slave_faces {
            let face = self.face_nodes(c, f);
            let mapped: Option<Vec<u32>> = face.iter().map(|&v| map_node(v)).collect();
            let hit = mapped
                .as_ref()
                .and_then(|m| master_key.get(&sorted3([m[0], m[1], m[2]])).copied());
            match (hit, mapped) {
                (Some((mc, mf)), Some(m)) if is_boundary(neighbours[mc as usize][mf as usize]) => {
                    for k in 0..3 {
                        joined.nodes.push([face[k], m[k], pi]);
                    }
                    neighbours[c as usize][f as usize] = mc;
                    neighbours[mc as usize][mf as usize] = c;
                    area += self.face_areas[c as usize][f as usize];
                    matched_master += 1;
                    let side = |cell, face, side| PeriodicFace {
                        cell,
                        face,
                        pair: pi,
                        side,
                    };
                    joined.faces.extend([side(c, f, 0), side(mc, mf, 1)]);
                }
                _ => {
                    unmatched += 1;
                    first_bad.get_or_insert((c, f));
                }
            }
        }
        let master_left = master_faces.len() - matched_master;
        if unmatched > 0 || master_left > 0 {
            let counts = (unmatched, slave_faces.len(), master_left, master_faces.len());
            return Err(self.mismatch(group, counts, first_bad, &master_nodes));
        }
        Ok(PeriodicPair {
            slave: self.name(*sp),
            master: self.name(*mp),
            slave_tag: self.mesh.patches[*sp as usize].tag,
            master_tag: self.mesh.patches[*mp as usize].tag,
            translation: *t,
            faces: matched_master as u64,
            area,
        })
    }

    /// The refusal of a pair whose faces do not all match: the counts (slave faces without a
    /// master, slave faces, master faces without a slave, master faces), the first slave face
    /// without a partner and its node that lands farthest from any master node.
    fn mismatch(
        &self,
        ((sp, mp), t, links): &Group,
        (unmatched, slaves, master_left, masters): (usize, usize, usize, usize),
        first_bad: Option<(u32, u32)>,
        master_nodes: &[u32],
    ) -> MeshError {
        let tol = self.tol;
        let mut msg = format!(
            "periodic patches '{}' (surfaces {}) -> '{}' (surfaces {}), translation ({}, {}, {}): {unmatched} of {slaves} slave faces have no master face and {master_left} of {masters} master faces no slave face",
            self.name(*sp),
            links.iter().map(|l| l.slave_entity.to_string()).collect::<Vec<_>>().join(","),
            self.name(*mp),
            links.iter().map(|l| l.master_entity.to_string()).collect::<Vec<_>>().join(","),
            t[0], t[1], t[2],
        );
        if let Some((c, f)) = first_bad {
            let nodes = self.face_nodes(c, f);
            let fc = face_centre(&self.mesh.nodes, &self.cells[c as usize], f as usize);
            let (v, x, d) = worst_node(self.mesh, &nodes, *t, master_nodes);
            let p = self.mesh.nodes[v as usize];
            msg += &format!(
                "; first: slave face of cell {c} at ({:.6}, {:.6}, {:.6}) has no master face: node #{v} (0-based, in node-tag order) ({:.6}, {:.6}, {:.6}) maps to ({:.6}, {:.6}, {:.6}), nearest master node {d:.3e} away (tolerance {tol:.1e})",
                fc[0], fc[1], fc[2], p[0], p[1], p[2], x[0], x[1], x[2]
            );
        }
        msg += "; mesh the two sides periodically in Gmsh (Periodic Surface{slave} = {master} Translate{dx, dy, dz};)";
        MeshError::Topology(msg)
    }
}

type Group<'a> = ((u32, u32), [f64; 3], Vec<&'a PeriodicLink>);

/// Group the links by patch pair, refusing a pair inside one patch, two translations for one
/// pair, and a patch in two pairs.
fn group_links(mesh: &RawMesh, tol: f64) -> Result<Vec<Group<'_>>> {
    let pname = |p: u32| mesh.patches[p as usize].name.clone();
    let mut groups: Vec<Group> = Vec::new();
    for l in &mesh.periodic {
        if l.slave_patch == l.master_patch {
            return Err(MeshError::Topology(format!(
                "periodic surface {} and its master surface {} are both in patch '{}'; put the two sides of a periodic pair in different physical groups",
                l.slave_entity,
                l.master_entity,
                pname(l.slave_patch)
            )));
        }
        let t = translation(mesh, l, tol)?;
        match groups.iter_mut().find(|g| g.0 == (l.slave_patch, l.master_patch)) {
            Some(g) => {
                if vec3::norm(vec3::sub(g.1, t)) > tol {
                    return Err(MeshError::Topology(format!(
                        "periodic patches '{}' -> '{}': surface {} is translated by ({}, {}, {}) but another surface of the pair by ({}, {}, {}); one translation per patch pair is supported",
                        pname(l.slave_patch), pname(l.master_patch), l.slave_entity, t[0], t[1], t[2], g.1[0], g.1[1], g.1[2]
                    )));
                }
                g.2.push(l);
            }
            None => groups.push(((l.slave_patch, l.master_patch), t, vec![l])),
        }
    }
    for (i, a) in groups.iter().enumerate() {
        for b in &groups[i + 1..] {
            let (p, q) = (a.0, b.0);
            if let Some(x) = [p.0, p.1].into_iter().find(|x| *x == q.0 || *x == q.1) {
                return Err(MeshError::Topology(format!(
                    "patch '{}' is in two periodic pairs ('{}' -> '{}' and '{}' -> '{}'); each periodic patch must have exactly one partner (split it into one physical group per direction)",
                    pname(x), pname(p.0), pname(p.1), pname(q.0), pname(q.1)
                )));
            }
        }
    }

    Ok(groups)
}

/// The boundary faces (cell, local face) of each patch.
fn boundary_faces_by_patch(neighbours: &[[u32; 4]]) -> HashMap<u32, Vec<(u32, u32)>> {
    let mut by_patch: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
    for (c, nb) in neighbours.iter().enumerate() {
        for (f, &d) in nb.iter().enumerate() {
            if is_boundary(d) {
                by_patch.entry(patch_of(d)).or_default().push((c as u32, f as u32));
            }
        }
    }
    by_patch
}

/// The node of a slave face farthest from the master patch once translated back by `t`: the
/// node, its translated position, and its distance to the nearest master-patch node.
fn worst_node(mesh: &RawMesh, nodes: &[u32; 3], t: [f64; 3], master_nodes: &[u32]) -> (u32, [f64; 3], f64) {
    let mut worst = (nodes[0], [0.0; 3], -1.0);
    for &v in nodes {
        let x = vec3::sub(mesh.nodes[v as usize], t);
        let d = master_nodes
            .iter()
            .map(|&m| vec3::norm(vec3::sub(mesh.nodes[m as usize], x)))
            .fold(f64::INFINITY, f64::min);
        if d > worst.2 {
            worst = (v, x, d);
        }
    }
    worst
}

/// Remove the periodic patches from the patch list and renumber the boundary entries of
/// `neighbours`; returns the remaining patches.
pub fn drop_periodic_patches(mesh: &RawMesh, pairs: &[PeriodicPair], neighbours: &mut [[u32; 4]]) -> Vec<PatchDef> {
    if pairs.is_empty() {
        return mesh.patches.clone();
    }
    let periodic = |p: &PatchDef| pairs.iter().any(|q| q.slave_tag == p.tag || q.master_tag == p.tag);
    let mut new_index = vec![u32::MAX; mesh.patches.len()];
    let mut kept = Vec::new();
    for (i, p) in mesh.patches.iter().enumerate() {
        if !periodic(p) {
            new_index[i] = kept.len() as u32;
            kept.push(p.clone());
        }
    }
    for nb in neighbours.iter_mut() {
        for d in nb.iter_mut() {
            if is_boundary(*d) {
                let n = new_index[patch_of(*d) as usize];
                debug_assert!(n != u32::MAX, "a periodic face was left unmatched");
                *d = BOUNDARY | n;
            }
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::cartesian_box::{generate, BoxSpec};
    use crate::pmesh::prepare;
    use crate::reorder::Reorder;
    use crate::topology;

    const LEN: [f64; 3] = [1.0, 2.0, 3.0];

    /// A Kuhn box (its faces on opposite sides are translates of each other) with the given
    /// axes periodic: patch 2a+1 (max) is the slave of patch 2a (min). No node pairs, so the
    /// faces are matched by position.
    fn kuhn(axes: &[usize], affine: impl Fn(usize) -> Option<[f64; 16]>) -> RawMesh {
        let mut m = generate(&BoxSpec {
            dims: [3, 4, 5],
            lo: [0.0; 3],
            hi: LEN,
        })
        .unwrap();
        for &a in axes {
            m.periodic.push(PeriodicLink::box_sides(a, affine(a)));
        }
        m
    }

    fn translate(a: usize) -> Option<[f64; 16]> {
        let mut t = [
            1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
        ];
        t[4 * a + 3] = LEN[a];
        Some(t)
    }

    #[test]
    fn fully_periodic_box_has_no_boundary_and_four_neighbours_everywhere() {
        let raw = kuhn(&[0, 1, 2], translate);
        let (m, _) = prepare(&raw, Reorder::Hilbert).unwrap();
        assert!(m.patches.is_empty());
        assert_eq!(m.topo.periodic.len(), 3);
        for (a, p) in m.topo.periodic.iter().enumerate() {
            let mut want = [0.0; 3];
            want[a] = LEN[a];
            assert_eq!(p.translation, want);
            // Faces per side: 2 triangles per square of the box's side.
            let sq = [4 * 5, 3 * 5, 3 * 4][a];
            assert_eq!(p.faces, 2 * sq);
            let nodes = [5 * 6, 4 * 6, 4 * 5][a];
            assert_eq!(m.topo.periodic_nodes.iter().filter(|q| q[2] == a as u32).count(), nodes);
        }
        for c in 0..m.num_cells() {
            for f in 0..4 {
                let d = m.topo.neighbours[c][f];
                assert!(!is_boundary(d));
                let s = m.topo.neighbour_shift(c, f);
                // The neighbour's centroid, shifted, lies across this face.
                let x = vec3::add(m.topo.centroids[d as usize], s);
                let fc = face_centre(&m.nodes, &m.topo.cells[c], f);
                let n = m.topo.face_normals[c][f];
                assert!(vec3::dot(vec3::sub(x, fc), n) > 0.0);
                assert!(vec3::dot(vec3::sub(m.topo.centroids[c], fc), n) < 0.0);
            }
        }
        // Non-orthogonality across the periodic faces (neighbour shifted) is no worse than
        // across the interior faces of the same box without periodicity.
        let q = crate::quality::cell_quality(&m.nodes, &m.topo);
        let plain = prepare(&kuhn(&[], translate), Reorder::Hilbert).unwrap().0;
        let qp = crate::quality::cell_quality(&plain.nodes, &plain.topo);
        let worst = (0..plain.num_cells())
            .flat_map(|c| (0..4).map(move |f| (c, f)))
            .filter(|&(c, f)| !is_boundary(plain.topo.neighbours[c][f]))
            .map(|(c, f)| qp.faces[c][f].cos_non_orthogonality)
            .fold(1.0, f64::min);
        assert!(worst > 0.5);
        for pf in &m.topo.periodic_faces {
            let cos = q.faces[pf.cell as usize][pf.face as usize].cos_non_orthogonality;
            assert!(cos >= worst - 1e-12, "{pf:?}: cos {cos} < {worst}");
        }
    }

    #[test]
    fn same_result_from_node_pairs_and_positions() {
        let mut raw = kuhn(&[0], |_| None);
        // Node pairs only (no affine): the translation comes from the pairs.
        let (lo, hi) = raw.bounding_box();
        let on = |v: &[f64; 3], x: f64| (v[0] - x).abs() < 1e-12;
        let mut pairs = Vec::new();
        for (s, xs) in raw.nodes.iter().enumerate().filter(|(_, x)| on(x, hi[0])) {
            let m = raw
                .nodes
                .iter()
                .position(|xm| on(xm, lo[0]) && (xm[1] - xs[1]).abs() < 1e-12 && (xm[2] - xs[2]).abs() < 1e-12)
                .unwrap();
            pairs.push([s as u32, m as u32]);
        }
        raw.periodic[0].pairs = pairs;
        let a = prepare(&raw, Reorder::None).unwrap().0;
        let b = prepare(&kuhn(&[0], translate), Reorder::None).unwrap().0;
        assert_eq!(a.topo.periodic_faces, b.topo.periodic_faces);
        assert_eq!(a.topo.periodic[0].translation, [1.0, 0.0, 0.0]);
        assert_eq!(a.patches.len(), 4);
    }

    #[test]
    fn rotations_and_double_pairs_are_refused() {
        let rot = |_| {
            Some([
                0.0, -1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
            ])
        };
        let e = topology::build(&kuhn(&[0], rot)).unwrap_err().to_string();
        assert!(e.contains("not a pure translation") && e.contains("'xmax'"), "{e}");
        let mut raw = kuhn(&[0], translate);
        let mut extra = raw.periodic[0].clone();
        extra.slave_patch = 3; // ymax -> xmin: xmin in two pairs
        raw.periodic.push(extra);
        let e = topology::build(&raw).unwrap_err().to_string();
        assert!(e.contains("two periodic pairs"), "{e}");
        let mut raw = kuhn(&[0], translate);
        raw.periodic[0].master_patch = 1;
        let e = topology::build(&raw).unwrap_err().to_string();
        assert!(e.contains("both in patch"), "{e}");
    }
}
