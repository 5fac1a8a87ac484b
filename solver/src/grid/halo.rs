//! Ghost values on the CPU: one fill for every family and boundary condition, the reference
//! for the CUDA kernel `grid_halo` (kernels/cuda/grid.cu), which does the same per value.
//! Axes are filled in order x, y, z over the interior rows of the other two axes: faces only,
//! not edges and corners (the families' stencils are axis-aligned crosses).

use super::{BoundarySet, FaceBc, StructuredGrid};
use crate::output::Centring;
use crate::real::Real;

/// Fill the ghosts of every component of a padded array.
pub fn fill<T: Real>(g: &StructuredGrid, bc: &BoundarySet, f: &mut [T]) {
    let len = g.padded_len();
    for (c, comp) in f.chunks_mut(len).take(g.components).enumerate() {
        for axis in 0..3 {
            if g.halo[axis] > 0 {
                fill_axis(g, bc, axis, c, comp);
            }
        }
    }
}

/// The x ghosts of rows `rows` (ghost rows along y included; in every plane along z) of every
/// component: a slab that updates its ghost rows again, as the neighbour that owns them does,
/// needs theirs too.
pub fn fill_x_of_rows<T: Real>(g: &StructuredGrid, bc: &BoundarySet, f: &mut [T], rows: &[isize]) {
    let len = g.padded_len();
    let vertex = g.centring == Centring::Point;
    for (c, comp) in f.chunks_mut(len).take(g.components).enumerate() {
        let negate = bc.normal_component[0] == Some(c);
        for (k, &j) in (0..g.n[2] as isize).flat_map(|k| rows.iter().map(move |j| (k, j))) {
            let at = |v: isize| g.at(v, j, k);
            for side in 0..2 {
                fill_row(
                    &bc.faces[0][side],
                    vertex,
                    negate,
                    c,
                    g.halo[0] as isize,
                    g.n[0] as isize,
                    side,
                    &at,
                    comp,
                );
            }
        }
    }
}

fn fill_axis<T: Real>(g: &StructuredGrid, bc: &BoundarySet, axis: usize, comp: usize, f: &mut [T]) {
    let n = g.n.map(|v| v as isize);
    let (a1, a2) = ((axis + 1) % 3, (axis + 2) % 3);
    let vertex = g.centring == Centring::Point;
    let negate = bc.normal_component[axis] == Some(comp);
    for r2 in 0..n[a2] {
        for r1 in 0..n[a1] {
            let at = |v: isize| {
                let mut idx = [0isize; 3];
                idx[axis] = v;
                idx[a1] = r1;
                idx[a2] = r2;
                g.at(idx[0], idx[1], idx[2])
            };
            for side in 0..2 {
                let face = &bc.faces[axis][side];
                fill_row(face, vertex, negate, comp, g.halo[axis] as isize, n[axis], side, &at, f);
            }
        }
    }
}

/// The ghosts of one row on one side. `at(v)` is the padded index of value v along the axis.
#[allow(clippy::too_many_arguments)]
fn fill_row<T: Real>(
    face: &FaceBc,
    vertex: bool,
    negate: bool,
    comp: usize,
    halo: isize,
    nn: isize,
    side: usize,
    at: &dyn Fn(isize) -> usize,
    f: &mut [T],
) {
    // ghost(l) is ghost layer l (1 = next to the boundary); mirror(l) its even reflection.
    let ghost = |l: isize| if side == 0 { -l } else { nn - 1 + l };
    let mirror = |l: isize| {
        let m = if vertex { l } else { l - 1 };
        if side == 0 {
            m
        } else {
            nn - 1 - m
        }
    };
    match face {
        FaceBc::Periodic => {
            for l in 1..=halo {
                let src = if side == 0 { nn - l } else { l - 1 };
                f[at(ghost(l))] = f[at(src)];
            }
        }
        FaceBc::Dirichlet(values) => {
            let v = T::of(values[comp]);
            if vertex {
                f[at(if side == 0 { 0 } else { nn - 1 })] = v;
            }
            for l in 1..=halo {
                f[at(ghost(l))] = T::of(2.0) * v - f[at(mirror(l))];
            }
        }
        FaceBc::Reflect => {
            for l in 1..=halo {
                let m = f[at(mirror(l))];
                f[at(ghost(l))] = if negate { -m } else { m };
            }
        }
        FaceBc::Outflow => {
            let edge = f[at(if side == 0 { 0 } else { nn - 1 })];
            for l in 1..=halo {
                f[at(ghost(l))] = edge;
            }
        }
        FaceBc::Neighbour => {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BoundarySet, FaceBc, GridSpec, StructuredGrid};
    use super::*;

    fn grid(centring: Centring, bc: &BoundarySet, components: usize) -> StructuredGrid {
        let spec = GridSpec {
            cells: [6, 1, 1],
            origin: [0.0; 3],
            extent: [1.0; 3],
        };
        StructuredGrid::new(&spec, centring, bc, [2, 0, 0], components)
    }

    /// The row of one component, ghosts included: [g-2, g-1, interior..., g+1, g+2].
    fn row(g: &StructuredGrid, f: &[f64], c: usize) -> Vec<f64> {
        let base = c * g.padded_len();
        (-2..g.n[0] as isize + 2).map(|i| f[base + g.at(i, 0, 0)]).collect()
    }

    fn filled(face: FaceBc, centring: Centring, components: usize) -> (StructuredGrid, Vec<f64>) {
        let mut bc = BoundarySet::periodic();
        bc.faces[0] = [face.clone(), face];
        bc.normal_component[0] = Some(1);
        let g = grid(centring, &bc, components);
        let interior: Vec<f64> = (0..g.points() * components).map(|i| 1.0 + i as f64).collect();
        let mut f = g.pad(&interior);
        fill(&g, &bc, &mut f);
        (g, f)
    }

    #[test]
    fn each_condition_fills_the_ghosts_it_should() {
        let (g, f) = filled(FaceBc::Periodic, Centring::Cell, 1);
        assert_eq!(row(&g, &f, 0), [5., 6., 1., 2., 3., 4., 5., 6., 1., 2.]);
        let (g, f) = filled(FaceBc::Outflow, Centring::Cell, 1);
        assert_eq!(row(&g, &f, 0), [1., 1., 1., 2., 3., 4., 5., 6., 6., 6.]);
        // Cell-centred wall: even reflection about the face; component 1 (normal) negated.
        let (g, f) = filled(FaceBc::Reflect, Centring::Cell, 2);
        assert_eq!(row(&g, &f, 0), [2., 1., 1., 2., 3., 4., 5., 6., 6., 5.]);
        assert_eq!(row(&g, &f, 1), [-8., -7., 7., 8., 9., 10., 11., 12., -12., -11.]);
        // Cell-centred Dirichlet 0: odd reflection about the face.
        let (g, f) = filled(FaceBc::Dirichlet(vec![0.0]), Centring::Cell, 1);
        assert_eq!(row(&g, &f, 0), [-2., -1., 1., 2., 3., 4., 5., 6., -6., -5.]);
        // Vertex-centred Dirichlet 10: the boundary points hold 10, ghosts 2 v - mirror.
        let (g, f) = filled(FaceBc::Dirichlet(vec![10.0]), Centring::Point, 1);
        assert_eq!(row(&g, &f, 0), [17., 18., 10., 2., 3., 4., 5., 6., 10., 14., 15.]);
        // A neighbour face is left to the halo exchange.
        let (g, f) = filled(FaceBc::Neighbour, Centring::Cell, 1);
        assert_eq!(row(&g, &f, 0), [0., 0., 1., 2., 3., 4., 5., 6., 0., 0.]);
    }
}
