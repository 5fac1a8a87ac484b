//! Time series for the forcing (a tide's level, a river's discharge): `time,value` lines of a
//! CSV file, or one constant, and the data files a case names: a path relative to the case
//! file, or `builtin:NAME` for the files shipped inside the solver (so that a template written
//! out by `solver cases` runs from any folder).

use crate::framework::CaseDoc;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Files embedded in the solver, by the name that follows `builtin:` (made by
/// scripts/dev/make_estuary.py, kept in meshes/).
const BUILTIN: &[(&str, &str)] = &[
    ("estuary.asc", include_str!("../../../../meshes/estuary.asc")),
    ("estuary-tide.csv", include_str!("../../../../meshes/estuary-tide.csv")),
    ("estuary-river.csv", include_str!("../../../../meshes/estuary-river.csv")),
];

/// The name and text of a data file: `builtin:NAME`, or a path relative to the case file.
pub fn data_file(doc: &CaseDoc, path: &Path) -> Result<(String, String), String> {
    let given = path.to_string_lossy();
    if let Some(name) = given.strip_prefix("builtin:") {
        return match BUILTIN.iter().find(|(n, _)| *n == name) {
            Some((_, text)) => Ok((given.into_owned(), text.to_string())),
            None => {
                let names: Vec<String> = BUILTIN.iter().map(|(n, _)| format!("builtin:{n}")).collect();
                Err(format!("{given}: no such built-in file (the solver has {})", names.join(", ")))
            }
        };
    }
    let full = doc.resolve(path);
    std::fs::read_to_string(&full)
        .map(|text| (full.display().to_string(), text))
        .map_err(|e| format!("{}: cannot read: {e} (paths are relative to the case file)", full.display()))
}

/// A value that may vary in time: a number, or a CSV file of `time,value` lines.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum SeriesSpec {
    Constant(f64),
    File(std::path::PathBuf),
}

impl SeriesSpec {
    /// The series, read and checked; errors name the file and line.
    pub fn load(&self, doc: &CaseDoc) -> Result<Series, String> {
        match self {
            SeriesSpec::Constant(v) if v.is_finite() => Ok(Series {
                times: vec![0.0],
                values: vec![*v],
            }),
            SeriesSpec::Constant(v) => Err(format!("{v} is not a finite number")),
            SeriesSpec::File(p) => {
                let (name, text) = data_file(doc, p)?;
                parse(&name, &text)
            }
        }
    }
}

/// Values at increasing times, linearly interpolated, held constant outside.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub times: Vec<f64>,
    pub values: Vec<f64>,
}

impl Series {
    /// The value at time t. The device evaluates it the same way (swe.cu, `series_at`): the
    /// same interval, the same arithmetic.
    pub fn at(&self, t: f64) -> f64 {
        at(&self.times, &self.values, t)
    }

    pub fn min(&self) -> f64 {
        self.values.iter().copied().fold(f64::INFINITY, f64::min)
    }
}

/// Linear interpolation in (times, values) at t, held constant outside; a binary search for
/// the last time <= t.
pub fn at(times: &[f64], values: &[f64], t: f64) -> f64 {
    let n = times.len();
    if t <= times[0] || t.is_nan() {
        return values[0];
    }
    if t >= times[n - 1] {
        return values[n - 1];
    }
    let (mut lo, mut hi) = (0, n - 1);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if times[mid] <= t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    values[lo] + (values[hi] - values[lo]) * ((t - times[lo]) / (times[hi] - times[lo]))
}

/// Parse `time,value` lines (separated by a comma, a semicolon or blanks); `#` starts a
/// comment; one header line (not numbers) may come first.
pub fn parse(name: &str, text: &str) -> Result<Series, String> {
    let at = |line: usize, what: String| format!("{name} line {}: {what}", line + 1);
    let mut series = Series {
        times: vec![],
        values: vec![],
    };
    let mut header_seen = false;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let parts: Vec<&str> = line
            .split(|c: char| c == ',' || c == ';' || c.is_whitespace())
            .filter(|p| !p.is_empty())
            .collect();
        let numbers: Vec<Option<f64>> = parts.iter().map(|p| p.parse::<f64>().ok()).collect();
        if series.times.is_empty() && !header_seen && numbers.iter().all(Option::is_none) {
            header_seen = true; // e.g. `time,level`
            continue;
        }
        if parts.len() != 2 {
            return Err(at(n, format!("{} fields; each line is `time,value`", parts.len())));
        }
        let (Some(t), Some(v)) = (numbers[0], numbers[1]) else {
            let bad = if numbers[0].is_none() { parts[0] } else { parts[1] };
            return Err(at(n, format!("`{bad}` is not a number; each line is `time,value`")));
        };
        if !(t.is_finite() && v.is_finite()) {
            return Err(at(n, "times and values must be finite".into()));
        }
        if let Some(&last) = series.times.last() {
            if t <= last {
                return Err(at(n, format!("time {t} does not increase (the line before says {last}); sort the lines by time")));
            }
        }
        series.times.push(t);
        series.values.push(v);
    }
    if series.times.is_empty() {
        return Err(format!("{name}: no `time,value` lines; give at least one"));
    }
    Ok(series)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_interpolates_and_names_each_fault() {
        let s = parse("t.csv", "# a tide\ntime,level\n0, 1.0\n10 ,3.0 # rising\n\n20;2.0\n").unwrap();
        assert_eq!(s.times, [0.0, 10.0, 20.0]);
        assert_eq!([s.at(-5.0), s.at(0.0), s.at(5.0), s.at(10.0), s.at(15.0), s.at(99.0)], [1.0, 1.0, 2.0, 3.0, 2.5, 2.0]);
        assert_eq!(parse("one.csv", "7 4.5\n").unwrap().at(100.0), 4.5);
        let fault = |text: &str, needle: &str| {
            let e = parse("t.csv", text).unwrap_err();
            assert!(e.contains(needle) && e.starts_with("t.csv"), "{needle}: {e}");
        };
        fault("time,level\n0,1\n5,x\n", "line 3: `x` is not a number");
        fault("0,1\n5,2\n5,3\n", "line 3: time 5 does not increase");
        fault("0,1\n5\n", "line 2: 1 fields");
        fault("# nothing\ntime,level\n", "no `time,value` lines");
        fault("0,1\ntime,level\n", "line 2: `time` is not a number");
    }
}
