//! Compiling a module with NVRTC for the device's architecture, and the on-disk cache of what
//! it makes: the PTX, and the CUBIN for a real architecture (keyed also by the driver version),
//! which the driver loads without NVRTC or JIT.

use crate::source::source;
use crate::{KernelError, Module, Real};
use cudarc::nvrtc::Ptx;
use std::path::{Path, PathBuf};

/// Whether NVRTC's shared library can be loaded (no GPU is needed to compile).
pub fn nvrtc_available() -> bool {
    // SAFETY: only probes for the shared library.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
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

/// The cache folder in use: $CFD_KERNEL_CACHE, else $XDG_CACHE_HOME/cfd-gpu/kernels, else
/// ~/.cache/cfd-gpu/kernels (None where none of these is set). Removing it only costs the next
/// run a compile.
pub fn cache_folder() -> Option<PathBuf> {
    cache_dir()
}

/// A compiled module as the driver loads it: the CUBIN (machine code for the device's
/// architecture, loaded without any JIT) where there is one, else the PTX (JIT-compiled by the
/// driver at load).
pub enum Image {
    Cubin(Vec<u8>),
    Ptx(Ptx),
}

/// The module as the driver should load it, and whether it came from the on-disk cache: the
/// cached CUBIN (keyed by the source, the options and the driver version) if there is
/// one, else a fresh compile (both the CUBIN and the PTX are cached), else — where NVRTC is
/// missing — the cached PTX. A CUBIN the driver refuses falls back to [`compile`]'s PTX. The
/// warm path reads one file and never loads NVRTC.
pub fn image(module: Module, real: Real, arch: &str, defines: &[(&str, &str)]) -> Result<(Image, bool), KernelError> {
    image_in(cache_dir().as_deref(), module, real, arch, defines)
}

/// As [`image`], with an explicit cache folder (`None`: no cache).
pub fn image_in(
    cache: Option<&Path>,
    module: Module,
    real: Real,
    arch: &str,
    defines: &[(&str, &str)],
) -> Result<(Image, bool), KernelError> {
    let src = source(module)?;
    let options = options(module, real, arch, defines);
    let key = cache_key(module.name(), arch, real, &src, &options);
    let cubin_path = cache.map(|d| d.join(format!("{key}-{}.cubin", versions())));
    if let Some(bytes) = cubin_path.as_ref().and_then(|p| std::fs::read(p).ok()) {
        if bytes.starts_with(b"\x7fELF") {
            return Ok((Image::Cubin(bytes), true));
        }
    }
    let ptx_path = cache.map(|d| d.join(format!("{key}.ptx")));
    if !nvrtc_available() {
        if let Some(text) = ptx_path.as_ref().and_then(|p| std::fs::read_to_string(p).ok()) {
            return Ok((Image::Ptx(Ptx::from_src(text)), true));
        }
    }
    let (ptx, cubin) = nvrtc(module.name(), module.file(), &src, &options)?;
    if let Some(path) = ptx_path {
        store(&path, ptx.to_src().as_bytes());
    }
    match cubin {
        Some(bytes) => {
            if let Some(path) = cubin_path {
                store(&path, &bytes);
            }
            Ok((Image::Cubin(bytes), false))
        }
        None => Ok((Image::Ptx(ptx), false)),
    }
}

/// Compile `module` for `arch` (e.g. "sm_90") with `REAL` = `real` and extra `-D` defines,
/// caching in the default folder ($CFD_KERNEL_CACHE, else ~/.cache/cfd-gpu/kernels).
/// Returns the PTX and whether it came from the cache.
pub fn compile(module: Module, real: Real, arch: &str, defines: &[(&str, &str)]) -> Result<(Ptx, bool), KernelError> {
    compile_in(cache_dir().as_deref(), module, real, arch, defines)
}

/// As [`compile`], with an explicit cache folder (`None`: no cache).
pub fn compile_in(
    cache: Option<&Path>,
    module: Module,
    real: Real,
    arch: &str,
    defines: &[(&str, &str)],
) -> Result<(Ptx, bool), KernelError> {
    let src = source(module)?;
    let options = options(module, real, arch, defines);
    let key = cache_key(module.name(), arch, real, &src, &options);
    let cached = cache.map(|d| d.join(format!("{key}.ptx")));
    if let Some(text) = cached.as_ref().and_then(|p| std::fs::read_to_string(p).ok()) {
        return Ok((Ptx::from_src(text), true));
    }
    let (ptx, cubin) = nvrtc(module.name(), module.file(), &src, &options)?;
    if let Some(path) = cached {
        store(&path, ptx.to_src().as_bytes());
        if let (Some(dir), Some(bytes)) = (cache, cubin) {
            store(&dir.join(format!("{key}-{}.cubin", versions())), &bytes);
        }
    }
    Ok((ptx, false))
}

/// The define that compiles a module with the device's fast arithmetic (`run.math = "fast"`):
/// `--use_fast_math` (multiply-adds contracted; in single precision approximate division and
/// square root, denormals flushed to zero) instead of the module's own `--fmad=false`.
pub const FAST_MATH: (&str, &str) = ("CFD_FAST_MATH", "1");

/// NVRTC's options for a module: the real architecture (so NVRTC emits a CUBIN besides the PTX),
/// `REAL`, the caller's defines, the module's own (or the fast arithmetic's, with [`FAST_MATH`]).
fn options(module: Module, real: Real, arch: &str, defines: &[(&str, &str)]) -> Vec<String> {
    let mut options = vec![
        format!("--gpu-architecture={arch}"),
        format!("-DREAL={}", real.c_type()),
        "-std=c++17".into(),
    ];
    options.extend(defines.iter().map(|(k, v)| format!("-D{k}={v}")));
    if defines.contains(&FAST_MATH) {
        options.push("--use_fast_math".into());
    } else {
        options.extend(module.options().iter().map(|o| o.to_string()));
    }
    options
}

/// Best effort, atomically (a temporary file renamed): a read-only cache folder only costs a
/// recompile next time, and a concurrent run never reads half a file.
fn store(path: &Path, bytes: &[u8]) {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, bytes).is_ok() {
            let _ = std::fs::rename(&tmp, path);
        }
    }
}

/// The driver version a CUBIN is cached under, e.g. "driver13000" (0 without a driver). Not
/// NVRTC's: asking it loads libnvrtc (~110 MB, tens of ms at start and at exit), which a warm
/// cache must not need. A CUBIN stays valid machine code for its architecture whichever NVRTC
/// made it; one the driver refuses falls back to the PTX, and clearing the cache folder
/// recompiles everything with the NVRTC in use.
fn versions() -> String {
    static V: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    V.get_or_init(|| {
        let mut driver = 0;
        // SAFETY: only probes for the shared library, then an out-parameter.
        if unsafe { cudarc::driver::sys::is_culib_present() } {
            unsafe {
                let _ = cudarc::driver::sys::cuDriverGetVersion(&mut driver);
            }
        }
        format!("driver{driver}")
    })
    .clone()
}

/// Cache file name stem: a checksum of the resolved source (so of every header) and the options.
fn cache_key(module: &str, arch: &str, real: Real, src: &str, options: &[String]) -> String {
    let mut h = crc32fast::Hasher::new();
    h.update(src.as_bytes());
    h.update(options.join(" ").as_bytes());
    format!("{module}-{arch}-{}-{:08x}-{}", real.c_type(), h.finalize(), src.len())
}

/// Compiles resolved source `src`, named `file` in NVRTC's logs: the PTX, and the CUBIN where
/// the architecture is a real one (`sm_XX`).
fn nvrtc(module: &str, file: &str, src: &str, options: &[String]) -> Result<(Ptx, Option<Vec<u8>>), KernelError> {
    use cudarc::nvrtc::{result, sys};
    if !nvrtc_available() {
        return Err(KernelError::NvrtcMissing);
    }
    let fail = |log: String| KernelError::Compile {
        module: module.into(),
        options: options.join(" "),
        log,
    };
    let c_src = std::ffi::CString::new(src).map_err(|e| fail(e.to_string()))?;
    let c_name = std::ffi::CString::new(file).map_err(|e| fail(e.to_string()))?;
    let prog = result::create_program(&c_src, Some(&c_name)).map_err(|e| fail(format!("{e:?}")))?;
    // SAFETY: `prog` is live until destroyed below; c_src and c_name outlive it.
    let out = unsafe {
        let compiled = result::compile_program(prog, options);
        let out = match compiled {
            Err(e) => {
                let log = result::get_program_log(prog)
                    .map(|l| std::ffi::CStr::from_ptr(l.as_ptr()).to_string_lossy().into_owned())
                    .unwrap_or_else(|_| format!("{e:?}"));
                Err(fail(log))
            }
            Ok(()) => match result::get_ptx(prog) {
                Err(e) => Err(fail(format!("nvrtcGetPTX: {e:?}"))),
                Ok(ptx) => {
                    let text = std::ffi::CStr::from_ptr(ptx.as_ptr()).to_string_lossy().into_owned();
                    let mut size = 0usize;
                    let cubin = (sys::nvrtcGetCUBINSize(prog, &mut size).result().is_ok() && size > 0)
                        .then(|| {
                            let mut bytes = vec![0u8; size];
                            sys::nvrtcGetCUBIN(prog, bytes.as_mut_ptr() as *mut _)
                                .result()
                                .ok()
                                .map(|_| bytes)
                        })
                        .flatten();
                    Ok((Ptx::from_src(text), cubin))
                }
            },
        };
        let _ = result::destroy_program(prog);
        out
    };
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::resolve;
    use crate::swe;
    use std::collections::BTreeSet;

    /// Whether NVRTC is there to test with; without it a test skips visibly, except under CI
    /// (which has no GPU but must have NVRTC), where it fails.
    fn have_nvrtc() -> bool {
        if nvrtc_available() {
            return true;
        }
        assert!(
            std::env::var_os("CI").is_none(),
            "NVRTC is required under CI (scripts/setup.sh installs it)"
        );
        eprintln!("SKIPPED: NVRTC not found; source scripts/env.sh after scripts/setup.sh");
        false
    }

    /// The names of the `.entry` points of a PTX module.
    fn ptx_entries(ptx: &str) -> BTreeSet<String> {
        ptx.lines()
            .filter_map(|l| {
                let rest = &l[l.find(".entry ")? + ".entry ".len()..];
                Some(rest[..rest.find('(').unwrap_or(rest.len())].trim().to_string())
            })
            .collect()
    }

    /// CI has no GPU, but NVRTC compiles without one: every module, both precisions, for
    /// Ampere and Hopper, the second time from the cache; and every kernel the host may load is
    /// an `.entry` of its compiled module, and every `.entry` is declared as a kernel constant
    /// (so a new `__global__` must be declared). One test, so that each module is compiled once
    /// an architecture and precision (CI's time).
    #[test]
    fn every_module_compiles_with_nvrtc_and_declares_its_entries() {
        if !have_nvrtc() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let cache = Some(dir.path());
        // One thread an architecture: the test is CI's longest, and NVRTC compiles on one core.
        std::thread::scope(|scope| {
            for arch in ["sm_80", "sm_90"] {
                scope.spawn(move || {
                    for module in Module::ALL {
                        for real in [Real::F32, Real::F64] {
                            let (ptx, cached) =
                                compile_in(cache, module, real, arch, &[]).unwrap_or_else(|e| panic!("{e}"));
                            assert!(!cached);
                            if arch == "sm_80" {
                                check_entries(module, real, &ptx.to_src());
                            }
                            let (_, cached) = compile_in(cache, module, real, arch, &[]).unwrap();
                            assert!(cached, "second compile must come from the cache");
                        }
                    }
                });
            }
        });
    }

    /// Every kernel declared in `kernels::{module}` is an `.entry` of the PTX, and every `.entry`
    /// is declared.
    fn check_entries(module: Module, real: Real, ptx: &str) {
        for name in module.entries() {
            assert!(
                ptx.contains(&format!(".entry {name}(")),
                "{module} ({real:?}): kernel {name} is declared in kernels::{module} but is no `.entry` of the PTX"
            );
        }
        let declared: BTreeSet<String> = module.entries().iter().map(|s| s.to_string()).collect();
        let found = ptx_entries(ptx);
        assert_eq!(found.len(), ptx.matches(".entry ").count());
        let undeclared: Vec<_> = found.difference(&declared).collect();
        assert!(
            undeclared.is_empty(),
            "{module} ({real:?}): PTX entries {undeclared:?} have no Kernel constant in kernels::{module}"
        );
    }

    /// The CUBIN cache: a real architecture gives a CUBIN (an ELF image the driver loads without
    /// JIT), cached with the PTX and read back the second time; a corrupt cached CUBIN is not
    /// handed to the driver but compiled anew.
    #[test]
    fn cubin_is_cached_for_the_real_architecture() {
        if !have_nvrtc() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let cache = Some(dir.path());
        let is_cubin = |i: &Image| matches!(i, Image::Cubin(b) if b.starts_with(b"\x7fELF"));
        let (image, cached) = image_in(cache, Module::Reduce, Real::F32, "sm_90", &[]).unwrap();
        assert!(!cached && is_cubin(&image));
        let (image, cached) = image_in(cache, Module::Reduce, Real::F32, "sm_90", &[]).unwrap();
        assert!(cached && is_cubin(&image), "the second load must come from the cache");
        let (_, cached) = compile_in(cache, Module::Reduce, Real::F32, "sm_90", &[]).unwrap();
        assert!(cached, "the PTX of the same compile is cached too");
        let cubins: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "cubin"))
            .collect();
        assert_eq!(cubins.len(), 1, "{cubins:?}");
        let name = cubins[0].file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.contains("-driver"), "{name}");
        std::fs::write(&cubins[0], b"not an ELF image").unwrap();
        let (image, cached) = image_in(cache, Module::Reduce, Real::F32, "sm_90", &[]).unwrap();
        assert!(!cached && is_cubin(&image));
    }

    /// The heat register-queue kernel with the launch shapes the host may compile in (vector
    /// columns VX, rows RY, tile), both precisions: the default build above uses VX = 1 only.
    #[test]
    fn heat_compiles_with_every_launch_shape() {
        if !have_nvrtc() {
            return;
        }
        for real in [Real::F32, Real::F64] {
            for (tx, ty, ry, vx) in [("32", "4", "2", "2"), ("64", "4", "1", "2"), ("32", "8", "1", "1")] {
                let defs = [("TX", tx), ("TY", ty), ("RY", ry), ("VX", vx), ("MINB", "4")];
                let (ptx, _) = compile_in(None, Module::Heat, real, "sm_90", &defs).unwrap_or_else(|e| panic!("{e}"));
                assert!(ptx.to_src().contains(".entry heat_rq_stage("), "{real:?} {defs:?}");
            }
        }
    }

    /// `run.math = "fast"` has options of its own (so a cache entry of its own): the device's
    /// fast arithmetic instead of `--fmad=false`. (The march's test below compiles it in both
    /// precisions.)
    #[test]
    fn fast_math_has_options_of_its_own() {
        assert!(options(Module::Euler, Real::F32, "sm_90", &[FAST_MATH]).contains(&"--use_fast_math".to_string()));
        assert!(!options(Module::Euler, Real::F32, "sm_90", &[FAST_MATH]).contains(&"--fmad=false".to_string()));
        assert!(options(Module::Euler, Real::F32, "sm_90", &[]).contains(&"--fmad=false".to_string()));
    }

    /// A 2D grid's zero momentum across its plane compiled out of the Euler sweeps
    /// (`EULER_ZERO_MOMENTUM`, cases/euler/cuda.rs): each inactive axis once, with fast math once
    /// (the define only names the component, so each pairing need not be compiled).
    #[test]
    fn euler_compiles_with_a_zero_momentum() {
        if !have_nvrtc() {
            return;
        }
        for (c, fast) in [("1", false), ("2", true), ("3", false)] {
            let mut defines = vec![("EULER_ZERO_MOMENTUM", c)];
            if fast {
                defines.push(FAST_MATH);
            }
            compile_in(None, Module::Euler, Real::F32, "sm_90", &defines).unwrap_or_else(|e| panic!("{c}: {e}"));
        }
    }

    /// The z march with its tile compiled in (`EULER_MARCH_TX`, `EULER_MARCH_TY`: cuda.rs passes
    /// the launch's): the default tile in single precision, exact and fast, and an odd one in
    /// double with fast math; the fast compiles keep every entry of the module. Three compiles,
    /// each ~10 s.
    #[test]
    fn euler_march_compiles_with_its_tile_compiled_in() {
        if !have_nvrtc() {
            return;
        }
        for (tx, ty, real, fast) in [
            ("32", "8", Real::F32, false),
            ("32", "8", Real::F32, true),
            ("7", "5", Real::F64, true),
        ] {
            let mut defines = vec![("EULER_MARCH_TX", tx), ("EULER_MARCH_TY", ty)];
            if fast {
                defines.push(FAST_MATH);
            }
            let (ptx, _) = compile_in(None, Module::Euler, real, "sm_90", &defines)
                .unwrap_or_else(|e| panic!("{tx} x {ty} {real:?}: {e}"));
            let src = ptx.to_src();
            let entries: &[&str] = if fast {
                Module::Euler.entries()
            } else {
                &["euler_rk_march"]
            };
            for name in entries {
                assert!(
                    src.contains(&format!(".entry {name}(")),
                    "{tx} x {ty} {real:?} fast {fast}: {name}"
                );
            }
        }
    }

    /// Shallow water's step kernel checks the host's size of its shared memory when compiled:
    /// a 32 x 16 tile compiles with `swe::step_shared_bytes`, and a size 4 bytes off does not
    /// (both with single precision's edge loops by axis, as the solver compiles it).
    #[test]
    fn swe_step_compiles_with_the_hosts_shared_memory_size_only() {
        if !have_nvrtc() {
            return;
        }
        let right = swe::step_shared_bytes(32, 16, 4);
        for (bytes, ok) in [(right, true), (right + 4, false)] {
            let b = bytes.to_string();
            let defines = [
                ("SWE_TX", "32"),
                ("SWE_TY", "16"),
                ("SWE_STEP_SHARED_BYTES", b.as_str()),
                ("SWE_EDGE_LOOPS_BY_AXIS", "1"),
            ];
            let r = compile_in(None, Module::Swe, Real::F32, "sm_90", &defines);
            assert_eq!(r.is_ok(), ok, "{bytes} bytes: {:?}", r.err());
        }
    }

    #[test]
    fn cache_key_covers_headers() {
        let root = "#include \"h.cuh\"\nint x;\n";
        let a = resolve("probe", "probe.cu", root, &[("h.cuh", "#pragma once\nint h;\n")]).unwrap();
        let b = resolve("probe", "probe.cu", root, &[("h.cuh", "#pragma once\nint g;\n")]).unwrap();
        let opts = ["-DREAL=float".to_string()];
        assert_ne!(
            cache_key("probe", "sm_90", Real::F32, &a, &opts),
            cache_key("probe", "sm_90", Real::F32, &b, &opts)
        );
    }

    /// NVRTC's log names the file and line of an error, in a header or in the module after it.
    #[test]
    fn compile_errors_name_the_file_and_line() {
        if !have_nvrtc() {
            return;
        }
        let headers: &[(&str, &str)] = &[("bad.cuh", "#pragma once\n// line 2\nint in_header = ;\n")];
        let root = "// line 1\n#include \"bad.cuh\"\n\n\nint in_root = ;\n";
        let src = resolve("probe", "probe.cu", root, headers).unwrap();
        let e = nvrtc("probe", "probe.cu", &src, &["--gpu-architecture=sm_80".into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad.cuh(3)") && e.contains("probe.cu(5)"), "{e}");

        // A real module: a bad tile define fails where heat.cu uses it.
        let e = compile_in(None, Module::Heat, Real::F64, "sm_90", &[("TX", "x+")])
            .unwrap_err()
            .to_string();
        let at = e.find("heat.cu(").unwrap_or_else(|| panic!("{e}")) + "heat.cu(".len();
        let line: usize = e[at..at + e[at..].find(')').unwrap()].parse().unwrap();
        let text = Module::Heat.text().lines().nth(line - 1).unwrap();
        // TX itself, or BX = TX * VX, the block's columns.
        assert!(
            (text.contains("TX") || text.contains("BX")) && e.contains("error"),
            "heat.cu:{line} is `{text}`:\n{e}"
        );
    }
}
