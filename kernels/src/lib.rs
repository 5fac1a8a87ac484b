//! CUDA C kernel sources (`kernels/cuda/*.cu`, `*.cuh`), embedded in the binary, and their
//! compilation by NVRTC at run time for the device's own architecture, with `-DREAL=float`
//! or `double`. Compiled PTX is cached on disk between runs, keyed by a checksum of the
//! source and the options.

use cudarc::nvrtc::{CompileOptions, Ptx};
use std::path::PathBuf;

/// Shared header, inlined into every module (NVRTC gets one self-contained source).
const COMMON: &str = include_str!("../cuda/common.cuh");

/// Every kernel module: (name, source, extra NVRTC options).
pub const MODULES: &[(&str, &str, &[&str])] = &[
    ("heat", include_str!("../cuda/heat.cu"), &[]),
    ("reduce", include_str!("../cuda/reduce.cu"), &[]),
    // Location and interpolation make discrete choices from rounded values: no fused
    // multiply-adds, so the GPU rounds as the CPU does and both choose alike.
    ("advect", include_str!("../cuda/advect.cu"), &["--fmad=false"]),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Real {
    F32,
    F64,
}

impl Real {
    pub fn c_type(self) -> &'static str {
        match self {
            Real::F32 => "float",
            Real::F64 => "double",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    #[error("NVRTC (libnvrtc.so) was not found: install the CUDA toolkit's NVRTC or `pip install nvidia-cuda-nvrtc` and add its lib folder to LD_LIBRARY_PATH (scripts/env.sh does this)")]
    NvrtcMissing,
    #[error("no kernel module named '{0}'")]
    UnknownModule(String),
    #[error("NVRTC failed to compile kernel module '{module}' ({options}):\n{log}")]
    Compile {
        module: String,
        options: String,
        log: String,
    },
}

pub fn nvrtc_available() -> bool {
    // SAFETY: only probes for the shared library.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// The full source of a module with the shared header inlined.
fn module_entry(module: &str) -> Result<&'static (&'static str, &'static str, &'static [&'static str]), KernelError> {
    MODULES
        .iter()
        .find(|m| m.0 == module)
        .ok_or_else(|| KernelError::UnknownModule(module.into()))
}

pub fn source(module: &str) -> Result<String, KernelError> {
    Ok(module_entry(module)?.1.replace("#include \"common.cuh\"", COMMON))
}

fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("CFD_KERNEL_CACHE") {
        return Some(PathBuf::from(d));
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("cfd-gpu").join("kernels"))
}

/// Compile `module` for `arch` (e.g. "sm_90") with `REAL` = `real` and extra `-D` defines,
/// caching in the default folder ($CFD_KERNEL_CACHE, else ~/.cache/cfd-gpu/kernels).
/// Returns the PTX and whether it came from the cache.
pub fn compile(module: &str, real: Real, arch: &str, defines: &[(&str, &str)]) -> Result<(Ptx, bool), KernelError> {
    compile_in(cache_dir().as_deref(), module, real, arch, defines)
}

/// As `compile`, with an explicit cache folder (`None`: no cache).
pub fn compile_in(
    cache: Option<&std::path::Path>,
    module: &str,
    real: Real,
    arch: &str,
    defines: &[(&str, &str)],
) -> Result<(Ptx, bool), KernelError> {
    let src = source(module)?;
    let mut options = vec![
        format!("--gpu-architecture={arch}"),
        format!("-DREAL={}", real.c_type()),
        "-std=c++17".into(),
    ];
    options.extend(defines.iter().map(|(k, v)| format!("-D{k}={v}")));
    options.extend(module_entry(module)?.2.iter().map(|o| o.to_string()));
    let key = {
        let mut h = crc32fast::Hasher::new();
        h.update(src.as_bytes());
        h.update(options.join(" ").as_bytes());
        format!(
            "{module}-{arch}-{}-{:08x}-{}.ptx",
            real.c_type(),
            h.finalize(),
            src.len()
        )
    };
    let cached = cache.map(|d| d.join(&key));
    if let Some(text) = cached.as_ref().and_then(|p| std::fs::read_to_string(p).ok()) {
        return Ok((Ptx::from_src(text), true));
    }
    if !nvrtc_available() {
        return Err(KernelError::NvrtcMissing);
    }
    let opts = CompileOptions {
        options: options.clone(),
        name: Some(format!("{module}.cu")),
        ..Default::default()
    };
    let ptx = cudarc::nvrtc::compile_ptx_with_opts(&src, opts).map_err(|e| KernelError::Compile {
        module: module.into(),
        options: options.join(" "),
        log: match &e {
            cudarc::nvrtc::CompileError::CompileError { log, .. } => log.to_string_lossy().into_owned(),
            other => format!("{other:?}"),
        },
    })?;
    if let Some(path) = cached {
        // Best effort: a read-only cache folder only costs a recompile next time.
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
            let tmp = path.with_extension(format!("tmp{}", std::process::id()));
            if std::fs::write(&tmp, ptx.to_src()).is_ok() {
                let _ = std::fs::rename(&tmp, &path);
            }
        }
    }
    Ok((ptx, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CI has no GPU, but NVRTC compiles without one: every module, both precisions, for
    /// Ampere and Hopper. Skipped visibly when NVRTC is absent (required under CI).
    #[test]
    fn every_kernel_compiles_with_nvrtc() {
        if !nvrtc_available() {
            assert!(
                std::env::var_os("CI").is_none(),
                "NVRTC is required under CI (scripts/setup.sh installs it)"
            );
            eprintln!("SKIPPED: NVRTC not found; source scripts/env.sh after scripts/setup.sh");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let cache = Some(dir.path());
        for (module, _, _) in MODULES {
            for real in [Real::F32, Real::F64] {
                for arch in ["sm_80", "sm_90"] {
                    let (ptx, cached) = compile_in(cache, module, real, arch, &[]).unwrap_or_else(|e| panic!("{e}"));
                    assert!(!cached);
                    assert!(
                        ptx.to_src().contains(".entry"),
                        "{module} {arch}: no kernel entry in PTX"
                    );
                    let (_, cached) = compile_in(cache, module, real, arch, &[]).unwrap();
                    assert!(cached, "second compile must come from the cache");
                }
            }
        }
    }

    #[test]
    fn compile_errors_carry_the_log() {
        if !nvrtc_available() {
            eprintln!("SKIPPED: NVRTC not found");
            return;
        }
        let e = compile_in(None, "heat", Real::F64, "sm_90", &[("TX", "x+")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("heat") && e.contains("error"), "{e}");
    }
}
