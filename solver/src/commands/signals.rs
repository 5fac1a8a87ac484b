//! `solver signals FORCES.csv`: a run's signal statistics over another window, read back from
//! its forces.csv without running again. The estimators are the run's own
//! (`diagnostics::force_signals`, summary.json `signals`): mean and extremes of Cd and Cl, St and
//! its standard error from the lift, the mean drag's standard error, the two-step rms and the
//! drag's warm-up. A user who finds the statistics window started inside the transient
//! re-reads it here.

use crate::diagnostics::force_signals::ForceSeries;
use crate::error::{Result, SolverError};
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct SignalsOptions {
    /// A run's forces.csv, or forces.csv.gz (its time, cd and cl columns are read).
    pub forces: PathBuf,
    /// The window's start time [default: half the window's end, as a run without
    /// navier-stokes.statistics].
    #[arg(long)]
    pub from: Option<f64>,
    /// The window's end time [default: the last row's].
    #[arg(long)]
    pub to: Option<f64>,
    /// The reference length D of St = f D / U (the case's navier-stokes.forces.length).
    #[arg(long, default_value_t = 1.0)]
    pub length: f64,
    /// The reference speed U of St (the case's navier-stokes.forces.velocity).
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
}

/// Print the statistics over the window as summary.json's `signals` (JSON, on stdout); a
/// warning on stderr where the drag's start-up transient fills the window's start.
pub fn signals_command(o: &SignalsOptions) -> Result<()> {
    let cli = Path::new("<command line>");
    for (key, v) in [("--length", o.length), ("--speed", o.speed)] {
        if !(v.is_finite() && v > 0.0) {
            return Err(SolverError::config(cli, key, format!("{v} is not a positive number")));
        }
    }
    let (mut t, mut cd, mut cl) = read_forces(&o.forces)?;
    let to = o.to.unwrap_or(t.last().copied().unwrap_or(0.0));
    let keep = t.partition_point(|&s| s <= to);
    t.truncate(keep);
    cd.truncate(keep);
    cl.truncate(keep);
    let from = o.from.unwrap_or(0.5 * to);
    let dp = vec![f64::NAN; t.len()];
    let series = ForceSeries {
        t: &t,
        cd: &cd,
        cl: &cl,
        dp: &dp,
    };
    let signals = series.signals(from, Some((o.length, o.speed))).ok_or_else(|| {
        SolverError::config(
            &o.forces,
            "",
            format!("fewer than two rows with {from} <= time <= {to}: choose --from and --to inside the series"),
        )
    })?;
    if let Some(w) = signals.warmup_warning() {
        eprintln!("warning: {w}");
    }
    println!("{}", serde_json::to_string_pretty(&signals).unwrap());
    Ok(())
}

/// A text file, gunzipped where its name ends in .gz (runs kept as forces.csv.gz).
fn read_text(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    let file = std::fs::File::open(path)?;
    if path.extension().is_some_and(|e| e == "gz") {
        flate2::read::GzDecoder::new(file).read_to_string(&mut text)?;
    } else {
        std::io::BufReader::new(file).read_to_string(&mut text)?;
    }
    Ok(text)
}

/// The time, cd and cl columns of a forces.csv, found by name; every row complete, numeric and
/// later than the one before.
fn read_forces(path: &Path) -> Result<(Vec<f64>, Vec<f64>, Vec<f64>)> {
    let text = read_text(path).map_err(|e| SolverError::io(path, e))?;
    let mut lines = text.lines().enumerate();
    let header: Vec<&str> = lines
        .next()
        .map_or(vec![], |(_, l)| l.split(',').map(str::trim).collect());
    let column = |name: &str| {
        header.iter().position(|c| *c == name).ok_or_else(|| {
            let msg = format!(
                "no '{name}' column in its header '{}': give the forces.csv of a run with navier-stokes.forces",
                header.join(",")
            );
            SolverError::config(path, "line 1", msg)
        })
    };
    let columns = [column("time")?, column("cd")?, column("cl")?];
    let mut series: [Vec<f64>; 3] = Default::default();
    for (k, line) in lines.filter(|(_, l)| !l.trim().is_empty()) {
        let at = format!("line {}", k + 1);
        let values: Vec<&str> = line.split(',').map(str::trim).collect();
        if values.len() != header.len() {
            let msg = format!(
                "{} values where the header has {} columns: a torn or foreign row",
                values.len(),
                header.len()
            );
            return Err(SolverError::config(path, &at, msg));
        }
        for (s, (&c, name)) in series.iter_mut().zip(columns.iter().zip(["time", "cd", "cl"])) {
            let v = values[c].parse::<f64>().map_err(|_| {
                SolverError::config(path, &at, format!("'{}' in column {name} is not a number", values[c]))
            })?;
            s.push(v);
        }
        if let [.., a, b] = series[0][..] {
            // NaN times are refused too: they compare as neither.
            if b.partial_cmp(&a) != Some(std::cmp::Ordering::Greater) {
                return Err(SolverError::config(
                    path,
                    &at,
                    format!("time {b} does not follow the previous row's {a}"),
                ));
            }
        }
    }
    let [t, cd, cl] = series;
    Ok((t, cd, cl))
}
