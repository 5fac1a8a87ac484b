//! Everything a run writes: typed fields as VTK (`.vti` point or cell data, `.vtu` cell data),
//! the `.pvd` time series, `summary.json`. Every write is atomic (temporary file, then rename).

pub mod csv;
pub mod pieces;
pub mod pvd;
pub mod vtk_xml;
pub mod writer;

pub use crate::error::write_error;
pub use crate::framework::field::{Centring, Field, Geometry};
pub use csv::{CsvLog, CsvSeries};
pub use pvd::Series;

use crate::error::{Result, SolverError};
pub use crate::framework::config::Codec;
use std::path::Path;
pub use vtk_xml::VtkOptions;

/// Write `fields` on `geometry` as `<path_stem>.vti` or `.vtu`; the file's name.
pub fn write_fields(path_stem: &Path, geometry: &Geometry, fields: &[Field]) -> Result<String> {
    write_fields_with(path_stem, geometry, fields, VtkOptions::default())
}

/// [`write_fields`] with the data arrays encoded as `opts` says (compressed in parallel blocks).
pub fn write_fields_with(path_stem: &Path, geometry: &Geometry, fields: &[Field], opts: VtkOptions) -> Result<String> {
    for f in fields {
        let want = geometry.size(f.centring);
        if f.len() != want {
            return Err(SolverError::Other(format!(
                "internal: field '{}' has {} {:?} values, the geometry {want}",
                f.name,
                f.len(),
                f.centring
            )));
        }
    }
    let path = match geometry {
        Geometry::Image { .. } => path_stem.with_extension("vti"),
        Geometry::Tets(_) => {
            if fields.iter().any(|f| f.centring == Centring::Point) {
                return Err(SolverError::Other(
                    "internal: point fields on tetrahedral meshes are not written".into(),
                ));
            }
            path_stem.with_extension("vtu")
        }
    };
    meshtool::atomic::write_with(&path, |w| vtk_xml::write(w, geometry, fields, opts)).map_err(write_error)?;
    Ok(path.file_name().unwrap().to_string_lossy().into_owned())
}

/// Write text atomically.
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    meshtool::atomic::write_with(path, |w| w.write_all(text.as_bytes())).map_err(write_error)
}

/// Relative L1, L2 and Linf differences of `a` from `reference`, the first two weighted
/// (cell volumes on unstructured meshes); absolute ones, marked `absolute`, where the
/// reference is zero everywhere (a fluid that should stay at rest).
pub fn relative_errors(a: &[f64], reference: &[f64], weights: Option<&[f64]>) -> serde_json::Value {
    let (mut e1, mut e2, mut einf, mut r1, mut r2, mut rinf) = (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for (i, (x, r)) in a.iter().zip(reference).enumerate() {
        let w = weights.map_or(1.0, |w| w[i]);
        let d = (x - r).abs();
        e1 += w * d;
        e2 += w * d * d;
        einf = einf.max(d);
        r1 += w * r.abs();
        r2 += w * r * r;
        rinf = rinf.max(r.abs());
    }
    if rinf == 0.0 {
        // A zero reference (a fluid at rest): the errors themselves, weighted means and max.
        let total: f64 = (0..a.len()).map(|i| weights.map_or(1.0, |w| w[i])).sum();
        return serde_json::json!({"l1": e1 / total, "l2": (e2 / total).sqrt(), "linf": einf, "absolute": true});
    }
    serde_json::json!({"l1": e1 / r1, "l2": (e2 / r2).sqrt(), "linf": einf / rinf})
}

/// max |a - b| / max |a| over two equally long arrays (CPU-vs-CUDA agreement).
pub fn max_relative_difference(a: &[f64], b: &[f64]) -> f64 {
    let scale = a.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
    let d = a.iter().zip(b).fold(0.0f64, |m, (x, y)| {
        let d = (x - y).abs();
        if d.is_nan() {
            f64::INFINITY
        } else {
            m.max(d)
        }
    });
    d / scale
}
