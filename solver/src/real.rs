//! Precision as a run-time choice: the numerical code is generic over `Real` (f32, f64).

use num_traits::{Float, FromPrimitive, ToPrimitive};

pub trait Real:
    Float
    + FromPrimitive
    + ToPrimitive
    + Send
    + Sync
    + Default
    + std::fmt::Debug
    + std::iter::Sum
    + 'static
    + cudarc::driver::DeviceRepr
    + cudarc::driver::ValidAsZeroBits
{
    const KERNEL: kernels::Real;
    fn of(x: f64) -> Self {
        Self::from_f64(x).unwrap()
    }
    fn f64(self) -> f64 {
        self.to_f64().unwrap()
    }
    fn to_le(self, out: &mut Vec<u8>);
    fn from_le(b: &[u8]) -> Self;
}

/// `Real` for a primitive float, with its kernel precision.
macro_rules! impl_real {
    ($t:ty, $k:ident) => {
        impl Real for $t {
            const KERNEL: kernels::Real = kernels::Real::$k;
            fn to_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes())
            }
            fn from_le(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().unwrap())
            }
        }
    };
}

impl_real!(f32, F32);
impl_real!(f64, F64);

/// Little-endian bytes of a slice of reals (checkpoints).
pub fn to_bytes<T: Real>(v: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(std::mem::size_of_val(v));
    for x in v {
        x.to_le(&mut out);
    }
    out
}

/// The reals of `to_bytes`.
pub fn from_bytes<T: Real>(b: &[u8]) -> Vec<T> {
    b.chunks_exact(std::mem::size_of::<T>()).map(T::from_le).collect()
}
