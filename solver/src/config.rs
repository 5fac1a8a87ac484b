//! Case files: TOML → typed structs. Unknown keys are rejected with the nearest valid key
//! suggested; every key has a documented default (see `solver cases NAME` and README.md).

use crate::error::SolverError;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CaseFile {
    pub case: CaseSection,
    /// Prepared mesh (.pmesh) for the unstructured cases, relative to the case file.
    #[serde(default)]
    pub mesh: Option<PathBuf>,
    /// Structured grid, for the structured cases (heat).
    #[serde(default)]
    pub grid: Option<GridSection>,
    #[serde(default)]
    pub heat: Option<HeatSection>,
    #[serde(default)]
    pub advect: Option<crate::cases::advect::AdvectSection>,
    #[serde(default)]
    pub time: TimeSection,
    #[serde(default)]
    pub output: OutputSection,
    #[serde(default)]
    pub run: RunSection,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CaseSection {
    /// The physics: "heat" or "advect".
    pub kind: CaseKind,
    /// Name used in output files and summary.json (default: the case file's stem).
    #[serde(default)]
    pub name: Option<String>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum CaseKind {
    Heat,
    Advect,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GridSection {
    /// Grid points per axis. Periodic axes: spacing extent/n; Dirichlet axes: extent/(n-1),
    /// with the first and last points on the boundary.
    #[serde(default)]
    pub dims: Option<[usize; 3]>,
    #[serde(default = "unit3")]
    pub extent: [f64; 3],
    #[serde(default)]
    pub origin: [f64; 3],
    /// A grid description written by `meshtool generate grid` (its dims/extent/origin are
    /// used; `dims` here must then be absent).
    #[serde(default)]
    pub file: Option<PathBuf>,
}

fn unit3() -> [f64; 3] {
    [1.0; 3]
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HeatSection {
    /// Thermal diffusivity.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    pub initial: HeatInitial,
    #[serde(default)]
    pub boundary: HeatBoundary,
    /// "register-queue" (2.5D blocked, Micikevicius) or "naive" (one 1D stencil per axis).
    #[serde(default)]
    pub kernel: HeatKernel,
}

fn default_alpha() -> f64 {
    0.1
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum HeatInitial {
    /// prod_i sin(k_i pi x_i / L_i), k = `modes` (the thesis' benchmark: modes = [1, 1, 1]).
    SineProduct {
        #[serde(default = "ones")]
        modes: [f64; 3],
    },
    /// a exp(-(y - b)^2 / (2 c^2)) along `axis` (0, 1, 2), periodic images (the thesis' 5.2).
    Gaussian {
        #[serde(default = "one")]
        amplitude: f64,
        #[serde(default = "half")]
        center: f64,
        #[serde(default = "tenth")]
        width: f64,
        #[serde(default = "axis_y")]
        axis: usize,
    },
    /// A constant everywhere (the Dirichlet boundaries then drive the solution).
    Constant {
        #[serde(default)]
        value: f64,
    },
}

fn ones() -> [f64; 3] {
    [1.0; 3]
}
fn one() -> f64 {
    1.0
}
fn half() -> f64 {
    0.5
}
fn tenth() -> f64 {
    0.1
}
fn axis_y() -> usize {
    1
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HeatBoundary {
    #[serde(default)]
    pub x: AxisBoundary,
    #[serde(default)]
    pub y: AxisBoundary,
    #[serde(default)]
    pub z: AxisBoundary,
}

impl Default for HeatBoundary {
    fn default() -> Self {
        HeatBoundary {
            x: AxisBoundary::Periodic,
            y: AxisBoundary::Periodic,
            z: AxisBoundary::Periodic,
        }
    }
}

impl HeatBoundary {
    pub fn axes(&self) -> [AxisBoundary; 3] {
        [self.x, self.y, self.z]
    }
}

/// `"periodic"` or `{ dirichlet = [value_at_min, value_at_max] }`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum AxisBoundary {
    #[default]
    Periodic,
    Dirichlet([f64; 2]),
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum HeatKernel {
    #[default]
    RegisterQueue,
    Naive,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TimeSection {
    /// Time step as a fraction of the case's CFL-type limit (heat: the diffusion number,
    /// dt = cfl / (2 alpha sum 1/h_i^2)).
    #[serde(default = "default_cfl")]
    pub cfl: f64,
    /// A fixed time step instead of `cfl`.
    #[serde(default)]
    pub dt: Option<f64>,
    /// Number of steps (exclusive with `end_time`).
    #[serde(default)]
    pub steps: Option<u64>,
    /// End time; the step is shortened so that an integer number of steps lands on it.
    #[serde(default)]
    pub end_time: Option<f64>,
    /// Check for NaN/Inf every this many steps (and at every output).
    #[serde(default = "default_check_every")]
    pub check_every: u64,
}

fn default_cfl() -> f64 {
    0.4
}
fn default_check_every() -> u64 {
    50
}

impl Default for TimeSection {
    fn default() -> Self {
        TimeSection {
            cfl: default_cfl(),
            dt: None,
            steps: None,
            end_time: None,
            check_every: default_check_every(),
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct OutputSection {
    /// Write fields every this many steps (0: only the initial and final state).
    #[serde(default)]
    pub every: u64,
    /// Write a checkpoint every this many steps (0: only on Ctrl-C).
    #[serde(default)]
    pub checkpoint_every: u64,
    /// Output folder (overridden by --output). Default: out/<case name>.
    #[serde(default)]
    pub dir: Option<PathBuf>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    #[serde(default)]
    pub backend: Backend,
    #[serde(default)]
    pub precision: Precision,
    /// CUDA device ordinal.
    #[serde(default)]
    pub device: usize,
}

impl Default for RunSection {
    fn default() -> Self {
        RunSection {
            backend: Backend::Auto,
            precision: Precision::F64,
            device: 0,
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    #[default]
    Auto,
    Cpu,
    Cuda,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    F32,
    #[default]
    F64,
}

impl Precision {
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        }
    }
}

/// Read a case file, apply `--set section.key=value` overrides, validate.
pub fn load(path: &Path, overrides: &[String]) -> Result<CaseFile, SolverError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| SolverError::config(path, "", format!("cannot read the case file: {e}")))?;
    parse(&text, path, overrides)
}

pub fn parse(text: &str, path: &Path, overrides: &[String]) -> Result<CaseFile, SolverError> {
    // First pass on the text itself, so errors carry line numbers.
    let mut case: CaseFile = toml::from_str(text).map_err(|e| toml_error(path, text, &e, None))?;
    if !overrides.is_empty() {
        let mut value: toml::Table = toml::from_str(text).map_err(|e| toml_error(path, text, &e, None))?;
        for o in overrides {
            apply_override(&mut value, o).map_err(|m| SolverError::config(path, o, m))?;
        }
        case = toml::Value::Table(value)
            .try_into()
            .map_err(|e: toml::de::Error| toml_error(path, text, &e, Some(&overrides.join(" "))))?;
    }
    validate(&case, path)?;
    Ok(case)
}

fn apply_override(table: &mut toml::Table, o: &str) -> Result<(), String> {
    let (key, raw) = o.split_once('=').ok_or("--set needs section.key=value")?;
    let parts: Vec<&str> = key.trim().split('.').collect();
    let value: toml::Value = match toml::from_str::<toml::Table>(&format!("v = {raw}")) {
        Ok(mut t) => t.remove("v").unwrap(),
        Err(_) => toml::Value::String(raw.trim().to_string()), // bare words: f32, cuda, ...
    };
    let mut t = table;
    for p in &parts[..parts.len() - 1] {
        t = t
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(Default::default()))
            .as_table_mut()
            .ok_or_else(|| format!("'{p}' is not a section"))?;
    }
    t.insert(parts[parts.len() - 1].to_string(), value);
    Ok(())
}

/// A TOML/serde error as a config error; unknown keys get the nearest valid one suggested.
fn toml_error(path: &Path, source: &str, e: &toml::de::Error, from_override: Option<&str>) -> SolverError {
    let msg = e.message();
    let mut text = msg.to_string();
    if let Some(rest) = msg.strip_prefix("unknown field `") {
        if let Some((field, expected)) = rest.split_once('`') {
            let candidates: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
            if let Some(best) = candidates
                .iter()
                .map(|c| (strsim::jaro_winkler(field, c), *c))
                .filter(|(s, _)| *s > 0.7)
                .max_by(|a, b| a.0.total_cmp(&b.0))
            {
                text = format!("{msg}; did you mean `{}`?", best.1);
            }
        }
    }
    let location = match (from_override, e.span()) {
        (Some(o), _) => format!("--set {o}"),
        (None, Some(span)) => {
            let line = 1 + source.as_bytes()[..span.start.min(source.len())]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            format!("line {line}")
        }
        (None, None) => String::new(),
    };
    SolverError::config(path, &location, text)
}

/// True for positive numbers; false for zero, negatives and NaN.
fn positive(x: f64) -> bool {
    x > 0.0
}

fn validate(c: &CaseFile, path: &Path) -> Result<(), SolverError> {
    let bad = |key: &str, m: String| Err(SolverError::config(path, key, m));
    if !(positive(c.time.cfl) && c.time.cfl.is_finite()) {
        return bad("time.cfl", format!("must be a positive number, got {}", c.time.cfl));
    }
    if let Some(dt) = c.time.dt {
        if !(positive(dt) && dt.is_finite()) {
            return bad("time.dt", format!("must be positive, got {dt}"));
        }
    }
    match (c.time.steps, c.time.end_time) {
        (None, None) => return bad("time.steps", "set time.steps or time.end_time".into()),
        (Some(_), Some(_)) => {
            return bad(
                "time.end_time",
                "set either time.steps or time.end_time, not both".into(),
            )
        }
        (None, Some(t)) if !positive(t) => return bad("time.end_time", format!("must be positive, got {t}")),
        _ => {}
    }
    if c.time.check_every == 0 {
        return bad("time.check_every", "must be at least 1".into());
    }
    match c.case.kind {
        CaseKind::Advect => {
            if c.advect.is_none() {
                return bad(
                    "advect",
                    "an advect case needs an [advect] section (see `solver cases advect-step`)".into(),
                );
            }
            let Some(m) = &c.mesh else {
                return bad(
                    "mesh",
                    "missing: set mesh = \"NAME.pmesh\" (made by `meshtool prepare` or `meshtool generate`)".into(),
                );
            };
            let m = resolve(path, m);
            if !m.exists() {
                return bad(
                    "mesh",
                    format!(
                        "{} does not exist; create it with `meshtool prepare` or `meshtool generate box`",
                        m.display()
                    ),
                );
            }
        }
        CaseKind::Heat => {
            let Some(h) = &c.heat else {
                return bad(
                    "heat",
                    "a heat case needs a [heat] section (see `solver cases heat-decay`)".into(),
                );
            };
            if !positive(h.alpha) {
                return bad("heat.alpha", format!("must be positive, got {}", h.alpha));
            }
            let Some(g) = &c.grid else {
                return bad(
                    "grid",
                    "a structured case needs a [grid] section with dims = [nx, ny, nz]".into(),
                );
            };
            match (&g.dims, &g.file) {
                (Some(_), Some(_)) => return bad("grid.file", "give grid.dims or grid.file, not both".into()),
                (None, None) => return bad("grid.dims", "missing: set grid.dims = [nx, ny, nz] or grid.file".into()),
                (None, Some(f)) => {
                    let f = resolve(path, f);
                    if !f.exists() {
                        return bad(
                            "grid.file",
                            format!(
                                "{} does not exist; create it with `meshtool generate grid`",
                                f.display()
                            ),
                        );
                    }
                }
                (Some(d), None) => {
                    if let Some(k) = (0..3).find(|&k| d[k] < 9) {
                        return bad(
                            "grid.dims",
                            format!("axis {k} has {} points; the 8th-order stencil needs at least 9", d[k]),
                        );
                    }
                }
            }
            if let Some(k) = (0..3).find(|&k| !positive(g.extent[k])) {
                return bad(
                    "grid.extent",
                    format!("axis {k} extent must be positive, got {}", g.extent[k]),
                );
            }
            if let HeatInitial::Gaussian { axis, width, .. } = h.initial {
                if axis > 2 {
                    return bad("heat.initial.axis", format!("must be 0, 1 or 2, got {axis}"));
                }
                if !positive(width) {
                    return bad("heat.initial.width", format!("must be positive, got {width}"));
                }
            }
        }
    }
    Ok(())
}

/// Paths in a case file are relative to the case file's folder.
pub fn resolve(case_path: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        case_path.parent().unwrap_or(Path::new(".")).join(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "[case]\nkind = \"heat\"\n[grid]\ndims = [16, 16, 16]\n[heat]\nalpha = 0.1\ninitial = { kind = \"sine-product\" }\n[time]\nsteps = 10\n";

    fn parse_str(s: &str, o: &[&str]) -> Result<CaseFile, SolverError> {
        let o: Vec<String> = o.iter().map(|s| s.to_string()).collect();
        parse(s, Path::new("case.toml"), &o)
    }

    #[test]
    fn defaults_and_overrides() {
        let c = parse_str(GOOD, &["time.cfl=0.2", "run.precision=f32", "heat.kernel=naive"]).unwrap();
        assert_eq!(c.time.cfl, 0.2);
        assert_eq!(c.run.precision, Precision::F32);
        assert_eq!(c.heat.unwrap().kernel, HeatKernel::Naive);
    }

    #[test]
    fn unknown_key_suggests_nearest() {
        let e = parse_str(&GOOD.replace("alpha", "alpah"), &[]).unwrap_err().to_string();
        assert!(e.contains("alpah") && e.contains("did you mean `alpha`"), "{e}");
        assert!(e.contains("line"), "{e}");
    }

    #[test]
    fn wrong_type_and_negative_cfl_name_the_key() {
        let e = parse_str(&GOOD.replace("steps = 10", "steps = \"ten\""), &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 9"), "{e}");
        let e = parse_str(GOOD, &["time.cfl=-1"]).unwrap_err().to_string();
        assert!(e.contains("time.cfl"), "{e}");
    }
}
