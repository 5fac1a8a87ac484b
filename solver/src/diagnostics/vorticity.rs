//! Vortex identification for the output of any family with a cell velocity on a tetrahedral
//! mesh: the vorticity vector, its magnitude and the Q-criterion as cell `Field`s, from the
//! velocity gradient tensor (`mesh::vertex_gradients`, exact for linear velocities in every
//! cell). Needs from a family: its `TetGeometry` and its cell velocity (three component arrays).
//! Post-processing only: computed in f64 on the CPU, whatever the run's precision.

use crate::mesh::vertex_gradients::velocity_gradients;
use crate::mesh::TetGeometry;
use crate::output::{Centring, Field};
use crate::real::Real;

/// Names of the derived fields in the VTU series (scripts/viz/render_dfg_slice.py reads them).
pub const VORTICITY: &str = "vorticity";
pub const VORTICITY_MAGNITUDE: &str = "vorticity_magnitude";
pub const Q_CRITERION: &str = "q_criterion";

/// The vorticity vector of a velocity gradient tensor: curl u.
pub fn vorticity(j: &[[f64; 3]; 3]) -> [f64; 3] {
    [j[2][1] - j[1][2], j[0][2] - j[2][0], j[1][0] - j[0][1]]
}

/// Q = (|Omega|^2 - |S|^2) / 2 with S and Omega the symmetric and antisymmetric parts of J
/// (Frobenius norms): positive where rotation dominates strain (Hunt, Wray & Moin 1988).
/// Solid-body rotation at angular velocity w gives Q = w^2, a pure shear 0.
pub fn q_criterion(j: &[[f64; 3]; 3]) -> f64 {
    let (mut s2, mut o2) = (0.0, 0.0);
    for a in 0..3 {
        for b in 0..3 {
            let s = 0.5 * (j[a][b] + j[b][a]);
            let o = 0.5 * (j[a][b] - j[b][a]);
            s2 += s * s;
            o2 += o * o;
        }
    }
    0.5 * (o2 - s2)
}

/// The cell fields `vorticity` (vector), `vorticity_magnitude` and `q_criterion` of the
/// velocity gradient tensors `grads` (one per cell).
pub fn derived_fields_from(grads: &[[[f64; 3]; 3]]) -> Vec<Field> {
    let w: Vec<[f64; 3]> = grads.iter().map(vorticity).collect();
    let mag = w
        .iter()
        .map(|w| (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt())
        .collect();
    vec![
        Field::vector(VORTICITY, 3, Centring::Cell, w.concat()),
        Field::scalar(VORTICITY_MAGNITUDE, Centring::Cell, mag),
        Field::scalar(Q_CRITERION, Centring::Cell, grads.iter().map(q_criterion).collect()),
    ]
}

/// `vorticity`, `vorticity_magnitude` and `q_criterion` as cell fields of the cell velocity
/// `u` (three component arrays).
pub fn derived_fields<R: Real>(m: &TetGeometry<R>, u: [&[R]; 3]) -> Vec<Field> {
    derived_fields_from(&velocity_gradients(m, u))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::test_geometry;

    /// The three components of the cell velocity u(x) at the centroids.
    fn velocity(m: &TetGeometry<f64>, u: impl Fn([f64; 3]) -> [f64; 3]) -> [Vec<f64>; 3] {
        let at: Vec<[f64; 3]> = m.centroids.iter().map(|&x| u(x)).collect();
        std::array::from_fn(|i| at.iter().map(|v| v[i]).collect())
    }

    fn fields(m: &TetGeometry<f64>, u: impl Fn([f64; 3]) -> [f64; 3]) -> Vec<Field> {
        let u = velocity(m, u);
        derived_fields(m, [&u[0], &u[1], &u[2]])
    }

    #[test]
    fn solid_body_rotation_has_vorticity_twice_the_rate_and_q_its_square() {
        let m = test_geometry([4, 3, 3]);
        let w = 1.5;
        let f = fields(&m, |x| [-w * (x[1] - 0.5), w * (x[0] - 0.5), 0.2]);
        assert_eq!(
            f.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
            [VORTICITY, VORTICITY_MAGNITUDE, Q_CRITERION]
        );
        assert_eq!((f[0].components, f[0].len()), (3, m.num_cells()));
        for c in 0..m.num_cells() {
            let v = &f[0].values[3 * c..3 * c + 3];
            assert!(
                v[0].abs() < 1e-10 && v[1].abs() < 1e-10 && (v[2] - 2.0 * w).abs() < 1e-10,
                "{v:?}"
            );
            assert!((f[1].values[c] - 2.0 * w).abs() < 1e-10);
            assert!((f[2].values[c] - w * w).abs() < 1e-10, "Q = {}", f[2].values[c]);
        }
    }

    #[test]
    fn shear_has_zero_q_and_pure_strain_negative_q() {
        let m = test_geometry([3, 3, 3]);
        let g = 2.0;
        let shear = fields(&m, |x| [g * x[1], 0.0, 0.0]);
        let strain = fields(&m, |x| [x[0], -x[1], 0.0]);
        for c in 0..m.num_cells() {
            assert!((shear[0].values[3 * c + 2] + g).abs() < 1e-10);
            assert!(shear[2].values[c].abs() < 1e-10);
            // S = diag(1, -1, 0): Q = -|S|^2 / 2 = -1; no rotation.
            assert!((strain[2].values[c] + 1.0).abs() < 1e-10);
            assert!(strain[1].values[c].abs() < 1e-10);
        }
    }
}
