//! The faces of a tetrahedron and the encoding of boundary faces in a neighbour table: what
//! both the topology and the periodic joining read, kept apart so that neither imports the
//! other.
//!
//! Local face `i` of a tetrahedron is the face opposite its vertex `i`, with vertices
//! `FACE_VERTS[i]` ordered so that the right-hand normal points out of a positively oriented cell.

use crate::mesh::vec3;

/// Vertices of local face `i` (opposite vertex `i`), ordered for an outward normal.
pub const FACE_VERTS: [[usize; 3]; 4] = [[1, 2, 3], [0, 3, 2], [0, 1, 3], [0, 2, 1]];

/// Neighbour entries with this bit set are boundary faces; the low bits are the patch index.
pub const BOUNDARY: u32 = 0x8000_0000;

#[inline]
pub fn is_boundary(n: u32) -> bool {
    n & BOUNDARY != 0
}

#[inline]
pub fn patch_of(n: u32) -> u32 {
    n & !BOUNDARY
}

/// The centre of local face `f` of cell `t`.
pub fn face_centre(nodes: &[[f64; 3]], t: &[u32; 4], f: usize) -> [f64; 3] {
    let mut c = [0.0; 3];
    for &k in &FACE_VERTS[f] {
        c = vec3::add(c, nodes[t[k] as usize]);
    }
    vec3::scale(c, 1.0 / 3.0)
}
