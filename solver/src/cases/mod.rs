//! The registry: the one list of physics families. Each family is a folder here whose `FAMILY`
//! implements `framework::Family`; adding one is its folder plus one line below, and nothing
//! else in the solver names it.

use crate::framework::Family;

/// Declares each family's module and lists its `Family` value in `FAMILIES`.
macro_rules! registry {
    ($($module:ident),* $(,)?) => {
        $(pub mod $module;)*
        /// Every family, in the order `solver cases` lists them.
        pub static FAMILIES: &[&dyn Family] = &[$(&$module::FAMILY),*];
    };
}

registry! {
    heat,
    advect,
    euler,
    swe,
    ns,
}
