//! Everything a run writes: VTK fields (`.vti`), the `.pvd` time series, `summary.json` and
//! checkpoints. Every write is atomic (temporary file, then rename).

pub mod checkpoint;
pub mod pvd;

use crate::error::{Result, SolverError};
use crate::structured::Grid3;
use meshtool::vtk::{cell_array, write_atomic};
use std::path::Path;
use vtkio::model::{Attribute, Attributes, DataSet, Extent, ImageDataPiece, Piece};

/// Point fields on a structured grid as VTK ImageData (binary, zlib-compressed).
pub fn write_vti(path: &Path, grid: &Grid3, fields: &[(String, Vec<f64>)]) -> Result<()> {
    let [nx, ny, nz] = grid.n.map(|n| n as i32);
    let arrays: Vec<Attribute> = fields.iter().map(|(name, v)| array(name, v, grid.points())).collect();
    let data = DataSet::ImageData {
        extent: Extent::Ranges([0..=nx - 1, 0..=ny - 1, 0..=nz - 1]),
        origin: grid.origin.map(|v| v as f32),
        spacing: grid.h.map(|v| v as f32),
        meta: None,
        pieces: vec![Piece::Inline(Box::new(ImageDataPiece {
            extent: Extent::Ranges([0..=nx - 1, 0..=ny - 1, 0..=nz - 1]),
            data: Attributes {
                point: arrays,
                cell: vec![],
            },
        }))],
    };
    Ok(write_atomic(data, path)?)
}

/// Write fields in the layout's format: `.vti` point data or `.vtu` cell data.
pub fn write_fields(path_stem: &Path, layout: &crate::cases::Layout, fields: &[(String, Vec<f64>)]) -> Result<String> {
    match layout {
        crate::cases::Layout::Structured(g) => {
            let p = path_stem.with_extension("vti");
            write_vti(&p, g, fields)?;
            Ok(file_name(&p))
        }
        crate::cases::Layout::Tets(m) => {
            let p = path_stem.with_extension("vtu");
            let arrays = fields.iter().map(|(n, v)| array(n, v, m.num_cells())).collect();
            write_atomic(meshtool::vtk::tet_grid(m, arrays), &p)?;
            Ok(file_name(&p))
        }
    }
}

/// A field as a VTK array: a vector when it holds three values per point or cell.
fn array(name: &str, values: &[f64], size: usize) -> Attribute {
    if values.len() == 3 * size && size > 0 {
        Attribute::vectors(name).with_data(values.to_vec())
    } else {
        cell_array(name, values.to_vec())
    }
}

fn file_name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

/// Write text atomically.
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    meshtool::atomic::write_with(path, |w| w.write_all(text.as_bytes())).map_err(|e| SolverError::Other(e.to_string()))
}

/// Relative L1, L2 and Linf differences of `a` from `reference`, the first two weighted
/// (cell volumes on unstructured meshes).
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
    serde_json::json!({"l1": e1 / r1, "l2": (e2 / r2).sqrt(), "linf": einf / rinf})
}
