//! Faces, face neighbours, boundary patches, orientation and cell geometry of a tetrahedral mesh.
//!
//! The local faces of a tetrahedron and the boundary encoding of the neighbour table are in
//! [`crate::faces`] (re-exported here).

use crate::error::{MeshError, Result};
use crate::mesh::{vec3, RawMesh};
use crate::periodic::{self, PeriodicFace, PeriodicPair};
use rayon::prelude::*;

pub use crate::faces::{face_centre, is_boundary, patch_of, BOUNDARY, FACE_VERTS};

/// The connectivity and geometry every solver step needs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Topology {
    /// Oriented cells (positive volume).
    pub cells: Vec<[u32; 4]>,
    /// Neighbour across local face i, or `BOUNDARY | patch`.
    pub neighbours: Vec<[u32; 4]>,
    /// Outward unit normal of each local face.
    pub face_normals: Vec<[[f64; 3]; 4]>,
    pub face_areas: Vec<[f64; 4]>,
    pub centroids: Vec<[f64; 3]>,
    pub volumes: Vec<f64>,
    /// Cells whose vertex order was flipped to make the volume positive.
    pub reoriented: u64,
    /// Boundary triangles of the input that are interior faces (internal surfaces): ignored.
    pub interior_patch_faces: u64,
    /// Periodic patch pairs (empty for a non-periodic mesh).
    pub periodic: Vec<PeriodicPair>,
    /// Both sides of every periodic face, sorted by (cell, face): `neighbours[cell][face]` is
    /// the cell across the periodic boundary, displaced by `shift`.
    pub periodic_faces: Vec<PeriodicFace>,
    /// (slave node, master node, pair) for every node of the joined faces, sorted: the node
    /// x_slave is x_master + the pair's translation (a node on two periodic patches, e.g. an
    /// edge of a box periodic in two directions, appears once per pair).
    pub periodic_nodes: Vec<[u32; 3]>,
}

impl Topology {
    /// The periodic face entry of (cell, face), if that face is periodic.
    pub fn periodic_face(&self, c: usize, f: usize) -> Option<&PeriodicFace> {
        if self.periodic_faces.is_empty() {
            return None;
        }
        let key = (c as u32, f as u32);
        self.periodic_faces
            .binary_search_by_key(&key, |p| (p.cell, p.face))
            .ok()
            .map(|i| &self.periodic_faces[i])
    }

    /// The vector to add to the neighbour's coordinates across face (c, f) to place it next to
    /// cell c: zero for ordinary faces, the periodic translation (with its sign) otherwise.
    pub fn neighbour_shift(&self, c: usize, f: usize) -> [f64; 3] {
        self.periodic_face(c, f).map_or([0.0; 3], |p| p.shift(&self.periodic))
    }
}

/// Sorted vertex triple of a face, packed for sorting.
#[inline]
fn face_key(a: u32, b: u32, c: u32) -> u128 {
    let mut v = [a, b, c];
    v.sort_unstable();
    ((v[0] as u128) << 64) | ((v[1] as u128) << 32) | v[2] as u128
}

/// Orient cells positively, match faces, map boundary faces to patches, compute geometry.
pub fn build(mesh: &RawMesh) -> Result<Topology> {
    let nodes = &mesh.nodes;
    check_node_indices(mesh)?;
    let (lo, hi) = mesh.bounding_box();
    let diag = vec3::norm(vec3::sub(hi, lo)).max(f64::MIN_POSITIVE);
    let Oriented {
        cells,
        volumes,
        reoriented,
    } = orient(mesh, diag)?;
    let Matched {
        mut neighbours,
        interior_patch_faces,
    } = match_faces(mesh, &cells)?;
    let CellGeometry {
        face_normals,
        face_areas,
        centroids,
    } = cell_geometry(nodes, &cells);
    let joined = periodic::join(mesh, &cells, &mut neighbours, &face_areas, diag)?;
    Ok(Topology {
        cells,
        neighbours,
        face_normals,
        face_areas,
        centroids,
        volumes,
        reoriented,
        interior_patch_faces,
        periodic: joined.pairs,
        periodic_faces: joined.faces,
        periodic_nodes: joined.nodes,
    })
}

/// Refuse a cell that names a node the mesh does not have.
fn check_node_indices(mesh: &RawMesh) -> Result<()> {
    let nodes = &mesh.nodes;
    for (i, t) in mesh.tets.iter().enumerate() {
        if let Some(&v) = t.iter().find(|&&v| v as usize >= nodes.len()) {
            return Err(MeshError::Topology(format!(
                "cell {i} refers to node {v}, but there are only {} nodes",
                nodes.len()
            )));
        }
    }
    Ok(())
}

/// The cells with a positive vertex order, their volumes, and how many were flipped.
struct Oriented {
    cells: Vec<[u32; 4]>,
    volumes: Vec<f64>,
    reoriented: u64,
}

/// Flip every negatively oriented cell (swapping its vertices 1 and 2); refuse a cell whose
/// volume is zero relative to the mesh's diagonal `diag`.
fn orient(mesh: &RawMesh, diag: f64) -> Result<Oriented> {
    let nodes = &mesh.nodes;
    let oriented: Vec<([u32; 4], bool, f64)> = mesh
        .tets
        .par_iter()
        .map(|&t| {
            let p = t.map(|v| nodes[v as usize]);
            let vol = vec3::tet_volume(p[0], p[1], p[2], p[3]);
            if vol < 0.0 {
                ([t[0], t[2], t[1], t[3]], true, -vol)
            } else {
                (t, false, vol)
            }
        })
        .collect();
    let tiny = 1e-15 * diag * diag * diag;
    if let Some((i, _)) = oriented.iter().enumerate().find(|(_, o)| o.2 <= tiny) {
        let c = centroid(nodes, &oriented[i].0);
        return Err(MeshError::Topology(format!(
            "cell {i} is degenerate (zero volume) at ({:.6}, {:.6}, {:.6}); fix or re-generate the mesh",
            c[0], c[1], c[2]
        )));
    }
    Ok(Oriented {
        reoriented: oriented.iter().filter(|o| o.1).count() as u64,
        cells: oriented.iter().map(|o| o.0).collect(),
        volumes: oriented.iter().map(|o| o.2).collect(),
    })
}

/// The neighbour table, and how many boundary triangles of the input lie inside the volume.
struct Matched {
    neighbours: Vec<[u32; 4]>,
    interior_patch_faces: u64,
}

/// Match the cells' faces by sorting (key, cell * 4 + local face): a face met twice joins two
/// cells, a face met once is a boundary face and takes the patch of the input's boundary
/// triangle with the same vertices. Refuses a face of three or more cells and a boundary face
/// in no patch.
fn match_faces(mesh: &RawMesh, cells: &[[u32; 4]]) -> Result<Matched> {
    let mut faces: Vec<(u128, u32)> = Vec::with_capacity(4 * cells.len());
    faces.par_extend(cells.par_iter().enumerate().flat_map_iter(|(c, t)| {
        FACE_VERTS
            .iter()
            .enumerate()
            .map(move |(f, fv)| (face_key(t[fv[0]], t[fv[1]], t[fv[2]]), (4 * c + f) as u32))
    }));
    faces.par_sort_unstable();

    let mut btris: Vec<(u128, u32)> = mesh
        .boundary_tris
        .iter()
        .zip(&mesh.boundary_patch)
        .map(|(t, &p)| (face_key(t[0], t[1], t[2]), p))
        .collect();
    btris.par_sort_unstable();

    let neighbours = neighbour_table(&mesh.nodes, cells, &faces, &btris)?;
    // Boundary triangles that matched an interior face (internal surfaces).
    let interior_patch_faces = btris
        .par_iter()
        .filter(|b| {
            let lo = faces.partition_point(|f| f.0 < b.0);
            faces.get(lo + 1).is_some_and(|f| f.0 == b.0)
        })
        .count() as u64;
    Ok(Matched {
        neighbours,
        interior_patch_faces,
    })
}

/// The neighbour table from the sorted faces (key, cell * 4 + local face) and the sorted
/// boundary triangles (key, patch).
fn neighbour_table(
    nodes: &[[f64; 3]],
    cells: &[[u32; 4]],
    faces: &[(u128, u32)],
    btris: &[(u128, u32)],
) -> Result<Vec<[u32; 4]>> {
    let mut neighbours = vec![[u32::MAX; 4]; cells.len()];
    let mut unpatched = 0usize;
    let mut first_unpatched = None;
    let mut i = 0;
    while i < faces.len() {
        let mut j = i + 1;
        while j < faces.len() && faces[j].0 == faces[i].0 {
            j += 1;
        }
        match j - i {
            1 => {
                let (key, cf) = faces[i];
                let (c, f) = ((cf / 4) as usize, (cf % 4) as usize);
                match btris.binary_search_by_key(&key, |b| b.0) {
                    Ok(k) => neighbours[c][f] = BOUNDARY | btris[k].1,
                    Err(_) => {
                        unpatched += 1;
                        first_unpatched.get_or_insert((c, f));
                    }
                }
            }
            2 => {
                let (a, b) = (faces[i].1, faces[i + 1].1);
                neighbours[(a / 4) as usize][(a % 4) as usize] = b / 4;
                neighbours[(b / 4) as usize][(b % 4) as usize] = a / 4;
            }
            k => {
                let cf = faces[i].1;
                let (c, f) = ((cf / 4) as usize, (cf % 4) as usize);
                let fc = face_centre(nodes, &cells[c], f);
                return Err(MeshError::Topology(format!(
                    "non-manifold face shared by {k} cells (first: cell {c}) at ({:.6}, {:.6}, {:.6}); the mesh has overlapping or duplicated elements",
                    fc[0], fc[1], fc[2]
                )));
            }
        }
        i = j;
    }
    if let Some((c, f)) = first_unpatched {
        let fc = face_centre(nodes, &cells[c], f);
        return Err(MeshError::Topology(format!(
            "{unpatched} boundary faces belong to no patch (first: cell {c}, face {f}, centre ({:.6}, {:.6}, {:.6})); \
             add the surrounding surfaces to a physical group in Gmsh (Physical Surface) and re-export",
            fc[0], fc[1], fc[2]
        )));
    }
    Ok(neighbours)
}

/// Outward unit normals and areas of every cell's faces, and the cells' centroids.
struct CellGeometry {
    face_normals: Vec<[[f64; 3]; 4]>,
    face_areas: Vec<[f64; 4]>,
    centroids: Vec<[f64; 3]>,
}

fn cell_geometry(nodes: &[[f64; 3]], cells: &[[u32; 4]]) -> CellGeometry {
    type OneCell = ([[f64; 3]; 4], [f64; 4], [f64; 3]);
    let geo: Vec<OneCell> = cells
        .par_iter()
        .map(|t| {
            let mut normals = [[0.0; 3]; 4];
            let mut areas = [0.0; 4];
            for f in 0..4 {
                let [a, b, c] = FACE_VERTS[f].map(|k| nodes[t[k] as usize]);
                let cr = vec3::cross(vec3::sub(b, a), vec3::sub(c, a));
                let twice = vec3::norm(cr);
                areas[f] = 0.5 * twice;
                normals[f] = vec3::scale(cr, 1.0 / twice);
            }
            (normals, areas, centroid(nodes, t))
        })
        .collect();
    let n = cells.len();
    let mut g = CellGeometry {
        face_normals: Vec::with_capacity(n),
        face_areas: Vec::with_capacity(n),
        centroids: Vec::with_capacity(n),
    };
    for (nm, ar, ce) in geo {
        g.face_normals.push(nm);
        g.face_areas.push(ar);
        g.centroids.push(ce);
    }
    g
}

pub fn centroid(nodes: &[[f64; 3]], t: &[u32; 4]) -> [f64; 3] {
    let mut c = [0.0; 3];
    for &v in t {
        c = vec3::add(c, nodes[v as usize]);
    }
    vec3::scale(c, 0.25)
}

/// Interior face pairs (c, d) with c < d: the cell adjacency graph's edges.
pub fn adjacency_pairs(neighbours: &[[u32; 4]]) -> Vec<(u32, u32)> {
    neighbours
        .iter()
        .enumerate()
        .flat_map(|(c, nb)| {
            nb.iter()
                .filter(move |&&d| !is_boundary(d) && (c as u32) < d)
                .map(move |&d| (c as u32, d))
        })
        .collect()
}
