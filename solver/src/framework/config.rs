//! Case files: the framework's sections (`[case]`, `[time]`, `[output]`, `[run]`) and a
//! [`CaseDoc`] from which each family deserializes its own sections. Unknown keys are refused
//! with the nearest valid key suggested and the line (or the `--set`) that holds them; every key
//! has a documented default (README.md, `solver cases NAME`).

use crate::error::SolverError;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The framework's own top-level keys; a family adds its name and its `shared_keys`.
const FRAMEWORK_KEYS: [&str; 4] = ["case", "time", "output", "run"];

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CaseSection {
    /// The family (`solver cases` lists them): its name is also its TOML section.
    pub kind: String,
    /// Name used in output files and summary.json (default: the case file's stem).
    #[serde(default)]
    pub name: Option<String>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TimeSection {
    /// Step as a fraction of the family's stability limit (Courant or diffusion number).
    #[serde(default = "default_cfl")]
    pub cfl: f64,
    /// A fixed step instead of `cfl`.
    #[serde(default)]
    pub dt: Option<f64>,
    /// Number of steps (exclusive with `end_time`).
    #[serde(default)]
    pub steps: Option<u64>,
    /// End time: landed on exactly.
    #[serde(default)]
    pub end_time: Option<f64>,
    /// Check the state's health (NaN, overflow, negative density) every this many steps and at
    /// every output.
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
    /// Write fields every this much simulated time (0: off). With an adaptive step the step is
    /// cut to land on these times; with a constant step the output comes at the first step
    /// that reaches them.
    #[serde(default)]
    pub interval: f64,
    /// Write a checkpoint every this many steps (0: only on Ctrl-C).
    #[serde(default)]
    pub checkpoint_every: u64,
    /// Output folder (overridden by --output). Default: out/<case name>.
    #[serde(default)]
    pub dir: Option<PathBuf>,
    /// The VTK files' compressor: "zlib" (every VTK reader), "lz4" (VTK 8.1+, ParaView 5.5+:
    /// faster, larger) or "none". Blocks are compressed in parallel on every core.
    #[serde(default)]
    pub compression: Codec,
    /// zlib's level, 1 (fastest) to 9 (smallest). Default 5.
    #[serde(default)]
    pub compression_level: Option<u32>,
    /// The precision the fields are written in, "f32" or "f64". Default: the run's
    /// (`run.precision`): an f32 run's values lose nothing in f32, and its files are half the
    /// size.
    #[serde(default)]
    pub precision: Option<Precision>,
    /// A decomposed structured grid's fields as parallel pieces (`.pvti` and a `.vti` a part,
    /// each process writing its own) or as one file gathered on rank 0: "auto" (pieces when a
    /// frame would take more than a quarter of rank 0's host memory), "always" or "never".
    #[serde(default)]
    pub pieces: PiecesChoice,
}

/// The compressor of the VTK files' data arrays (`output.compression`; `output::vtk_xml` applies it).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Codec {
    /// zlib (vtkZLibDataCompressor): every VTK reader.
    #[default]
    Zlib,
    /// LZ4 (vtkLZ4DataCompressor): VTK 8.1 and later, ParaView 5.5 and later; several times
    /// faster than zlib, larger files.
    Lz4,
    /// Uncompressed base64.
    None,
}

/// `output.pieces`: how a decomposed structured run writes its fields (`output::pieces` decides
/// by it, `PiecesChoice::wanted`).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum PiecesChoice {
    /// Pieces when a frame gathered on rank 0 would take more than a quarter of this host's
    /// memory (about 8 values of 8 bytes a point: 1024^3 needs 69 GB), else one file.
    #[default]
    Auto,
    /// Always pieces (a run of one part writes one file all the same).
    Always,
    /// Always one file, gathered on rank 0.
    Never,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    #[serde(default)]
    pub backend: Backend,
    #[serde(default)]
    pub precision: Precision,
    /// CUDA device ordinal (the first, with several).
    #[serde(default)]
    pub device: usize,
    /// CUDA devices this process drives, from `device` on, each a slab of the grid (families
    /// that decompose their grid: shallow-water). Under mpirun, each rank takes as many.
    #[serde(default = "one")]
    pub gpus: usize,
    /// How the CUDA kernels of families that offer a choice do their arithmetic (euler).
    #[serde(default)]
    pub math: Math,
}

fn one() -> usize {
    1
}

impl Default for RunSection {
    fn default() -> Self {
        RunSection {
            backend: Backend::Auto,
            precision: Precision::F64,
            device: 0,
            gpus: 1,
            math: Math::Exact,
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

/// `run.math`: `exact` repeats the CPU's arithmetic operation by operation on the device (no
/// fused multiply-adds, IEEE division and square root: CPU and CUDA agree to rounding or bit for
/// bit); `fast` lets the device contract multiply-adds and, in single precision, take its
/// approximate division, reciprocal square root and flush-to-zero (`--use_fast_math`): the
/// CUDA results then agree with the CPU's within the family's stated tolerance, not bit for
/// bit. The CPU backend always computes exactly.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Math {
    #[default]
    Exact,
    Fast,
}

impl Math {
    pub fn name(self) -> &'static str {
        match self {
            Math::Exact => "exact",
            Math::Fast => "fast",
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default, clap::ValueEnum)]
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

    /// Bytes of one value.
    pub fn bytes(self) -> usize {
        match self {
            Precision::F32 => 4,
            Precision::F64 => 8,
        }
    }
}

/// The framework's sections, deserialized from the whole document (other keys ignored here).
#[derive(Deserialize)]
struct Common {
    case: CaseSection,
    #[serde(default)]
    time: TimeSection,
    #[serde(default)]
    output: OutputSection,
    #[serde(default)]
    run: RunSection,
}

/// A case file after `--set` overrides: the framework's sections, parsed, and the document
/// from which a family deserializes its own.
pub struct CaseDoc {
    pub path: PathBuf,
    pub case: CaseSection,
    pub time: TimeSection,
    pub output: OutputSection,
    pub run: RunSection,
    text: String,
    table: toml::Table,
    overrides: Vec<String>,
}

impl CaseDoc {
    /// Read a case file and apply `--set section.key=value` overrides.
    pub fn load(path: &Path, overrides: &[String]) -> Result<CaseDoc, SolverError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| SolverError::config(path, "", format!("cannot read the case file: {e}")))?;
        CaseDoc::parse(&text, path, overrides)
    }

    pub fn parse(text: &str, path: &Path, overrides: &[String]) -> Result<CaseDoc, SolverError> {
        let mut table: toml::Table = toml::from_str(text).map_err(|e| toml_error(path, text, &e, None))?;
        for o in overrides {
            apply_override(&mut table, o).map_err(|m| SolverError::config(path, o, m))?;
        }
        let mut doc = CaseDoc {
            path: path.to_path_buf(),
            case: CaseSection {
                kind: String::new(),
                name: None,
            },
            time: TimeSection::default(),
            output: OutputSection::default(),
            run: RunSection::default(),
            text: text.to_string(),
            table,
            overrides: overrides.to_vec(),
        };
        let common: Common = doc.section()?;
        (doc.case, doc.time, doc.output, doc.run) = (common.case, common.time, common.output, common.run);
        validate_common(&doc)?;
        Ok(doc)
    }

    /// Deserialize a family's view of the document (a struct of the sections it reads; keys it
    /// does not name are ignored there and checked by `check_top_level_keys`).
    pub fn section<T: DeserializeOwned>(&self) -> Result<T, SolverError> {
        if self.overrides.is_empty() {
            // From the text itself, so that errors carry line numbers.
            toml::from_str(&self.text).map_err(|e| toml_error(&self.path, &self.text, &e, None))
        } else {
            toml::Value::Table(self.table.clone())
                .try_into()
                .map_err(|e: toml::de::Error| {
                    // The file's own error where it has one (with its line); else the overrides'.
                    match toml::from_str::<T>(&self.text) {
                        Err(own) => toml_error(&self.path, &self.text, &own, None),
                        Ok(_) => toml_error(&self.path, &self.text, &e, Some(&self.overrides.join(" "))),
                    }
                })
        }
    }

    /// Refuse top-level keys that neither the framework nor the family reads.
    pub fn check_top_level_keys(&self, allowed: &[&str]) -> Result<(), SolverError> {
        for key in self.table.keys() {
            if FRAMEWORK_KEYS.contains(&key.as_str()) || allowed.contains(&key.as_str()) {
                continue;
            }
            let candidates: Vec<&str> = FRAMEWORK_KEYS.iter().chain(allowed).copied().collect();
            let hint = suggest(key, &candidates).map_or(String::new(), |s| format!("; did you mean `{s}`?"));
            let msg = format!(
                "unknown key `{key}` for a `{}` case (it reads {}){hint}",
                self.case.kind,
                candidates.join(", ")
            );
            return Err(SolverError::config(&self.path, &self.line_of(key), msg));
        }
        Ok(())
    }

    /// "line N" of a top-level key or section header, or the overrides that set it.
    fn line_of(&self, key: &str) -> String {
        let found = self.text.lines().position(|l| {
            let l = l.trim_start();
            l.starts_with(&format!("[{key}]"))
                || l.strip_prefix(key)
                    .is_some_and(|r| r.trim_start().starts_with('=') || r.starts_with('.'))
        });
        match found {
            Some(i) => format!("line {}", i + 1),
            None => format!("--set {}", self.overrides.join(" ")),
        }
    }

    /// The name used for output files: `[case] name`, else the case file's stem.
    pub fn case_name(&self) -> String {
        self.case.name.clone().unwrap_or_else(|| {
            self.path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or("case".into())
        })
    }

    /// A path given in the case file, relative to the case file's folder.
    pub fn resolve(&self, p: &Path) -> PathBuf {
        resolve(&self.path, p)
    }

    /// A bad-input error about `key` of this file.
    pub fn error(&self, key: &str, message: impl Into<String>) -> SolverError {
        SolverError::config(&self.path, key, message)
    }
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

/// The candidate nearest to `word`, if any is near enough to be a likely misspelling.
pub fn suggest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (strsim::jaro_winkler(word, c), *c))
        .filter(|(s, _)| *s > 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// A TOML/serde error as a config error; unknown keys get the nearest valid one suggested.
fn toml_error(path: &Path, source: &str, e: &toml::de::Error, from_override: Option<&str>) -> SolverError {
    let msg = e.message();
    let mut text = msg.to_string();
    if let Some(rest) = msg.strip_prefix("unknown field `") {
        if let Some((field, expected)) = rest.split_once('`') {
            let candidates: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
            if let Some(best) = suggest(field, &candidates) {
                text = format!("{msg}; did you mean `{best}`?");
            }
        }
    }
    if let Some(field) = msg.strip_prefix("missing field `").and_then(|r| r.split('`').next()) {
        text = format!("{msg}: add it (`solver cases` lists templates that show every key)");
        if from_override.is_some() {
            // A --set into a table the file lacks creates it with that one key.
            text = format!(
                "{msg}: the file has no table for this key, so --set made one with only it; \
                 give the whole table (key={{...}}) or add it to the file (`solver cases` shows every key)"
            );
        } else if e.span().is_none_or(|s| s.start == 0) {
            // A missing top-level section has the whole document as its span: name it instead.
            return SolverError::config(
                path,
                field,
                format!("missing: add a [{field}] section (`solver cases` lists templates that show one)"),
            );
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

/// True for positive finite numbers; false for zero, negatives, infinities and NaN.
pub fn positive(x: f64) -> bool {
    x > 0.0 && x.is_finite()
}

fn validate_common(doc: &CaseDoc) -> Result<(), SolverError> {
    let bad = |key: &str, m: String| Err(doc.error(key, m));
    let t = &doc.time;
    if !positive(t.cfl) {
        return bad("time.cfl", format!("must be a positive number, got {}", t.cfl));
    }
    if let Some(dt) = t.dt {
        if !positive(dt) {
            return bad("time.dt", format!("must be positive, got {dt}"));
        }
    }
    match (t.steps, t.end_time) {
        (None, None) => return bad("time.steps", "set time.steps or time.end_time".into()),
        (Some(_), Some(_)) => {
            return bad(
                "time.end_time",
                "set either time.steps or time.end_time, not both".into(),
            )
        }
        (None, Some(e)) if !positive(e) => return bad("time.end_time", format!("must be positive, got {e}")),
        _ => {}
    }
    if doc.run.gpus == 0 {
        return bad("run.gpus", "must be at least 1".into());
    }
    if t.check_every == 0 {
        return bad("time.check_every", "must be at least 1".into());
    }
    if let Some(l) = doc.output.compression_level.filter(|l| !(1..=9).contains(l)) {
        return bad("output.compression_level", format!("must be 1 to 9, got {l}"));
    }
    if !(doc.output.interval >= 0.0 && doc.output.interval.is_finite()) {
        return bad(
            "output.interval",
            format!("must be zero (off) or positive, got {}", doc.output.interval),
        );
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
