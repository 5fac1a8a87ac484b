//! The pieces called per component: two fields advected on the same traced departure points
//! give exactly what two separate steps give.

use super::cpu::HostSl;
use super::*;
use crate::mesh::{test_box, TetGeometry};
use std::sync::Arc;

/// A steady swirl about the box's vertical axis with a drift along z.
struct Swirl;

impl VelocityField<f64> for Swirl {
    fn eval(&self, x: [f64; 3], _cell: usize, _t: f64, _step: u64) -> ([f64; 3], [[f64; 3]; 3]) {
        let v = [-(x[1] - 0.5), x[0] - 0.5, 0.2];
        (v, [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0; 3]])
    }
}

fn ops(interpolation: Interpolation) -> HostSl<f64, Swirl> {
    let mut pm = test_box([6, 6, 6]);
    let xmin = pm.patch_index("xmin").unwrap();
    let mut bc = vec![f64::NAN; pm.patches.len()];
    bc[xmin] = 0.25;
    let geo = Arc::new(TetGeometry::<f64>::take(&mut pm, &bc));
    HostSl::new(geo, 200, Swirl, interpolation, bc)
}

#[test]
fn two_components_on_the_same_departures_match_two_separate_steps() {
    let span = Span {
        t: 0.0,
        dt: 0.15,
        step: 0,
    };
    for interpolation in [
        Interpolation::Quadratic,
        Interpolation::Voronoi,
        Interpolation::VoronoiGrad,
        Interpolation::Linear,
    ] {
        let mut o = ops(interpolation);
        let bump: Vec<f64> = o
            .geo
            .centroids
            .iter()
            .map(|x| (-8.0 * (x[0] - 0.7).powi(2)).exp())
            .collect();
        let ramp: Vec<f64> = o.geo.centroids.iter().map(|x| x[1] - 2.0 * x[2]).collect();
        for (scheme, limiter) in [(Scheme::Bfecc, true), (Scheme::Bfecc, false), (Scheme::Sl1, false)] {
            let method = Method { scheme, limiter };
            let deps = trace(&mut o, method, span).unwrap();
            let together = [&bump, &ramp].map(|f| transport(&mut o, method, &deps, f).unwrap());
            let apart = [&bump, &ramp].map(|f| step(&mut o, method, span, f).unwrap());
            assert_eq!(together, apart, "{interpolation:?} {method:?}");
            assert_ne!(together[0], bump, "nothing moved");
            if limiter {
                // Inside the donors' range of the field and the wall value.
                let (lo, hi) = (0.0, 1.0);
                assert!(together[0].iter().all(|&v| (lo..=hi).contains(&v)), "{interpolation:?}");
            }
        }
    }
}
