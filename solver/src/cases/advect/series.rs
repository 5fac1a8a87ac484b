//! A time-dependent velocity (`velocity = { kind = "series" }`): the frames of a `.pvd` series
//! a previous run wrote on this mesh (or an analytic velocity sampled every `interval`), each
//! a cell field with its least-squares Jacobian, interpolated linearly in time between the two
//! frames around t (`frames`). Only the frames around the times a step evaluates are held
//! (`FrameCache`); a `Window` is the set a step reads, on the host, and uploaded once per frame,
//! on the device.

use super::frames::{max_speed, CellVelocity, Timeline, Times, Window};
use super::velocity::{Outside, Velocity, VelocitySpec};
use crate::mesh::cell_field::read_cell_field;
use crate::error::{Result, SolverError};
use crate::framework::CaseDoc;
use crate::real::Real;
use meshtool::PreparedMesh;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const KEY: &str = "advect.velocity.file";

/// Where the frames come from.
enum Source {
    /// The data sets of a `.pvd` collection: (time, file), times increasing.
    Files {
        frames: Vec<(f64, PathBuf)>,
        array: String,
    },
    /// An analytic velocity at the centroids at times k * interval, k = 0, 1, ...
    Sample { vel: Velocity<f64>, interval: f64 },
}

/// A series' frames: their times, how to load one, and what they are checked against.
pub struct Frames {
    source: Source,
    /// Series time = run time + offset.
    offset: f64,
    timeline: Arc<Timeline>,
    clamp: bool,
    mesh: Arc<PreparedMesh>,
    /// The case file, which the errors of a frame loaded during the run name.
    case: PathBuf,
    /// The largest speed over all frames (the time step's).
    pub max_speed: f64,
}

impl Frames {
    /// The frames of a `series` velocity (None for the other kinds), every file of a `.pvd`
    /// read once here (one at a time) to check it and find the largest speed.
    pub fn open(doc: &CaseDoc, spec: &VelocitySpec, mesh: Arc<PreparedMesh>, box_: [[f64; 3]; 2]) -> Result<Option<Self>> {
        let VelocitySpec::Series {
            file,
            array,
            offset,
            outside,
            sample,
            interval,
        } = spec
        else {
            return Ok(None);
        };
        let source = match (file, sample) {
            (Some(file), None) => files(doc, &doc.resolve(Path::new(file)), array)?,
            (None, Some(s)) => sampled(doc, s, *interval, box_)?,
            _ => {
                let msg = "give one of `file` (a .pvd series a previous run wrote on this mesh) and `sample` \
                           (an analytic velocity sampled every `interval`)";
                return Err(doc.error("advect.velocity", msg));
            }
        };
        let times = match &source {
            Source::Files { frames, .. } => Times::Listed(frames.iter().map(|f| f.0).collect()),
            Source::Sample { interval, .. } => Times::Every(*interval),
        };
        let timeline = Arc::new(Timeline {
            times,
            offset: *offset,
        });
        let mut frames = Frames {
            source,
            timeline,
            offset: *offset,
            clamp: *outside == Outside::Clamp,
            mesh,
            case: doc.path.clone(),
            max_speed: 0.0,
        };
        frames.max_speed = frames.scan_speed()?;
        if frames.max_speed == 0.0 {
            return Err(doc.error(KEY, "the velocity is zero in every frame: nothing to advect"));
        }
        if let Some(end) = doc.time.end_time {
            frames.check_span(0.0, end)?;
        }
        Ok(Some(frames))
    }

    /// The largest speed of every frame (a `.pvd`'s files read one at a time), or the
    /// analytic velocity's bound.
    fn scan_speed(&self) -> Result<f64> {
        match &self.source {
            Source::Sample { vel, .. } => Ok(vel.max_speed()),
            Source::Files { frames, array } => {
                let mut m = 0.0f64;
                for (_, f) in frames {
                    m = m.max(max_speed(&read_cell_field(f, array, &self.mesh, &|e| self.error(e))?));
                }
                Ok(m)
            }
        }
    }

    fn error(&self, message: String) -> SolverError {
        SolverError::config(&self.case, KEY, message)
    }

    /// The series' time range, None where it has no end (a sample).
    fn range(&self) -> (f64, Option<f64>) {
        match &self.source {
            Source::Files { frames, .. } => (frames[0].0, frames.last().map(|f| f.0)),
            Source::Sample { .. } => (0.0, None),
        }
    }

    fn time(&self, k: usize) -> f64 {
        match &self.source {
            Source::Files { frames, .. } => frames[k].0,
            Source::Sample { interval, .. } => k as f64 * interval,
        }
    }

    /// The run times [t0, t1] in series time: refused (or, with `outside = "clamp"`, a
    /// warning) where they reach outside the frames by more than round-off (1e-6 of the
    /// series' span, for times rounded to f32).
    fn check_span(&self, t0: f64, t1: f64) -> Result<()> {
        let (a, b) = (t0 + self.offset, t1 + self.offset);
        let (first, last) = self.range();
        let tol = 1e-6 * (last.unwrap_or(first) - first).max(last.unwrap_or(first).abs()).max(1e-300);
        let outside = a < first - tol || last.is_some_and(|l| b > l + tol);
        if !outside {
            return Ok(());
        }
        let covers = match last {
            Some(l) => format!("[{first}, {l}]"),
            None => format!("[{first}, ...)"),
        };
        let what = format!("the run reaches series time {a}..{b} (run time + offset {}), the frames cover {covers}", self.offset);
        if self.clamp {
            eprintln!(
                "warning: {}: {KEY}: {what}; the first or last frame is held there (outside = \"clamp\")",
                self.case.display()
            );
            return Ok(());
        }
        Err(self.error(format!(
            "{what}; shorten time.end_time, set advect.velocity.offset, or set advect.velocity.outside = \
             \"clamp\" to hold the first or last frame"
        )))
    }

    /// The frame k and weight w of run time t (`Timeline::locate`).
    pub fn locate(&self, t: f64) -> (usize, f64) {
        self.timeline.locate(t)
    }

    /// Frame k with its Jacobian.
    fn load(&self, k: usize) -> Result<CellVelocity<f64>> {
        let v = match &self.source {
            Source::Files { frames, array } => read_cell_field(&frames[k].1, array, &self.mesh, &|e| self.error(e))?,
            Source::Sample { vel, .. } => {
                let t = self.time(k);
                let c = &self.mesh.topo.centroids;
                c.iter().enumerate().map(|(i, &x)| vel.eval(x, i, t, 0).0).collect()
            }
        };
        Ok(CellVelocity::with_jacobian(v, &self.mesh))
    }
}

/// The frames of the `.pvd` collection `pvd`: each file there, times strictly increasing.
fn files(doc: &CaseDoc, pvd: &Path, array: &str) -> Result<Source> {
    let fail = |m: String| doc.error(KEY, format!("{}: {m}", pvd.display()));
    if pvd.extension().is_none_or(|e| e != "pvd") {
        return Err(fail(
            "not a .pvd series; for one steady VTU use velocity = { kind = \"field\" }".into(),
        ));
    }
    let text = std::fs::read_to_string(pvd).map_err(|e| {
        fail(format!(
            "cannot read it ({e}); a relative path is taken from the case file's folder"
        ))
    })?;
    let frames = parse_pvd(&text, pvd.parent().unwrap_or(Path::new("")), &fail)?;
    Ok(Source::Files {
        frames,
        array: array.to_string(),
    })
}

/// The (time, file) of each `<DataSet>` of a collection, checked: at least two, times finite
/// and strictly increasing, every file there.
fn parse_pvd(text: &str, dir: &Path, fail: &dyn Fn(String) -> SolverError) -> Result<Vec<(f64, PathBuf)>> {
    let mut frames: Vec<(f64, PathBuf)> = Vec::new();
    for (i, tag) in text.split("<DataSet").skip(1).enumerate() {
        let tag = tag.split('>').next().unwrap_or("");
        let attr = |key: &str| {
            tag.split(&format!(" {key}=\""))
                .nth(1)
                .and_then(|r| r.split('"').next())
        };
        let (Some(ts), Some(file)) = (attr("timestep"), attr("file")) else {
            return Err(fail(format!("DataSet {i} has no timestep or no file attribute")));
        };
        let t: f64 = ts
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite())
            .ok_or_else(|| fail(format!("DataSet {i} ({file}): timestep \"{ts}\" is not a number")))?;
        if let Some(&(prev, _)) = frames.last() {
            if t <= prev {
                return Err(fail(format!(
                    "frames out of order: DataSet {i} ({file}) at t = {t} follows t = {prev}; \
                     list the frames by strictly increasing time"
                )));
            }
        }
        let path = dir.join(file);
        if !path.is_file() {
            return Err(fail(format!("DataSet {i}: {} does not exist", path.display())));
        }
        frames.push((t, path));
    }
    if frames.len() < 2 {
        return Err(fail(format!(
            "it lists {} frame(s); a time series needs two or more (for one steady field use \
             velocity = {{ kind = \"field\" }})",
            frames.len()
        )));
    }
    Ok(frames)
}

/// An analytic velocity sampled every `interval`.
fn sampled(doc: &CaseDoc, s: &VelocitySpec, interval: Option<f64>, box_: [[f64; 3]; 2]) -> Result<Source> {
    if matches!(s, VelocitySpec::Field { .. } | VelocitySpec::Series { .. }) {
        let msg = "sample an analytic velocity: kind = \"constant\", \"rotation\" or \"deformation\"";
        return Err(doc.error("advect.velocity.sample", msg));
    }
    let Some(interval) = interval.filter(|i| i.is_finite() && *i > 0.0) else {
        let msg = "a sampled series needs the time between its frames: interval > 0";
        return Err(doc.error("advect.velocity.interval", msg));
    };
    let vel = Velocity {
        spec: s.clone(),
        lo: box_[0],
        len: box_[1],
        cells: None,
        frames: None,
    };
    Ok(Source::Sample { vel, interval })
}

/// The frames held between steps: those of the last window.
pub struct FrameCache<R> {
    frames: Arc<Frames>,
    held: Vec<(usize, Arc<CellVelocity<R>>)>,
}

impl<R: Real> FrameCache<R> {
    pub fn new(frames: Arc<Frames>) -> Self {
        FrameCache {
            frames,
            held: Vec::new(),
        }
    }

    /// The frames around each of the run `times` (as the evaluation rounds them), loading
    /// those not held and letting the others go; a time outside the frames is refused unless
    /// the series clamps.
    pub fn window(&mut self, times: &[f64]) -> Result<Arc<Window<R>>> {
        let mut need = Vec::new();
        for &t in times {
            if !self.frames.clamp {
                self.frames.check_span(t, t)?;
            }
            let (k, _) = self.frames.locate(t);
            need.extend([k, k + 1]);
        }
        need.sort_unstable();
        need.dedup();
        let mut held = std::mem::take(&mut self.held);
        let mut loaded = Vec::with_capacity(need.len());
        for k in need {
            let f = match held.iter().position(|f| f.0 == k) {
                Some(p) => held.swap_remove(p).1,
                None => Arc::new(self.frames.load(k)?.in_precision::<R>()),
            };
            loaded.push((k, f));
        }
        self.held = loaded.clone();
        Ok(Arc::new(Window {
            timeline: self.frames.timeline.clone(),
            loaded,
            max_speed: self.frames.max_speed,
        }))
    }
}

/// Write analytic velocities as a `.pvd` series of VTUs on the prepared mesh `mesh`, one frame
/// per (time, velocity), each the `velocity` cell array at the centroids at that time, as a
/// run on that mesh writes them: a stand-in for a previous run's unsteady flow (tests, the
/// CPU-vs-CUDA check). The VTUs go next to `pvd`, named after it.
pub fn write_series(pvd: &Path, mesh: &Path, frames: &[(f64, VelocitySpec)]) -> Result<()> {
    use crate::output::{self, pvd::Series, Centring, Field, Geometry};
    let m = Arc::new(PreparedMesh::read(mesh)?);
    let (lo, hi) = m.bounding_box();
    let len: [f64; 3] = std::array::from_fn(|k| hi[k] - lo[k]);
    let dir = pvd.parent().unwrap_or(Path::new(""));
    let stem = pvd.file_stem().and_then(|s| s.to_str()).unwrap_or("velocity");
    let geometry = Geometry::Tets(m.clone());
    let mut series = Series::new(pvd);
    for (i, (t, spec)) in frames.iter().enumerate() {
        let vel = Velocity::<f64> {
            spec: spec.clone(),
            lo,
            len,
            cells: None,
            frames: None,
        };
        let c = &m.topo.centroids;
        let v: Vec<f64> = (0..c.len()).flat_map(|i| vel.eval(c[i], i, *t, 0).0).collect();
        let field = Field::vector("velocity", 3, Centring::Cell, v);
        let file = output::write_fields(&dir.join(format!("{stem}_{i:04}")), &geometry, &[field])?;
        series.add(*t, &file)?;
    }
    Ok(())
}
