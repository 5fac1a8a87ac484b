//! What `solver check` and `solver bench` share: selecting families, turning a spec into a
//! case document (template + overrides), meshes for the families that need one, and stepping a
//! case a fixed number of steps.

use crate::backend::Target;
use crate::error::{Result, SolverError};
use crate::framework::case::Case;
use crate::framework::clock::Clock;
use crate::framework::config::{CaseDoc, Precision};
use crate::framework::family::{Family, Template};
use crate::output::Field;
use std::path::{Path, PathBuf};

/// The families of `all` (the registry) that `which` names: "all" or one family's name.
pub fn select(which: &str, all: &[&'static dyn Family]) -> Result<Vec<&'static dyn Family>> {
    if which == "all" {
        return Ok(all.to_vec());
    }
    match all.iter().find(|f| f.name() == which) {
        Some(f) => Ok(vec![*f]),
        None => {
            let names: Vec<&str> = all.iter().map(|f| f.name()).collect();
            Err(SolverError::config(
                Path::new("<command line>"),
                which,
                format!("no such family (the solver has: all, {})", names.join(", ")),
            ))
        }
    }
}

/// A built-in template of `families` (the registry) by name, with its family.
pub fn template(families: &[&'static dyn Family], name: &str) -> Option<(&'static dyn Family, &'static Template)> {
    families
        .iter()
        .find_map(|f| f.templates().iter().find(|t| t.name == name).map(|t| (*f, t)))
}

/// The case document of a template of `families` with overrides (`{mesh}` replaced) in one
/// precision.
pub fn spec_doc(
    families: &[&'static dyn Family],
    template_name: &str,
    sets: &[String],
    mesh: Option<&Path>,
    p: Precision,
) -> Result<CaseDoc> {
    let (_, t) = template(families, template_name)
        .ok_or_else(|| SolverError::Other(format!("internal: a spec names no template '{template_name}'")))?;
    let mesh = mesh.map_or(String::new(), |m| m.display().to_string());
    let mut all: Vec<String> = sets.iter().map(|s| s.replace("{mesh}", &mesh)).collect();
    all.push(format!("run.precision=\"{}\"", p.name()));
    CaseDoc::parse(t.text, Path::new(&format!("{template_name}.toml")), &all)
}

/// A Kuhn box of n^3 x 6 tetrahedra in Hilbert order in `dir` (made once).
pub fn box_mesh(dir: &Path, n: usize) -> Result<PathBuf> {
    use meshtool::generate::cartesian_box::{generate, BoxSpec};
    let path = dir.join(format!("box{n}.pmesh"));
    if !path.exists() {
        let raw = generate(&BoxSpec {
            dims: [n; 3],
            lo: [0.0; 3],
            hi: [1.0; 3],
        })?;
        meshtool::pmesh::prepare(&raw, meshtool::reorder::Reorder::Hilbert)?
            .0
            .write(&path)?;
    }
    Ok(path)
}

/// A case after `steps` steps from its initial state.
pub struct Stepped {
    pub case: Case,
    pub clock: Clock,
}

impl Stepped {
    /// The case of `doc` (its family among `families`) on `target` after `steps` steps.
    pub fn run(doc: &CaseDoc, families: &[&'static dyn Family], target: Target, steps: u64) -> Result<Stepped> {
        let mut s = Stepped {
            case: Case::prepare(doc, families, target)?,
            clock: Clock::default(),
        };
        s.advance_to(steps)?;
        Ok(s)
    }

    /// Steps until the clock has taken `steps` steps (the case's own end comes first where it
    /// is earlier).
    pub fn advance_to(&mut self, steps: u64) -> Result<()> {
        while self.clock.step < steps && !self.case.schedule.done(&self.clock) {
            self.clock = self.case.advance_batch(&self.clock, steps - self.clock.step)?;
        }
        Ok(())
    }

    pub fn fields(&mut self) -> Result<Vec<Field>> {
        self.case.sim.fields(&self.clock)
    }

    /// The relative L1 error of the field the setup has an exact solution of.
    pub fn l1(&mut self) -> Result<Option<f64>> {
        let Some(exact) = self.case.setup.exact(&self.clock) else {
            return Ok(None);
        };
        let fields = self.fields()?;
        Ok(fields.iter().find(|f| f.name == exact.name).map(|f| {
            let w = self.case.geometry.weights(f.centring);
            crate::output::relative_errors(&f.values, &exact.values, w)["l1"]
                .as_f64()
                .unwrap_or(f64::NAN)
        }))
    }
}
