//! The raw tetrahedral mesh as imported or generated, before any topology is built.

/// A named boundary patch. `tag` is the Gmsh physical tag (or a generated number).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatchDef {
    pub name: String,
    pub tag: i32,
}

/// Nodes, linear tetrahedra and boundary triangles with the patch each belongs to.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawMesh {
    pub nodes: Vec<[f64; 3]>,
    pub tets: Vec<[u32; 4]>,
    pub boundary_tris: Vec<[u32; 3]>,
    /// Index into `patches` for each boundary triangle.
    pub boundary_patch: Vec<u32>,
    pub patches: Vec<PatchDef>,
    /// Periodic surface links as imported (Gmsh `$Periodic`, surfaces only); empty for a
    /// non-periodic mesh.
    pub periodic: Vec<PeriodicLink>,
}

/// One periodic link between two boundary surfaces: the slave surface is the image of the
/// master surface under `affine` (Gmsh's convention: x_slave = A x_master, a 4x4 matrix by
/// row), and `pairs` lists (slave node, master node) indices that correspond.
#[derive(Clone, Debug, PartialEq)]
pub struct PeriodicLink {
    /// Gmsh elementary surface tags, for messages.
    pub slave_entity: i32,
    pub master_entity: i32,
    /// Indices into `RawMesh::patches` of the patches the two surfaces belong to.
    pub slave_patch: u32,
    pub master_patch: u32,
    /// The 16 numbers of Gmsh's `Affine` record, when the file has one.
    pub affine: Option<[f64; 16]>,
    /// (slave, master) node indices.
    pub pairs: Vec<[u32; 2]>,
}

impl PeriodicLink {
    /// The sides of a generated Cartesian box along axis `a` (0 x, 1 y, 2 z): patch `{a}max`
    /// (2a + 1) the slave of `{a}min` (2a), their surfaces tagged as the box generator tags
    /// them; no node pairs, so the faces are matched by position.
    pub fn box_sides(a: usize, affine: Option<[f64; 16]>) -> PeriodicLink {
        PeriodicLink {
            slave_entity: 2 * a as i32 + 2,
            master_entity: 2 * a as i32 + 1,
            slave_patch: 2 * a as u32 + 1,
            master_patch: 2 * a as u32,
            affine,
            pairs: Vec::new(),
        }
    }
}

impl RawMesh {
    /// Index of the patch with this physical tag, adding it (named `name`) if it is new.
    pub fn patch_index(&mut self, tag: i32, name: impl FnOnce() -> String) -> u32 {
        if let Some(i) = self.patches.iter().position(|p| p.tag == tag) {
            return i as u32;
        }
        self.patches.push(PatchDef { name: name(), tag });
        (self.patches.len() - 1) as u32
    }

    /// Order patches by tag (positive physical tags first in ascending order) and renumber.
    pub fn sort_patches_by_tag(&mut self) {
        let mut order: Vec<usize> = (0..self.patches.len()).collect();
        order.sort_by_key(|&i| (self.patches[i].tag < 0, self.patches[i].tag.abs()));
        let mut new_index = vec![0u32; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new as u32;
        }
        self.patches = order.iter().map(|&i| self.patches[i].clone()).collect();
        for p in &mut self.boundary_patch {
            *p = new_index[*p as usize];
        }
        for l in &mut self.periodic {
            l.slave_patch = new_index[l.slave_patch as usize];
            l.master_patch = new_index[l.master_patch as usize];
        }
    }

    pub fn bounding_box(&self) -> ([f64; 3], [f64; 3]) {
        bounding_box(&self.nodes)
    }
}

pub fn bounding_box(points: &[[f64; 3]]) -> ([f64; 3], [f64; 3]) {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in points {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    (lo, hi)
}

/// Small vector helpers used by the geometry code.
pub mod vec3 {
    pub type V = [f64; 3];
    #[inline]
    pub fn sub(a: V, b: V) -> V {
        [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
    }
    #[inline]
    pub fn add(a: V, b: V) -> V {
        [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
    }
    #[inline]
    pub fn scale(a: V, s: f64) -> V {
        [a[0] * s, a[1] * s, a[2] * s]
    }
    #[inline]
    pub fn dot(a: V, b: V) -> f64 {
        a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    }
    #[inline]
    pub fn cross(a: V, b: V) -> V {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    }
    #[inline]
    pub fn norm(a: V) -> f64 {
        dot(a, a).sqrt()
    }
    #[inline]
    pub fn normalize(a: V) -> V {
        let n = norm(a);
        if n > 0.0 {
            scale(a, 1.0 / n)
        } else {
            a
        }
    }
    /// Signed volume of the tetrahedron (a, b, c, d): positive when (b-a, c-a, d-a) is right-handed.
    #[inline]
    pub fn tet_volume(a: V, b: V, c: V, d: V) -> f64 {
        dot(sub(b, a), cross(sub(c, a), sub(d, a))) / 6.0
    }
}
