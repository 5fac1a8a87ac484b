//! What a case needs before it runs, and whether the chosen backend has it: memory (device or
//! host) estimated from the parsed case before anything is allocated, and on the CPU the time
//! the run would take. A case too large for the device is refused with both figures before it
//! is built (`backend::resolve` applies these rules as it opens the device); `--backend auto`
//! without a usable device runs a case on the CPU only when the estimate is under
//! `AUTO_CPU_LIMIT_S`, saying so, and otherwise refuses naming the time.

use super::case::Case;
use super::config::CaseDoc;
use super::family::Setup;
use super::ranks;
use crate::error::Result;

/// The most CPU time `--backend auto` gives a case without a device unasked (one hour).
pub const AUTO_CPU_LIMIT_S: f64 = 3600.0;

/// Bytes in words: "812 MiB", "37.5 GiB".
pub fn bytes_in_words(b: f64) -> String {
    const MIB: f64 = (1u64 << 20) as f64;
    const GIB: f64 = (1u64 << 30) as f64;
    if b < GIB {
        format!("{:.0} MiB", b / MIB)
    } else if b < 1024.0 * GIB {
        format!("{:.1} GiB", b / GIB)
    } else {
        format!("{:.1} TiB", b / (1024.0 * GIB))
    }
}

/// Seconds in words: "40 s", "12 min", "3.5 h", "2.3 days".
pub fn seconds_in_words(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.0} s")
    } else if s < 7200.0 {
        format!("{:.0} min", s / 60.0)
    } else if s < 2.0 * 86400.0 {
        format!("{:.1} h", s / 3600.0)
    } else {
        format!("{:.1} days", s / 86400.0)
    }
}

/// Refuses a case that needs `need` bytes where `free` (of `total`) are available on `what`.
pub fn check_fits(need: f64, free: f64, total: f64, what: &str) -> std::result::Result<(), String> {
    if need <= free {
        return Ok(());
    }
    Err(format!(
        "the case needs about {} of memory and {what} has {} free (of {}); make it smaller (grid.dims, a coarser mesh), use run.precision = \"f32\" where the family allows it, or run it where there is more memory",
        bytes_in_words(need),
        bytes_in_words(free),
        bytes_in_words(total)
    ))
}

/// Refuses a CPU run `--backend auto` fell back to when it would take longer than the limit.
pub fn check_auto_cpu_time(seconds: f64, why: &str, detail: &str) -> std::result::Result<(), String> {
    if seconds <= AUTO_CPU_LIMIT_S {
        return Ok(());
    }
    Err(format!(
        "no CUDA device ({why}), and on the CPU this case would take about {} ({detail}), more than the {} that --backend auto gives the CPU unasked; run it on a machine with a GPU, make it smaller (grid.dims, mesh, time.steps or time.end_time), or run it on the CPU anyway with --backend cpu",
        seconds_in_words(seconds),
        seconds_in_words(AUTO_CPU_LIMIT_S)
    ))
}

/// The host's available memory (MemAvailable) and total, where the system says.
pub fn host_memory() -> Option<(f64, f64)> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib = |key: &str| -> Option<f64> {
        let line = text.lines().find(|l| l.starts_with(key))?;
        line.split_whitespace().nth(1)?.parse::<f64>().ok().map(|k| k * 1024.0)
    };
    Some((kib("MemAvailable:")?, kib("MemTotal:")?))
}

/// The bytes one device (`cuda`) or one CPU process holds: a family that decomposes its grid
/// gives each MPI rank its share, and on CUDA each of the rank's `run.gpus` devices a share of
/// that (the CPU backend takes one part per rank whatever `run.gpus` says).
pub fn per_part(setup: &dyn Setup, doc: &CaseDoc, bytes: f64, cuda: bool) -> f64 {
    if !setup.decomposes() {
        return bytes;
    }
    let devices = if cuda { doc.run.gpus.max(1) } else { 1 };
    bytes / (devices * ranks::world().size()) as f64
}

/// After `auto` fell back to the CPU (for `why`) and the case is built, before any step: the
/// estimated CPU time, said, and refused above `AUTO_CPU_LIMIT_S`.
pub fn check_cpu_time(case: &mut Case, doc: &CaseDoc, why: &str, quiet: bool) -> Result<()> {
    let threads = rayon::current_num_threads();
    let Some(f) = case.setup.footprint(doc.run.precision) else {
        if !quiet {
            eprintln!("backend: cpu ({threads} threads) [auto: {why}]");
        }
        return Ok(());
    };
    let steps = match (case.schedule.total_steps(), case.schedule.end_time) {
        (Some(n), _) => n as f64,
        // Adaptive steps to an end time: as many as the first stable step gives.
        (None, Some(end)) => end / case.sim.stable_dt(case.schedule.cfl)?.max(f64::MIN_POSITIVE),
        (None, None) => 0.0,
    };
    let per_step = per_part(&*case.setup, doc, f.cpu_core_seconds_per_step, false) / threads as f64;
    let seconds = steps * per_step;
    let detail = format!("{steps:.0} steps of {per_step:.3} s on {threads} threads");
    check_auto_cpu_time(seconds, why, &detail).map_err(|m| doc.error("run.backend", m))?;
    if !quiet {
        eprintln!(
            "backend: cpu ({threads} threads) [auto: {why}]; estimated {} on the CPU",
            seconds_in_words(seconds)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framework::Footprint;

    const GIB: f64 = (1u64 << 30) as f64;

    /// A grid too large for an 80 GiB device is refused naming both figures; one that fits
    /// passes; the words round as a reader expects.
    #[test]
    fn a_case_too_large_for_the_device_is_refused_with_both_figures() {
        let heat_1024 = Footprint::per_cell(1024 * 1024 * 1024, 3.0 * 8.0 * 1.03, 6.7e-8);
        assert!(check_fits(heat_1024.bytes, 79.0 * GIB, 80.0 * GIB, "CUDA device 0 (H100)").is_ok());
        let heat_2048 = Footprint::per_cell(2048 * 2048 * 2048, 3.0 * 8.0 * 1.03, 6.7e-8);
        let e = check_fits(heat_2048.bytes, 79.0 * GIB, 80.0 * GIB, "CUDA device 0 (H100)").unwrap_err();
        assert!(
            e.contains("needs about 197.8 GiB") && e.contains("CUDA device 0 (H100) has 79.0 GiB free (of 80.0 GiB)"),
            "{e}"
        );
        assert_eq!(bytes_in_words(812.0 * 1048576.0), "812 MiB");
        assert_eq!(seconds_in_words(40.0), "40 s");
        assert_eq!(seconds_in_words(720.0), "12 min");
        assert_eq!(seconds_in_words(2.3 * 86400.0), "2.3 days");
    }

    /// `auto` on a machine without a device: a case of minutes runs on the CPU; the thesis cube
    /// at 1024^3 for 2000 steps (20 hours on 2 cores at the CPU's measured rate) is refused
    /// naming the time.
    #[test]
    fn auto_does_not_hand_the_cpu_a_case_of_hours() {
        let small = Footprint::per_cell(64 * 64 * 64, 30.0, 6.7e-8);
        assert!(check_auto_cpu_time(200.0 * small.cpu_core_seconds_per_step / 2.0, "no driver", "").is_ok());
        let big = Footprint::per_cell(1024 * 1024 * 1024, 30.0, 6.7e-8);
        let seconds = 2000.0 * big.cpu_core_seconds_per_step / 2.0;
        let e = check_auto_cpu_time(seconds, "no CUDA driver", "2000 steps").unwrap_err();
        assert!(
            e.contains("about 20.0 h (2000 steps)") && e.contains("--backend cpu"),
            "{e}"
        );
    }
}
