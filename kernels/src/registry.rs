//! The machinery of the module table in `lib.rs`: `modules!` turns one line a module into the
//! [`Module`] enum, [`Module::ALL`] and the table that every accessor of [`Module`] reads;
//! `kernels!` declares a module's kernel constants; `header!` embeds a header.

use crate::{Module, MODULES};

/// What the crate knows of a kernel module: one row of the table that `modules!` makes.
pub(crate) struct ModuleSpec {
    /// The stem of its `.cu` file.
    pub name: &'static str,
    /// Its file name.
    pub file: &'static str,
    /// Its embedded source, headers not yet resolved.
    pub text: &'static str,
    /// The NVRTC options it needs besides the architecture, `REAL` and the caller's defines.
    pub options: &'static [&'static str],
    /// The kernel functions the host may load from it.
    pub kernels: &'static [Kernel],
    /// Their names.
    pub entries: &'static [&'static str],
}

/// The module table: `Variant = "stem", options [..], kernels submodule;` a line, each with its
/// doc comment. Makes the [`Module`] enum (one variant a line, in table order), [`Module::ALL`]
/// and `MODULES`, whose row `m as usize` describes module `m`: the file `cuda/{stem}.cu`
/// embedded, its options, and the kernels declared (with `kernels!`) in `submodule`.
macro_rules! modules {
    ($($(#[$doc:meta])* $variant:ident = $stem:literal, options [$($option:literal),*], kernels $kernels:ident;)+) => {
        /// A kernel module: one `.cu` file of kernels/cuda/, compiled by itself into one PTX
        /// module (what the driver loads at once).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Module {
            $($(#[$doc])* $variant,)+
        }

        impl Module {
            /// Every module, e.g. to compile them all ahead of a run.
            pub const ALL: [Module; [$($stem),+].len()] = [$(Module::$variant),+];
        }

        /// One row a module, in the order of the [`Module`] variants.
        pub(crate) const MODULES: &[$crate::registry::ModuleSpec] = &[$(
            $crate::registry::ModuleSpec {
                name: $stem,
                file: concat!($stem, ".cu"),
                text: include_str!(concat!("../cuda/", $stem, ".cu")),
                options: &[$($option),*],
                kernels: $kernels::ALL,
                entries: $kernels::NAMES,
            },
        )+];
    };
}

/// Declares one module's kernel constants, with `ALL` and `NAMES` made from the same list so
/// that [`Module::kernels`] and [`Module::entries`] cannot drift from the constants.
macro_rules! kernels {
    ($module:ident: $($(#[$doc:meta])* $konst:ident = $name:literal,)+) => {
        use crate::{Kernel, Module};
        $(
            $(#[$doc])*
            pub const $konst: Kernel = Kernel { module: Module::$module, name: $name };
        )+
        /// Every kernel of this module, in the order declared.
        pub const ALL: &[Kernel] = &[$($konst),+];
        /// Their names, for [`Module::entries`].
        pub(crate) const NAMES: &[&str] = &[$($name),+];
    };
}

/// A header of kernels/cuda/ by the name that `#include "NAME"` gives it, and its text.
macro_rules! header {
    ($name:literal) => {
        ($name, include_str!(concat!("../cuda/", $name)))
    };
}

impl Module {
    fn spec(self) -> &'static ModuleSpec {
        &MODULES[self as usize]
    }

    /// The stem of its `.cu` file; it also names the module in errors and cache files.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// Its file name, as NVRTC's logs and the `#line` directives name it.
    pub(crate) fn file(self) -> &'static str {
        self.spec().file
    }

    /// Its embedded source, headers not yet resolved.
    pub(crate) fn text(self) -> &'static str {
        self.spec().text
    }

    /// NVRTC options this module needs besides the architecture, `REAL` and the caller's defines.
    pub fn options(self) -> &'static [&'static str] {
        self.spec().options
    }

    /// The kernel functions the host may load from this module.
    pub fn kernels(self) -> &'static [Kernel] {
        self.spec().kernels
    }

    /// The names of [`Module::kernels`]: exactly the `extern "C" __global__` functions of the
    /// module (a test checks this against the PTX both ways).
    pub fn entries(self) -> &'static [&'static str] {
        self.spec().entries
    }
}

impl std::fmt::Display for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A kernel function the host may load: its module and its (unmangled, `extern "C"`) name.
/// Use the constants of the per-module submodules rather than building one, so that
/// every name the host loads is checked against the compiled PTX by this crate's tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Kernel {
    pub module: Module,
    pub name: &'static str,
}

#[cfg(test)]
mod tests {
    use crate::{heat, reduce, Module, MODULES};
    use std::collections::HashSet;

    #[test]
    fn the_table_has_a_row_for_each_module_in_variant_order() {
        assert_eq!(MODULES.len(), Module::ALL.len());
        for (i, m) in Module::ALL.into_iter().enumerate() {
            assert_eq!(m as usize, i, "{m}: ALL is in variant order");
            assert_eq!(m.file(), format!("{}.cu", m.name()));
        }
    }

    #[test]
    fn every_kernel_constant_names_its_module_and_appears_once() {
        let mut all = HashSet::new();
        for module in Module::ALL {
            let names: Vec<_> = module.kernels().iter().map(|k| k.name).collect();
            assert_eq!(names, module.entries());
            for k in module.kernels() {
                assert_eq!(k.module, module, "{k:?} is listed under {module}");
                assert!(all.insert(k.name), "kernel name {} twice", k.name);
            }
        }
        assert_eq!(heat::RQ_STAGE.name, "heat_rq_stage");
        assert_eq!(reduce::COPY.module, Module::Reduce);
    }
}
