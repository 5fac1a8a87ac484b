//! Cartesian grid descriptions for the structured solvers (Euler, heat, shallow water).
//!
//! The file is TOML (`*.grid.toml`), documented in README.md:
//! ```toml
//! format = "cfd-grid"
//! version = 1
//! origin = [0.0, 0.0, 0.0]     # lower corner
//! extent = [1.0, 1.0, 1.0]     # edge lengths
//! dims = [64, 64, 64]          # cells per direction (use 1 in z for 2D)
//! [bathymetry]                 # optional: bed elevation at cell centres, row-major in x then y
//! source = "bed.asc"
//! values = [ ... ]             # dims[0] * dims[1] values
//! ```
//! Bathymetry comes from an ESRI ASCII grid, sampled bilinearly at the cell centres.

use crate::error::{MeshError, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

pub const FORMAT: &str = "cfd-grid";
pub const VERSION: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GridSpec {
    pub format: String,
    pub version: u32,
    pub origin: [f64; 3],
    pub extent: [f64; 3],
    pub dims: [usize; 3],
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub bathymetry: Option<Bathymetry>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Bathymetry {
    pub source: String,
    pub values: Vec<f64>,
}

impl GridSpec {
    pub fn new(origin: [f64; 3], extent: [f64; 3], dims: [usize; 3]) -> Result<Self> {
        if dims.contains(&0) || extent.iter().any(|&e| e.is_nan() || e <= 0.0) {
            return Err(MeshError::Invalid(format!(
                "grid dims {dims:?} and extent {extent:?} must be positive"
            )));
        }
        Ok(GridSpec {
            format: FORMAT.into(),
            version: VERSION,
            origin,
            extent,
            dims,
            bathymetry: None,
        })
    }

    pub fn spacing(&self) -> [f64; 3] {
        std::array::from_fn(|k| self.extent[k] / self.dims[k] as f64)
    }

    pub fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| MeshError::io(path, e))?;
        let g: GridSpec = toml::from_str(&text).map_err(|e| MeshError::Parse {
            path: path.into(),
            location: e.span().map(|s| format!("byte {}", s.start)).unwrap_or_default(),
            message: e.message().to_string(),
        })?;
        if g.format != FORMAT || g.version != VERSION {
            return Err(MeshError::Pmesh {
                path: path.into(),
                message: format!(
                    "not a {FORMAT} version {VERSION} file (format '{}', version {})",
                    g.format, g.version
                ),
            });
        }
        Ok(g)
    }

    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("grid spec serialises")
    }
}

/// An ESRI ASCII raster (`.asc`).
#[derive(Clone, Debug)]
pub struct EsriGrid {
    pub ncols: usize,
    pub nrows: usize,
    pub xll: f64,
    pub yll: f64,
    pub cellsize: f64,
    pub nodata: f64,
    /// Row-major from the southern row up (flipped from the file's north-first order).
    pub values: Vec<f64>,
}

impl EsriGrid {
    pub fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| MeshError::io(path, e))?;
        Self::parse(&text, path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<Self> {
        let err = |line: usize, m: String| MeshError::Parse {
            path: path.into(),
            location: format!("line {line}"),
            message: m,
        };
        let mut header = std::collections::HashMap::new();
        let mut lines = text.lines().enumerate().peekable();
        while let Some((_, l)) = lines.peek() {
            let mut it = l.split_whitespace();
            match it.next() {
                Some(k) if k.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) => {
                    let (no, l) = lines.next().unwrap();
                    let v: f64 = l
                        .split_whitespace()
                        .nth(1)
                        .and_then(|v| v.parse().ok())
                        .ok_or_else(|| err(no + 1, format!("header '{k}' needs a number")))?;
                    header.insert(k.to_ascii_lowercase(), v);
                }
                _ => break,
            }
        }
        let get = |k: &str| {
            header
                .get(k)
                .copied()
                .ok_or_else(|| err(1, format!("ESRI header lacks '{k}'")))
        };
        let ncols = get("ncols")? as usize;
        let nrows = get("nrows")? as usize;
        let cellsize = get("cellsize")?;
        let (xll, yll) = match (header.get("xllcorner"), header.get("xllcenter")) {
            (Some(&x), _) => (x, get("yllcorner")?),
            (None, Some(&x)) => (x - 0.5 * cellsize, get("yllcenter")? - 0.5 * cellsize),
            _ => return Err(err(1, "ESRI header lacks xllcorner or xllcenter".into())),
        };
        let nodata = header.get("nodata_value").copied().unwrap_or(-9999.0);
        let mut rows: Vec<Vec<f64>> = Vec::with_capacity(nrows);
        for (no, l) in lines {
            if l.trim().is_empty() {
                continue;
            }
            let row: std::result::Result<Vec<f64>, _> = l.split_whitespace().map(str::parse).collect();
            let row = row.map_err(|_| err(no + 1, "raster row has a value that is not a number".into()))?;
            if row.len() != ncols {
                return Err(err(
                    no + 1,
                    format!("raster row has {} values, ncols is {ncols}", row.len()),
                ));
            }
            rows.push(row);
        }
        if rows.len() != nrows {
            return Err(err(1, format!("raster has {} rows, nrows is {nrows}", rows.len())));
        }
        let values = rows.into_iter().rev().flatten().collect();
        Ok(EsriGrid {
            ncols,
            nrows,
            xll,
            yll,
            cellsize,
            nodata,
            values,
        })
    }

    /// Bilinear sample at (x, y), clamped to the raster; NODATA cells are an error.
    pub fn sample(&self, x: f64, y: f64) -> Option<f64> {
        let fx = ((x - self.xll) / self.cellsize - 0.5).clamp(0.0, (self.ncols - 1) as f64);
        let fy = ((y - self.yll) / self.cellsize - 0.5).clamp(0.0, (self.nrows - 1) as f64);
        let (i, j) = (fx.floor() as usize, fy.floor() as usize);
        let (i1, j1) = ((i + 1).min(self.ncols - 1), (j + 1).min(self.nrows - 1));
        let (tx, ty) = (fx - i as f64, fy - j as f64);
        let v = |i: usize, j: usize| self.values[j * self.ncols + i];
        let corners = [v(i, j), v(i1, j), v(i, j1), v(i1, j1)];
        if corners.contains(&self.nodata) {
            return None;
        }
        Some(
            (1.0 - ty) * ((1.0 - tx) * corners[0] + tx * corners[1]) + ty * ((1.0 - tx) * corners[2] + tx * corners[3]),
        )
    }
}

/// Sample `esri` at the cell centres of `grid`'s x-y plane. A grid that reaches beyond the
/// raster by more than half a raster cell is refused: its cells there would all take the
/// value at the raster's edge.
pub fn attach_bathymetry(grid: &mut GridSpec, esri: &EsriGrid, source: &str) -> Result<()> {
    check_within(grid, esri, source)?;
    let h = grid.spacing();
    let mut values = Vec::with_capacity(grid.dims[0] * grid.dims[1]);
    for j in 0..grid.dims[1] {
        for i in 0..grid.dims[0] {
            let x = grid.origin[0] + (i as f64 + 0.5) * h[0];
            let y = grid.origin[1] + (j as f64 + 0.5) * h[1];
            values.push(esri.sample(x, y).ok_or_else(|| {
                MeshError::Invalid(format!(
                    "{source}: NODATA under grid cell ({i}, {j}) at ({x}, {y}); fill the raster or shrink the grid"
                ))
            })?);
        }
    }
    grid.bathymetry = Some(Bathymetry {
        source: source.into(),
        values,
    });
    Ok(())
}

/// The grid's x-y extent lies within the raster's, half a raster cell of margin allowed.
fn check_within(grid: &GridSpec, esri: &EsriGrid, source: &str) -> Result<()> {
    let [gx, gy] = [0, 1].map(|k| [grid.origin[k], grid.origin[k] + grid.extent[k]]);
    let rx = [esri.xll, esri.xll + esri.ncols as f64 * esri.cellsize];
    let ry = [esri.yll, esri.yll + esri.nrows as f64 * esri.cellsize];
    let margin = 0.5 * esri.cellsize;
    let inside = |g: [f64; 2], r: [f64; 2]| g[0] >= r[0] - margin && g[1] <= r[1] + margin;
    if inside(gx, rx) && inside(gy, ry) {
        return Ok(());
    }
    let span = |v: [f64; 2]| format!("[{}, {}]", short(v[0]), short(v[1]));
    Err(MeshError::Invalid(format!(
        "{source}: the grid covers x {}, y {}, but the raster covers x {}, y {} (cell size {}); its cells beyond the raster would all take the value at the raster's edge. Choose --origin and --extent within the raster (up to half a raster cell beyond its edges), or use a raster that covers the grid",
        span(gx),
        span(gy),
        span(rx),
        span(ry),
        short(esri.cellsize)
    )))
}

/// `x` with at most 6 decimals and no trailing zeros: 9.4, 16, 0.333333.
fn short(x: f64) -> String {
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bathymetry_is_sampled_south_row_first_and_survives_a_toml_round_trip() {
        let asc = "ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value -9999\n4 5 6\n1 2 3\n";
        let g = EsriGrid::parse(asc, Path::new("t.asc")).unwrap();
        // South row is 1 2 3: the value at the centre of cell (0,0) is 1.
        assert_eq!(g.sample(0.5, 0.5), Some(1.0));
        assert_eq!(g.sample(1.0, 1.0), Some(3.0)); // mean of 1,2,4,5
        let mut grid = GridSpec::new([0.0; 3], [3.0, 2.0, 1.0], [3, 2, 1]).unwrap();
        attach_bathymetry(&mut grid, &g, "t.asc").unwrap();
        let back: GridSpec = toml::from_str(&grid.to_toml()).unwrap();
        assert_eq!(back, grid);
        assert_eq!(back.bathymetry.unwrap().values, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    }

    #[test]
    fn a_grid_is_refused_beyond_half_a_raster_cell_outside_the_raster() {
        let asc = "ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n3 4\n";
        let g = EsriGrid::parse(asc, Path::new("t.asc")).unwrap();
        let attach = |origin: [f64; 3], extent: [f64; 3]| {
            let mut grid = GridSpec::new(origin, extent, [4, 4, 1]).unwrap();
            attach_bathymetry(&mut grid, &g, "t.asc").map_err(|e| e.to_string())
        };
        assert!(attach([-0.5, -0.5, 0.0], [3.0, 3.0, 1.0]).is_ok());
        let e = attach([-0.6, 0.0, 0.0], [2.0, 2.0, 1.0]).unwrap_err();
        assert!(
            e.contains("the grid covers x [-0.6, 1.4], y [0, 2], but the raster covers x [0, 2], y [0, 2]"),
            "{e}"
        );
        assert!(attach([0.0, 0.0, 0.0], [2.0, 2.6, 1.0]).is_err());
    }

    #[test]
    fn a_short_esri_row_is_refused_naming_its_line_and_ncols() {
        let asc = "ncols 3\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n";
        let e = EsriGrid::parse(asc, Path::new("t.asc")).unwrap_err().to_string();
        assert!(e.contains("line 6") && e.contains("ncols"), "{e}");
    }
}
