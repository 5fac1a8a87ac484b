//! One set of boundary conditions for every structured family: what fills the ghost values on
//! each of the six faces.

use serde::{Deserialize, Serialize};

/// The condition on one face of the grid.
#[derive(Clone, Debug, PartialEq)]
pub enum FaceBc {
    /// The opposite face's interior values (both faces of the axis must be periodic).
    Periodic,
    /// A fixed value per component. Vertex-centred: the boundary point holds it and the ghosts
    /// are odd reflections about it (2 v - mirror); cell-centred: the face between the last
    /// cell and the first ghost holds it.
    Dirichlet(Vec<f64>),
    /// A wall: even reflection, with the component normal to the wall (the family says which,
    /// e.g. the momentum along the axis) negated.
    Reflect,
    /// Zero gradient: every ghost copies the nearest interior value.
    Outflow,
    /// Filled by another rank's halo exchange (several GPUs); the halo fill leaves it alone.
    Neighbour,
}

impl FaceBc {
    /// The code the CUDA halo kernel reads (kernels/cuda/grid.cuh).
    pub fn code(&self) -> i32 {
        match self {
            FaceBc::Periodic => 0,
            FaceBc::Dirichlet(_) => 1,
            FaceBc::Reflect => 2,
            FaceBc::Outflow => 3,
            FaceBc::Neighbour => 4,
        }
    }
}

/// The six faces ([axis][low, high]) and, for walls, which component each axis negates.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundarySet {
    pub faces: [[FaceBc; 2]; 3],
    /// The component normal to a wall across each axis (None: nothing is negated).
    pub normal_component: [Option<usize>; 3],
}

impl BoundarySet {
    pub fn periodic() -> Self {
        BoundarySet {
            faces: std::array::from_fn(|_| [FaceBc::Periodic, FaceBc::Periodic]),
            normal_component: [None; 3],
        }
    }

    pub fn is_periodic(&self, axis: usize) -> bool {
        self.faces[axis][0] == FaceBc::Periodic
    }

    /// A description of what is inconsistent, if anything: a periodic face opposite a
    /// non-periodic one, or Dirichlet values for the wrong number of components.
    pub fn problem(&self, components: usize) -> Option<String> {
        for (axis, [lo, hi]) in self.faces.iter().enumerate() {
            if (*lo == FaceBc::Periodic) != (*hi == FaceBc::Periodic) {
                return Some(format!("axis {axis}: periodic on one face needs periodic on the other"));
            }
            for f in [lo, hi] {
                if let FaceBc::Dirichlet(v) = f {
                    if v.len() != components {
                        return Some(format!(
                            "axis {axis}: a Dirichlet face needs {components} values, got {}",
                            v.len()
                        ));
                    }
                }
            }
        }
        None
    }
}

/// The `boundary` key of a family's section for the families whose faces are walls, outflow or
/// periodic (Euler, shallow water): one condition per axis, `x = "reflect"`, or `[low, high]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BoundarySection {
    #[serde(default)]
    pub x: AxisBc,
    #[serde(default)]
    pub y: AxisBc,
    #[serde(default)]
    pub z: AxisBc,
}

impl Default for BoundarySection {
    fn default() -> Self {
        BoundarySection {
            x: AxisBc::Both(Side::Outflow),
            y: AxisBc::Both(Side::Outflow),
            z: AxisBc::Both(Side::Outflow),
        }
    }
}

/// One condition for both faces of an axis, or `[low, high]`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum AxisBc {
    Both(Side),
    Sides([Side; 2]),
}

impl Default for AxisBc {
    fn default() -> Self {
        AxisBc::Both(Side::Outflow)
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    /// Zero gradient.
    Outflow,
    /// A wall: the normal momentum is reflected.
    Reflect,
    Periodic,
}

impl BoundarySection {
    /// The boundary set; component `first_momentum + a` (the momentum along axis a) is the
    /// one a wall across axis a negates.
    pub fn set(&self, first_momentum: usize) -> BoundarySet {
        let face = |s: Side| match s {
            Side::Outflow => FaceBc::Outflow,
            Side::Reflect => FaceBc::Reflect,
            Side::Periodic => FaceBc::Periodic,
        };
        let mut set = BoundarySet::periodic();
        for (axis, bc) in [self.x, self.y, self.z].iter().enumerate() {
            let [lo, hi] = match *bc {
                AxisBc::Both(s) => [s, s],
                AxisBc::Sides(s) => s,
            };
            set.faces[axis] = [face(lo), face(hi)];
            set.normal_component[axis] = Some(first_momentum + axis);
        }
        set
    }
}
