//! Parallel VTK output of a decomposed structured grid: every process writes its parts' pieces
//! (`step_N_pK.vti`, each with its extent inside the whole grid and the whole grid's origin),
//! and rank 0 the `step_N.pvti` that joins them, listed in the `.pvd` once every piece is
//! written. ParaView opens the `.pvd` as it opens a series of single files. No process holds
//! more than its own parts' values, where a single file needs the whole grid on rank 0.

use super::{vtk_xml, write_error, Centring, Field, Geometry, Series, VtkOptions};
use crate::error::{Result, SolverError};
pub use crate::framework::config::PiecesChoice;
pub use crate::framework::field::Piece;
use std::path::Path;

/// Bytes a frame of the whole grid takes on rank 0, about: 8 values of 8 bytes a point.
const FRAME_BYTES_PER_POINT: f64 = 64.0;

impl PiecesChoice {
    /// Whether a run on `geometry` split into several parts (`split`) writes pieces.
    pub fn wanted(self, geometry: &Geometry, split: bool) -> bool {
        match self {
            PiecesChoice::Never => false,
            PiecesChoice::Always => split,
            PiecesChoice::Auto => {
                let frame = geometry.points() as f64 * FRAME_BYTES_PER_POINT;
                split && host_memory().is_some_and(|m| frame > m / 4.0)
            }
        }
    }
}

/// This host's memory in bytes (`MemTotal` of /proc/meminfo), where it can be read.
fn host_memory() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024.0)
}

/// Writes the pieces of each frame and (on rank 0) the `.pvti` and the series.
pub struct PieceWriter {
    /// The series, on rank 0 only.
    series: Option<Series>,
    opts: VtkOptions,
    origin: [f64; 3],
    spacing: [f64; 3],
    points: [usize; 3],
    /// Every part's points: (its number, first and last point index per axis).
    extents: Vec<(usize, [[usize; 2]; 3])>,
}

impl PieceWriter {
    /// For a grid `geometry` whose parts hold the points `extents` (all parts, every rank's).
    pub fn new(
        series: Option<Series>,
        geometry: &Geometry,
        extents: Vec<(usize, [[usize; 2]; 3])>,
        opts: VtkOptions,
    ) -> Result<PieceWriter> {
        let Geometry::Image {
            points,
            origin,
            spacing,
        } = geometry
        else {
            return Err(SolverError::Other(
                "internal: pieces are written of structured grids only".into(),
            ));
        };
        Ok(PieceWriter {
            series,
            opts,
            origin: *origin,
            spacing: *spacing,
            points: *points,
            extents,
        })
    }

    fn piece_name(stem: &Path, index: usize) -> String {
        format!(
            "{}_p{index:04}.vti",
            stem.file_name().unwrap_or_default().to_string_lossy()
        )
    }

    /// This process's pieces of the frame `stem` (every process, before `write_index`).
    pub fn write_pieces(&self, stem: &Path, pieces: &[Piece]) -> Result<()> {
        for piece in pieces {
            let extent = self.extent(piece.index)?;
            let points: usize = extent.iter().map(|[a, b]| b - a + 1).product();
            let cells: usize = extent.iter().map(|[a, b]| (b - a).max(1)).product();
            for f in &piece.fields {
                let want = if f.centring == Centring::Point { points } else { cells };
                if f.len() != want {
                    return Err(SolverError::Other(format!(
                        "internal: piece {} of field '{}' has {} values, its extent {want}",
                        piece.index,
                        f.name,
                        f.len()
                    )));
                }
            }
            let path = stem.with_file_name(Self::piece_name(stem, piece.index));
            meshtool::atomic::write_with(&path, |w| {
                vtk_xml::write_image_piece(w, self.origin, self.spacing, extent, &piece.fields, self.opts)
            })
            .map_err(write_error)?;
        }
        Ok(())
    }

    fn extent(&self, index: usize) -> Result<[[usize; 2]; 3]> {
        self.extents
            .iter()
            .find(|(i, _)| *i == index)
            .map(|e| e.1)
            .ok_or_else(|| SolverError::Other(format!("internal: no part {index} in the decomposition")))
    }

    /// On rank 0, once every process has written its pieces: the `.pvti` of frame `stem` at
    /// `time` (its arrays named as `fields`, rank 0's pieces), added to the series.
    pub fn write_index(&mut self, stem: &Path, time: f64, fields: &[Field]) -> Result<()> {
        let Some(series) = &mut self.series else { return Ok(()) };
        let whole = self.points.map(|n| [0, n - 1]);
        let mut xml = format!(
            "<?xml version=\"1.0\"?>\n<VTKFile type=\"PImageData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n<PImageData WholeExtent=\"{}\" GhostLevel=\"0\" Origin=\"{} {} {}\" Spacing=\"{} {} {}\">\n",
            vtk_xml::extent_text(whole),
            self.origin[0],
            self.origin[1],
            self.origin[2],
            self.spacing[0],
            self.spacing[1],
            self.spacing[2]
        );
        for (tag, centring) in [("PPointData", Centring::Point), ("PCellData", Centring::Cell)] {
            xml += &format!("<{tag}>\n");
            for f in fields.iter().filter(|f| f.centring == centring) {
                xml += &format!(
                    "  <PDataArray type=\"{}\" Name=\"{}\" NumberOfComponents=\"{}\"/>\n",
                    self.opts.field_type(),
                    f.name,
                    f.components
                );
            }
            xml += &format!("</{tag}>\n");
        }
        for (index, extent) in &self.extents {
            xml += &format!(
                "<Piece Extent=\"{}\" Source=\"{}\"/>\n",
                vtk_xml::extent_text(*extent),
                Self::piece_name(stem, *index)
            );
        }
        xml += "</PImageData>\n</VTKFile>\n";
        let path = stem.with_extension("pvti");
        super::write_text(&path, &xml)?;
        series.add(time, &path.file_name().unwrap_or_default().to_string_lossy())
    }
}
